// Host code compiled by the C++ compiler (not nvcc) with FUSEDSL_WITH_CUDART: the same tensors
// reach CUDA memory through the runtime library. Linked into test_tensor_cuda, whose main skips without a GPU.
#include <doctest/doctest.h>

#include <cstdint>  // std::int64_t

#include <fusedsl/tensor/copy.hpp>    // copy, contiguous
#include <fusedsl/tensor/tensor.hpp>  // tensor

#if !defined(FUSEDSL_HAS_CUDA_RUNTIME) || defined(__CUDACC__)
#  error "this file tests host code compiled with FUSEDSL_WITH_CUDART by the C++ compiler"
#endif

using fusedsl::device;
using fusedsl::tensor;

TEST_CASE("host-compiled code with FUSEDSL_WITH_CUDART: round trip and strided copy") {
  tensor<double> host({3, 4});
  for (std::int64_t i = 0; i < host.numel(); ++i) host.data()[i] = 0.5 * static_cast<double>(i);
  const tensor<double> gpu = host.to(device::cuda);
  CHECK(gpu.where() == device::cuda);
  const tensor<double> back = fusedsl::contiguous(gpu.transpose(0, 1)).to(device::cpu);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) CHECK(back(i, j) == host(j, i));
  tensor<double> column({3}, device::cuda);
  fusedsl::copy(gpu.slice(1, 2, 3).squeeze(1), column);
  CHECK(column.to(device::cpu)(2) == host(2, 2));
}
