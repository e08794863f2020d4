// Broadcasting by rank and rank-0 placeholders: the CPU executor against the
// oracle and against hand-computed values.
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("broadcasting: [3, 1] + [1, 4] and [4] + [3, 4] give [3, 4]") {
  constexpr fx::in<"a", float, 2> a;
  constexpr fx::in<"b", float, 2> b;
  constexpr fx::in<"c", float, 1> c;
  constexpr fx::in<"m", float, 2> m;
  const auto ta = random_tensor<float>({3, 1}, 901);
  const auto tb = random_tensor<float>({1, 4}, 902);
  const auto tc = random_tensor<float>({4}, 903);
  const auto tm = random_tensor<float>({3, 4}, 904);
  const auto outer = check_pointwise(a + b, {3, 4}, 1, a(ta), b(tb));
  const auto rows = check_pointwise(c + m, {3, 4}, 1, c(tc), m(tm));
  const auto three = check_pointwise(a * b - c, {3, 4}, 2, a(ta), b(tb), c(tc));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(outer(i, j) == ta(i, 0) + tb(0, j));
      CHECK(rows(i, j) == tc(j) + tm(i, j));
      CHECK(three(i, j) == doctest::Approx(ta(i, 0) * tb(0, j) - tc(j)).epsilon(1e-6));
    }
  // The value broadcasts to a larger output too: [3, 1] + [1, 4] written into [2, 3, 4].
  const auto lifted = check_pointwise<3>(a + b, {2, 3, 4}, 1, a(ta), b(tb));
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(lifted(k, i, j) == ta(i, 0) + tb(0, j));
  // And [4] into [3, 4]: every row is c.
  const auto repeated = check_pointwise<2>(c * 1.0f, {3, 4}, 1, c(tc));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(repeated(i, j) == tc(j));
}

TEST_CASE("rank-0 placeholders broadcast against any rank and can be outputs") {
  constexpr fx::in<"s", float, 0> s;
  constexpr fx::in<"x", float, 2> x;
  const auto ts = make_tensor<float>({}, {1.5});
  const auto tx = random_tensor<float>({3, 7}, 905);
  const auto scaled = check_pointwise(x * s + s, {3, 7}, 2, x(tx), s(ts));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j) CHECK(scaled(i, j) == doctest::Approx(tx(i, j) * 1.5f + 1.5f));
  // A rank-0 output: the sum of all elements, dropped to rank 0.
  const auto total =
      check_against_oracle(fx::sum(x, fx::axes<>, fx::drop_axes), {}, reduction_tolerance<float>(), x(tx));
  double expected = 0;
  for (std::int64_t i = 0; i < tx.numel(); ++i) expected += tx.data()[i];
  CHECK(total.data()[0] == doctest::Approx(expected).epsilon(1e-5));
  // Rank 0 with rank 0.
  const auto square = check_pointwise(s * s, {}, 1, s(ts));
  CHECK(square.data()[0] == 2.25f);
}
