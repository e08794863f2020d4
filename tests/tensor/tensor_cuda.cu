// Tensors in CUDA memory: round trips and strided copies between every device pair.
// Needs a GPU; without one the executable exits with 77 and CTest reports it as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdint>  // std::int64_t

#include <fusedsl/core/error.hpp>          // fusedsl::error
#include <fusedsl/core/half.hpp>           // half
#include <fusedsl/tensor/copy.hpp>         // copy, contiguous
#include <fusedsl/tensor/tensor.hpp>       // tensor
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view
#include <support/gpu.hpp>                 // skip_without_gpu

using fusedsl::device;
using fusedsl::shape;
using fusedsl::tensor;
using fusedsl::tensor_view;

namespace {

/// A CPU tensor whose element at flat position i holds i.
tensor<int> numbered(const shape& sizes) {
  tensor<int> t(sizes);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<int>(i);
  return t;
}

/// Writes 2 * x(i, j) into y(i, j) on the device: views are taken by value and their accessors run in device code.
__global__ void twice(tensor_view<const int> x, tensor_view<int> y) {
  const std::int64_t i = blockIdx.x, j = threadIdx.x;
  if (i < x.sizes()[0] && j < x.sizes()[1])
    y.data()[i * y.strides()[0] + j * y.strides()[1]] = 2 * x.data()[i * x.strides()[0] + j * x.strides()[1]];
}

}  // namespace

TEST_CASE("cpu -> cuda -> cpu round trip") {
  const tensor<int> host = numbered({3, 5, 7});
  const tensor<int> gpu = host.to(device::cuda);
  CHECK(gpu.where() == device::cuda);
  CHECK(gpu.sizes() == host.sizes());
  const tensor<int> back = gpu.to(device::cpu);
  CHECK(back.where() == device::cpu);
  for (std::int64_t i = 0; i < back.numel(); ++i) CHECK(back.data()[i] == i);
  CHECK(gpu.clone().to(device::cpu)(2, 4, 6) == 104);
}

TEST_CASE("full, half and bool on the device") {
  CHECK(tensor<float>::full({1000}, 3.5f, device::cuda).to(device::cpu)(999) == 3.5f);
  CHECK(static_cast<float>(tensor<fusedsl::half>::full({8}, fusedsl::half(-0.25f), device::cuda).to(device::cpu)(7)) ==
        -0.25f);
  CHECK(tensor<bool>::full({3}, true, device::cuda).to(device::cpu)(2));
}

TEST_CASE("a kernel reads and writes through views") {
  const tensor<int> x = numbered({4, 6}).to(device::cuda);
  tensor<int> y = tensor<int>::full({6, 4}, 0, device::cuda);
  twice<<<4, 6>>>(x.view(), y.transpose(0, 1));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const tensor<int> result = y.to(device::cpu);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) CHECK(result(j, i) == 2 * (6 * i + j));
}

TEST_CASE("strided copies between every device pair") {
  const tensor<int> host = numbered({4, 6});
  const tensor<int> gpu = host.to(device::cuda);

  SUBCASE("strided cpu source into a contiguous cuda tensor") {
    tensor<int> dst({6, 4}, device::cuda);
    fusedsl::copy(host.transpose(0, 1), dst);
    const tensor<int> back = dst.to(device::cpu);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) CHECK(back(i, j) == host(j, i));
  }
  SUBCASE("strided cuda source into a contiguous cpu tensor") {
    tensor<int> dst({2, 3});
    fusedsl::copy(gpu.slice(0, 1, 4, 2).slice(1, 0, 6, 2), dst);  // rows 1, 3; columns 0, 2, 4
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) CHECK(dst(i, j) == host(2 * i + 1, 2 * j));
  }
  SUBCASE("cuda to cuda, both strided: the gaps of the destination keep their values") {
    tensor<int> dst = tensor<int>::full({6, 8}, -1, device::cuda);
    fusedsl::copy(gpu.transpose(0, 1), dst.slice(1, 1, 8, 2));  // columns 1, 3, 5, 7
    const tensor<int> back = dst.to(device::cpu);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 8; ++j) CHECK(back(i, j) == (j % 2 == 1 ? host(j / 2, i) : -1));
  }
  SUBCASE("expanded cuda source") {
    const tensor<int> row = numbered({1, 6}).to(device::cuda);
    const tensor<int> dst = fusedsl::contiguous(row.expand({5, 6}));
    CHECK(dst.where() == device::cuda);
    const tensor<int> back = dst.to(device::cpu);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j) CHECK(back(i, j) == j);
  }
  SUBCASE("contiguous cuda views of different shapes are refused") {
    tensor<int> dst({6, 4}, device::cuda);
    CHECK_THROWS_WITH_AS(fusedsl::copy(gpu, dst),
                         doctest::Contains("source sizes [4, 6] and destination sizes [6, 4] differ"), fusedsl::error);
  }
}

TEST_CASE("empty and rank-0 tensors on the device") {
  const tensor<float> empty({0, 4}, device::cuda);
  CHECK(empty.to(device::cpu).sizes() == shape{0, 4});
  const tensor<double> scalar = tensor<double>::full(shape{}, 1.25, device::cuda);
  CHECK(scalar.to(device::cpu)() == 1.25);
}

TEST_CASE("host element access to cuda memory is refused") {
  tensor<int> gpu({2}, device::cuda);
  CHECK_THROWS_WITH_AS(gpu(0), doctest::Contains("needs a cpu view, this one is on cuda"), fusedsl::error);
}

TEST_CASE("CUDA failures become fusedsl::error with the CUDA message") {
  CHECK_THROWS_WITH_AS(tensor<double>({std::int64_t{1} << 50}, device::cuda),
                       doctest::Contains("cudaMalloc failed: cudaErrorMemoryAllocation"), fusedsl::error);
}

int main(int argc, char** argv) {
  fusedsl::testing::skip_without_gpu();
  return doctest::Context(argc, argv).run();
}
