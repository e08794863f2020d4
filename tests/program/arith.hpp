// Shared by the pointwise arithmetic and comparison tests: random inputs that
// exercise each dtype, and the checks themselves.
#pragma once
#include "common.hpp"

namespace fusedsl_tests {

/// Random values of T over a range that exercises T: the whole range of
/// integers (so that + and * wrap around), [-2, 2) for floating point.
template <class T>
fx::tensor<T> wide_random(const fx::shape& sizes, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, bool> || !std::is_integral_v<T>) return random_tensor<T>(sizes, seed, -2.0, 2.0);
  else if constexpr (std::is_same_v<T, std::int64_t>) return random_tensor<T>(sizes, seed, -4e18, 4e18);
  else
    return random_tensor<T>(sizes, seed, static_cast<double>(std::numeric_limits<T>::min()),
                            static_cast<double>(std::numeric_limits<T>::max()));
}

/// b equal to a at every third element, so that ==, <= and >= see ties.
template <class T>
void share_some(const fx::tensor<T>& a, fx::tensor<T>& b) {
  for (std::int64_t i = 0; i < b.numel(); i += 3) b.data()[i] = a.data()[i];
}

/// Arithmetic, maximum, minimum, neg, abs, relu and where of T operands
/// (one broadcast along the rows), executor against the oracle.
template <class T>
void check_arithmetic() {
  constexpr fx::in<"a", T, 2> a;
  constexpr fx::in<"b", T, 1> b;  // broadcast along the rows
  constexpr fx::in<"c", bool, 2> c;
  const std::uint64_t seed = 300 + static_cast<std::uint64_t>(fx::dtype_of<T>) * 10;
  const auto ta = wide_random<T>({3, 7}, seed);
  auto tb = wide_random<T>({7}, seed + 1);
  share_some(ta, tb);
  const auto tc = random_tensor<bool>({3, 1}, seed + 2);
  // Same dtype in and out (bool + bool is bool, as in PyTorch's promotion).
  static_assert(decltype(a + b)::value_dtype == fx::dtype_of<T>);
  check_each(std::tuple{a + b, a - b, a * b, fx::maximum(a, b), fx::minimum(b, a), -a, fx::abs(a), fx::relu(a),
                        fx::where(c, a, b)},
             {3, 7}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, a(ta), b(tb), c(tc));
}

/// Comparisons of T tensors (with ties), executor against the oracle; all six
/// if `All`, else ==, < and >= (the rest share their code path).
template <class T, bool All>
void check_comparisons() {
  constexpr fx::in<"a", T, 2> a;
  constexpr fx::in<"b", T, 2> b;
  const std::uint64_t seed = 400 + static_cast<std::uint64_t>(fx::dtype_of<T>) * 10;
  const auto ta = wide_random<T>({5, 3}, seed);
  auto tb = wide_random<T>({5, 3}, seed + 1);
  share_some(ta, tb);
  static_assert(decltype(a < b)::value_dtype == fx::dtype::boolean);
  const auto eq = check_pointwise(a == b, {5, 3}, 1, a(ta), b(tb));
  if constexpr (All) check_each(std::tuple{a != b, a<b, a <= b, a> b, a >= b}, {5, 3}, {1, 1, 1, 1, 1}, a(ta), b(tb));
  else check_each(std::tuple{a < b, a >= b}, {5, 3}, {1, 1}, a(ta), b(tb));
  // Hand check: == is true exactly where the values are equal (every third element at least).
  for (std::int64_t i = 0; i < 15; ++i) {
    CHECK(eq.data()[i] == (ta.data()[i] == tb.data()[i]));
    if (i % 3 == 0) CHECK(eq.data()[i]);
  }
}

}  // namespace fusedsl_tests
