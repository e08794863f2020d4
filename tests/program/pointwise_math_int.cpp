// Math functions of integer and bool inputs compute in f32: the CPU executor
// against the oracle.
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("math functions of integer and bool inputs compute in f32", T, std::int64_t, std::int32_t,
                   std::int16_t, std::int8_t, std::uint8_t, bool) {
  constexpr fx::in<"n", T, 2> n;
  const auto tn = random_tensor<T>({3, 7}, 7, std::is_same_v<T, std::uint8_t> ? 0 : -5, 5);
  static_assert(decltype(fx::exp(n))::value_dtype == fx::dtype::f32);
  static_assert(decltype(fx::sigmoid(n))::value_dtype == fx::dtype::f32);
  static_assert(decltype(n / n)::value_dtype == fx::dtype::f32);
  check_each(std::tuple{fx::exp(n), fx::sqrt(n) /* NaN for negative integers */, n / n /* 0 / 0 is NaN */,
                        fx::pow(n, 0.5f) /* a float exponent promotes an integer base to f32 */},
             {3, 7}, {1, 1, 1, 2}, n(tn));
  // exp of an integer is the f32 exp of the converted value.
  const auto e = reference_value(fx::exp(n), {3, 7}, n(tn));
  for (std::int64_t i = 0; i < 21; ++i)
    CHECK(at(e, i) == doctest::Approx(std::exp(static_cast<double>(tn.data()[i]))).epsilon(1e-6));
}
