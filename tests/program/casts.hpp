// Shared by the cast tests: every cast from one dtype to all ten, executor
// against the oracle, exact.
#pragma once
#include "common.hpp"

namespace fusedsl_tests {

/// `cast<To>(x)` for every `To`, with x bound to `src` (or to `nonneg`, whose
/// values are in [0, 200), for u8: converting a negative float to an
/// unsigned integer is undefined behaviour in C++). Casts round the same way
/// in both (truncation toward zero, round-to-nearest-even for f16/bf16 from
/// the source value itself), so they must agree exactly.
template <class From, class... To>
void check_casts_to(const fx::tensor<From>& src, const fx::tensor<From>& nonneg) {
  constexpr fx::in<"x", From, 2> x;
  (
      [&] {
        static_assert(decltype(fx::cast<To>(x))::value_dtype == fx::dtype_of<To>);
        const auto& input = std::is_same_v<To, std::uint8_t> ? nonneg : src;
        check_against_oracle(fx::cast<To>(x), input.sizes(), tolerance{0, 0}, x(input));
      }(),
      ...);
}

/// Casts from `From` to every dtype.
template <class From>
void check_casts_from(const fx::tensor<From>& src, const fx::tensor<From>& nonneg) {
  check_casts_to<From, double, float, fx::half, fx::bfloat16, std::int64_t, std::int32_t, std::int16_t, std::int8_t,
                 std::uint8_t, bool>(src, nonneg);
}

}  // namespace fusedsl_tests
