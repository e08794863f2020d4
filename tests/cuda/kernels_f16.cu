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
/// Where, for float bits `i` (and binary16 pattern `i` below 65536), the device's
/// conversion instructions (half.hpp) differ from the integer code the host runs (checked
/// against g++'s _Float16 in tests/core/half.cpp): to half, to bfloat16, and from half. A
/// NaN widened on the device needs only be a NaN.
struct conversion_mismatches {
  __device__ unsigned long long operator()(std::uint64_t i) const {
    const float f = __uint_as_float(static_cast<unsigned>(i));
    unsigned long long count = 0;
    count += cuda_test::fx::detail::float_to_half_bits(f) != cuda_test::fx::detail::float_to_half_bits_integer(f);
    count +=
        cuda_test::fx::detail::float_to_bfloat16_bits(f) != cuda_test::fx::detail::float_to_bfloat16_bits_integer(f);
    if (i < 65536) {
      const auto h = static_cast<std::uint16_t>(i);
      const float device = cuda_test::fx::detail::half_bits_to_float(h);
      const float host = cuda_test::fx::detail::half_bits_to_float_integer(h);
      count += device != device ? host == host : __float_as_uint(device) != __float_as_uint(host);
    }
    return count;
  }
};

/// Where the stores' conversion of two values at a time (cuda_detail::convert_values)
/// differs from the conversion of each value alone, for the float of bits `i` beside a
/// finite value (either side) and beside a NaN (the vector's NaN fix-up), to half and to
/// bfloat16.
struct vector_conversion_mismatches {
  template <class T>
  __device__ static unsigned long long of(float f) {
    const float nan = __uint_as_float(0xffc00001u), partners[] = {1.5f, nan};
    unsigned long long count = 0;
    for (const float other : partners) {
      const float first[2] = {f, other}, second[2] = {other, f};
      T a[2], b[2];
      cuda_test::fx::cuda_detail::convert_values(first, a);
      cuda_test::fx::cuda_detail::convert_values(second, b);
      const T one = static_cast<T>(f), two = static_cast<T>(other);
      count += (a[0].bits != one.bits) + (a[1].bits != two.bits) + (b[0].bits != two.bits) + (b[1].bits != one.bits);
    }
    return count;
  }
  __device__ unsigned long long operator()(std::uint64_t i) const {
    const float f = __uint_as_float(static_cast<unsigned>(i));
    return of<cuda_test::fx::half>(f) + of<cuda_test::fx::bfloat16>(f);
  }
};

/// Adds up `Count` over every float's bits.
template <class Count>
__global__ void count_over_every_float(unsigned long long* mismatches) {
  unsigned long long count = 0;
  const std::uint64_t step = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < (std::uint64_t{1} << 32); i += step)
    count += Count{}(i);
  atomicAdd(mismatches, count);
}

/// The mismatches `Count` finds over every float.
template <class Count>
unsigned long long every_float() {
  unsigned long long* mismatches = nullptr;
  REQUIRE(cudaMalloc(&mismatches, sizeof *mismatches) == cudaSuccess);
  REQUIRE(cudaMemset(mismatches, 0, sizeof *mismatches) == cudaSuccess);
  count_over_every_float<Count><<<1024, 256>>>(mismatches);
  unsigned long long found = 1;
  REQUIRE(cudaMemcpy(&found, mismatches, sizeof found, cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(mismatches);
  return found;
}
}  // namespace

TEST_CASE(
    "f16 and bf16: the device's conversions round every float and widen every half as the host does (a NaN to a NaN)") {
  CHECK(every_float<conversion_mismatches>() == 0);
}

TEST_CASE("f16 and bf16: the stores' conversions of two values at a time round every float as one at a time") {
  CHECK(every_float<vector_conversion_mismatches>() == 0);
}
