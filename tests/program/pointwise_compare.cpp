// Comparisons on every dtype: the CPU executor against the oracle, and ==
// against the values themselves.
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("comparisons match the oracle on every dtype and give bool", T, double, float, fx::half,
                   fx::bfloat16, std::int64_t, std::int32_t, std::int16_t, std::int8_t, std::uint8_t, bool) {
  constexpr fx::in<"a", T, 2> a;
  constexpr fx::in<"b", T, 2> b;
  const std::uint64_t seed = 400 + static_cast<std::uint64_t>(fx::dtype_of<T>) * 10;
  const auto ta = wide_random<T>({5, 3}, seed);
  auto tb = wide_random<T>({5, 3}, seed + 1);
  share_some(ta, tb);
  static_assert(decltype(a < b)::value_dtype == fx::dtype::boolean);
  const auto eq = check_pointwise(a == b, {5, 3}, 1, a(ta), b(tb));
  check_each(std::tuple{a != b, a < b, a <= b, a > b, a >= b}, {5, 3}, {1, 1, 1, 1, 1}, a(ta), b(tb));
  // Hand check: == is true exactly where the values are equal (every third element at least).
  for (std::int64_t i = 0; i < 15; ++i) {
    CHECK(eq.data()[i] == (ta.data()[i] == tb.data()[i]));
    if (i % 3 == 0) CHECK(eq.data()[i]);
  }
}

