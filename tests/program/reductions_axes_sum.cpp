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

TEST_CASE("reductions over several contiguous axes merge them; strided views keep theirs") {
  // A sum over both axes of a contiguous [30000, 3] and a value computed from it: few rows
  // (one), so the group runs node by node, the sum over one merged axis of 90000 on every
  // thread. A transposed view and a slice do not merge (their strides do not join).
  constexpr fx::in<"v", float, 2> v;
  const auto tv = random_tensor<float>({30000, 3}, 1411);
  const auto wide = random_tensor<float>({30000, 4}, 1412);
  const auto tall = random_tensor<float>({3, 30000}, 1413);
  for (const auto& view : {tv.view(), wide.view().slice(1, 0, 3), tall.view().transpose(0, 1)}) {
    INFO("strides " << view.stride(0) << ", " << view.stride(1));
    check_against_oracle(0.5f * fx::sum(v * v, fx::axes<0, 1>, fx::drop_axes), {}, reduction_tolerance<float>(),
                         v(view));
    check_against_oracle(fx::var(v, fx::axes<0, 1>, fx::drop_axes) + 1.0f, {}, reduction_tolerance<float>(), v(view));
    check_against_oracle(fx::argmax(v, fx::axes<0, 1>, fx::drop_axes), {}, tolerance{0, 0}, v(view));
  }
}
