// Every floating-point pointwise function, run by the CPU executor and by the
// oracle, on f64, f32, f16 and bf16, on odd sizes; integer and bool inputs
// promote to f32.
#include "common.hpp"

namespace {
using namespace fusedsl_tests;

/// Applies every unary math function to `x` bound to `tx`  and compares with the oracle.
template <class X, class T>
void check_unary_math(const X& x, const fx::tensor<T>& tx) {
  check_each(std::tuple{fx::exp(x), fx::expm1(x), fx::sin(x), fx::cos(x), fx::tanh(x), fx::erf(x), fx::sigmoid(x),
                        fx::silu(x), fx::gelu(x), fx::gelu(x, fx::tanh_approximation), fx::abs(x), fx::relu(x), -x,
                        // Domain-limited: NaN outside the domain must match too (NaN == NaN).
                        fx::log(x), fx::log1p(x), fx::sqrt(x), fx::rsqrt(x), fx::realize(x)},
             tx.sizes(), {1, 1, 1, 1, 1, 1, 3, 3, 4, 8, 1, 1, 1, 1, 1, 1, 2, 1}, x(tx));
}

template <class T>
void check_math_dtype(std::uint64_t seed) {
  // Any rank: one program serves every shape below.
  constexpr fx::in<"x", T, fx::dynamic_rank> x;
  SUBCASE("signed inputs in [-2, 2), 3x7") { check_unary_math(x, random_tensor<T>({3, 7}, seed, -2.0, 2.0)); }
  SUBCASE("positive inputs in [0.05, 4), 1x1") { check_unary_math(x, random_tensor<T>({1, 1}, seed + 1, 0.05, 4.0)); }
  SUBCASE("positive inputs in [0.05, 4), 1023 elements, rank 1") {
    check_unary_math(x, random_tensor<T>({1023}, seed + 2, 0.05, 4.0));
  }
  SUBCASE("rank 0") { check_unary_math(x, random_tensor<T>({}, seed + 3, -3.0, 3.0)); }
}
}  // namespace

TEST_CASE_TEMPLATE("every floating-point math function matches the oracle", T, double, float, fx::half,
                   fx::bfloat16) {
  check_math_dtype<T>(100 + static_cast<std::uint64_t>(fx::dtype_of<T>));
}

