// Shared by the pointwise math tests: the unary and binary floating-point
// functions, executor against the oracle.
#pragma once
#include "common.hpp"

namespace fusedsl_tests {

/// Applies every unary math function to `x` bound to `tx` and compares with
/// the oracle (one program per function).
template <class X, class T>
void check_unary_math(const X& x, const fx::tensor<T>& tx) {
  check_each(std::tuple{fx::exp(x), fx::expm1(x), fx::sin(x), fx::cos(x), fx::tanh(x), fx::erf(x), fx::sigmoid(x),
                        fx::silu(x), fx::gelu(x), fx::gelu(x, fx::tanh_approximation), fx::abs(x), fx::relu(x), -x,
                        // Domain-limited: NaN outside the domain must match too (NaN == NaN).
                        fx::log(x), fx::log1p(x), fx::sqrt(x), fx::rsqrt(x), fx::realize(x)},
             tx.sizes(), {1, 1, 1, 1, 1, 1, 3, 3, 4, 8, 1, 1, 1, 1, 1, 1, 2, 1}, x(tx));
  // Newer functions on f32 only (compile time): f64 runs the same code at another type, and
  // tests/backend/vector_math.cpp checks its accuracy.
  if constexpr (std::is_same_v<T, float>)
    check_each(std::tuple{fx::exp2(x), fx::erfc(x), fx::log2(x), fx::log10(x)}, tx.sizes(), {2, 2, 1, 1}, x(tx));
}

/// A representative subset, for f16 and bf16: they differ from f32 only in
/// the conversions around each op (computed in f32, stored rounded), which
/// every op shares; each program costs about a second to compile.
template <class X, class T>
void check_unary_math_subset(const X& x, const fx::tensor<T>& tx) {
  check_each(std::tuple{fx::exp(x), fx::tanh(x), fx::erf(x), fx::sigmoid(x), fx::gelu(x),
                        fx::gelu(x, fx::tanh_approximation), fx::log(x), fx::sqrt(x), fx::rsqrt(x)},
             tx.sizes(), {1, 1, 1, 3, 4, 8, 1, 1, 2}, x(tx));
}

/// Unary math of dtype T (every function if `All`, else the subset) over
/// several shapes: 3x7 signed, 1x1 and 1023 positive, rank 0.
template <class T, bool All>
void check_unary_math_dtype(std::uint64_t seed) {
  // Any rank: one program serves every shape below.
  constexpr fx::in<"x", T, fx::dynamic_rank> x;
  const auto check = [&](const fx::tensor<T>& tx) {
    if constexpr (All) check_unary_math(x, tx);
    else check_unary_math_subset(x, tx);
  };
  SUBCASE("signed inputs in [-2, 2), 3x7") { check(random_tensor<T>({3, 7}, seed, -2.0, 2.0)); }
  SUBCASE("positive inputs in [0.05, 4), 1x1") { check(random_tensor<T>({1, 1}, seed + 1, 0.05, 4.0)); }
  SUBCASE("positive inputs in [0.05, 4), 1023 elements, rank 1") {
    check(random_tensor<T>({1023}, seed + 2, 0.05, 4.0));
  }
  SUBCASE("rank 0") { check(random_tensor<T>({}, seed + 3, -3.0, 3.0)); }
}

/// pow, division, maximum and minimum of T tensors, and on f32 atan2, hypot, fmod, % and
/// fma (all of them if `All`, else pow, division and maximum).
template <class T, bool All>
void check_binary_math(std::uint64_t seed) {
  constexpr fx::in<"a", T, 2> a;
  constexpr fx::in<"b", T, 2> b;
  const auto ta = random_tensor<T>({5, 9}, seed, 0.1, 3.0);
  const auto tb = random_tensor<T>({5, 9}, seed + 1, -3.0, 3.0);
  if constexpr (All)
    check_each(std::tuple{fx::pow(a, b), fx::pow(b, a),  // negative bases: NaN for fractional exponents
                          fx::pow(a, 2), fx::pow(a, 0.5), a / b, b / a, fx::maximum(a, b), fx::minimum(a, b)},
               {5, 9}, {2, 2, 2, 2, 1, 1, 1, 1}, a(ta), b(tb));
  else check_each(std::tuple{fx::pow(b, a), b / a, fx::maximum(a, b)}, {5, 9}, {2, 1, 1}, a(ta), b(tb));
  if constexpr (All && std::is_same_v<T, float>)  // as in check_unary_math
    check_each(std::tuple{fx::atan2(b, a), fx::atan2(a, b), fx::hypot(a, b), fx::fmod(b, a), b % a, a % b,
                          fx::fma(a, b, a)},
               {5, 9}, {1, 1, 1, 1, 1, 1, 1}, a(ta), b(tb));
}

}  // namespace fusedsl_tests
