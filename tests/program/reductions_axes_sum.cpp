// Axis handling of reductions: sum over every way of naming axes (none, one,
// several, negative, unsorted), kept or dropped, written straight into the
// output or through a buffer, against the oracle and hand-computed values.
#include "reductions.hpp"

using namespace fusedsl_tests;

namespace {
constexpr fx::in<"x", float, 3> x;

/// Checks `value` (a sum of x over some axes) against the oracle, both as the
/// whole statement (written straight into the output) and through `realize`
/// (a buffer read by a pointwise loop).
template <class E>
void check_sum_variant(const E& value, const fx::shape& out_sizes, const fx::tensor<float>& tx) {
  check_against_oracle(value, out_sizes, reduction_tolerance<float>(), x(tx));
  check_against_oracle(fx::realize(value), out_sizes, reduction_tolerance<float>(), x(tx));
}
}  // namespace

TEST_CASE("sum over every kind of axis list, kept and dropped, direct and buffered") {
  const auto tx = random_tensor<float>({4, 7, 5}, 1401);
  check_sum_variant(fx::sum(x), {1, 1, 1}, tx);
  check_sum_variant(fx::sum(x, fx::axes<>, fx::drop_axes), {}, tx);
  check_sum_variant(fx::sum(x, fx::axis<0>), {1, 7, 5}, tx);
  check_sum_variant(fx::sum(x, fx::axis<0>, fx::drop_axes), {7, 5}, tx);
  check_sum_variant(fx::sum(x, fx::axis<1>), {4, 1, 5}, tx);
  check_sum_variant(fx::sum(x, fx::axis<1>, fx::drop_axes), {4, 5}, tx);
  check_sum_variant(fx::sum(x, fx::axis<-1>), {4, 7, 1}, tx);
  check_sum_variant(fx::sum(x, fx::axis<-1>, fx::drop_axes), {4, 7}, tx);
  check_sum_variant(fx::sum(x, fx::axes<0, 2>), {1, 7, 1}, tx);
  check_sum_variant(fx::sum(x, fx::axes<0, 2>, fx::drop_axes), {7}, tx);
  check_sum_variant(fx::sum(x, fx::axes<2, 0>, fx::drop_axes), {7}, tx);  // order does not matter
  check_sum_variant(fx::sum(x, fx::axes<1, -1>), {4, 1, 1}, tx);
  check_sum_variant(fx::sum(x, fx::axes<-3, -2>, fx::drop_axes), {5}, tx);
  check_sum_variant(fx::sum(x, fx::axes<0, 1, 2>, fx::drop_axes), {}, tx);

  // Hand values for a few of them.
  const auto by_middle =
      check_against_oracle(fx::sum(x, fx::axis<1>, fx::drop_axes), {4, 5}, reduction_tolerance<float>(), x(tx));
  const auto by_outer =
      check_against_oracle(fx::sum(x, fx::axes<0, 2>, fx::drop_axes), {7}, reduction_tolerance<float>(), x(tx));
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 5; ++k) {
      double s = 0;
      for (int j = 0; j < 7; ++j) s += tx(i, j, k);
      CHECK(by_middle(i, k) == doctest::Approx(s).epsilon(1e-5));
    }
  for (int j = 0; j < 7; ++j) {
    double s = 0;
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 5; ++k) s += tx(i, j, k);
    CHECK(by_outer(j) == doctest::Approx(s).epsilon(1e-5));
  }
}
