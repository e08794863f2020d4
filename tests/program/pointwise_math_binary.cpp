// Binary floating-point functions (pow, division, maximum, minimum) on f64,
// f32, f16 and bf16, and math functions of integer and bool inputs, which
// compute in f32: the CPU executor against the oracle.
#include "common.hpp"

namespace {
using namespace fusedsl_tests;

template <class T>
void check_binary_math(std::uint64_t seed) {
  constexpr fx::in<"a", T, 2> a;
  constexpr fx::in<"b", T, 2> b;
  const auto ta = random_tensor<T>({5, 9}, seed, 0.1, 3.0);
  const auto tb = random_tensor<T>({5, 9}, seed + 1, -3.0, 3.0);
  check_each(std::tuple{fx::pow(a, b), fx::pow(b, a),  // negative bases: NaN for fractional exponents
                        fx::pow(a, 2), fx::pow(a, 0.5), a / b, b / a, fx::maximum(a, b), fx::minimum(a, b)},
             {5, 9}, {2, 2, 2, 2, 1, 1, 1, 1}, a(ta), b(tb));
}
}  // namespace

TEST_CASE_TEMPLATE("binary floating-point functions match the oracle", T, double, float, fx::half, fx::bfloat16) {
  check_binary_math<T>(200 + static_cast<std::uint64_t>(fx::dtype_of<T>));
}

TEST_CASE_TEMPLATE("math functions of integer and bool inputs compute in f32", T, std::int64_t, std::int32_t,
                   std::int16_t, std::int8_t, std::uint8_t, bool) {
  constexpr fx::in<"n", T, 2> n;
  const auto tn = random_tensor<T>({3, 7}, 7, std::is_same_v<T, std::uint8_t> ? 0 : -5, 5);
  static_assert(decltype(fx::exp(n))::value_dtype == fx::dtype::f32);
  static_assert(decltype(fx::sigmoid(n))::value_dtype == fx::dtype::f32);
  static_assert(decltype(n / n)::value_dtype == fx::dtype::f32);
  check_each(std::tuple{fx::exp(n), fx::sqrt(n) /* NaN for negative integers */, fx::gelu(n),
                        n / n /* 0 / 0 is NaN in both */, n / 3,
                        fx::pow(n, 0.5f) /* a float exponent promotes an integer base to f32 */},
             {3, 7}, {1, 1, 4, 1, 1, 2}, n(tn));
  // exp of an integer is the f32 exp of the converted value.
  const auto e = reference_value(fx::exp(n), {3, 7}, n(tn));
  for (std::int64_t i = 0; i < 21; ++i)
    CHECK(at(e, i) == doctest::Approx(std::exp(static_cast<double>(tn.data()[i]))).epsilon(1e-6));
}
