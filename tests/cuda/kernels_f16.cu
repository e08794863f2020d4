// The CUDA kernels against the oracle for f16 (see kernels.hpp).
#include "kernels.hpp"

namespace {
using T = cuda_test::fx::half;
}  // namespace

// The horizontal, column-strategy and row-strategy cases run the same kernels for f16 as
// for bf16 (two-byte elements, float compute; only the conversions differ, checked
// exhaustively below): kernels_bf16.cu runs them, and CI compiles them once.
TEST_CASE("f16: pointwise") { cuda_test::pointwise_case<T>(); }
TEST_CASE("f16: columns and full reductions") { cuda_test::columns_and_full_case<T>(); }
TEST_CASE("f16: softmax and layernorm") { cuda_test::softmax_layernorm_case<T>(); }
TEST_CASE("f16: adam in place") { cuda_test::adam_case<T>(); }

namespace {
/// Counts, over every float (to half and to bfloat16) and every binary16
/// pattern (to float), where the device's conversion instructions (half.hpp) differ from the integer code the host
/// runs (checked against g++'s _Float16 in tests/core/half.cpp). A NaN widened on the device needs only be a NaN.
__global__ void count_conversion_mismatches(unsigned long long* mismatches) {
  unsigned long long count = 0;
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < (std::uint64_t{1} << 32);
       i += step) {
    const float f = __uint_as_float(static_cast<unsigned>(i));
    count += cuda_test::fx::detail::float_to_half_bits(f) != cuda_test::fx::detail::float_to_half_bits_integer(f);
    count +=
        cuda_test::fx::detail::float_to_bfloat16_bits(f) != cuda_test::fx::detail::float_to_bfloat16_bits_integer(f);
    if (i < 65536) {
      const auto h = static_cast<std::uint16_t>(i);
      const float device = cuda_test::fx::detail::half_bits_to_float(h);
      const float host = cuda_test::fx::detail::half_bits_to_float_integer(h);
      count += device != device ? host == host : __float_as_uint(device) != __float_as_uint(host);
    }
  }
  atomicAdd(mismatches, count);
}
}  // namespace

TEST_CASE(
    "f16 and bf16: the device's conversions round every float and widen every half as the host does (a NaN to a NaN)") {
  unsigned long long* mismatches = nullptr;
  REQUIRE(cudaMalloc(&mismatches, sizeof *mismatches) == cudaSuccess);
  REQUIRE(cudaMemset(mismatches, 0, sizeof *mismatches) == cudaSuccess);
  count_conversion_mismatches<<<1024, 256>>>(mismatches);
  unsigned long long found = 1;
  REQUIRE(cudaMemcpy(&found, mismatches, sizeof found, cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(mismatches);
  CHECK(found == 0);
}
