// Tensors with a 0 extent through programs: pointwise values write nothing,
// reductions over an empty axis give their identity (sum 0, mean NaN, ...).
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("empty tensors: pointwise programs write nothing and reductions over an empty axis give their identity") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::in<"i", std::int32_t, 2> i;
  const fx::tensor<float> empty({3, 0});
  const fx::tensor<std::int32_t> iempty({3, 0});
  check_pointwise(fx::exp(x) * 2.0f, {3, 0}, 2, x(empty));
  check_pointwise(x + x, {0, 3}, 1, x(fx::tensor<float>({0, 3})));
  // [3, 0] broadcasts with [1, 1] to [3, 0].
  constexpr fx::in<"one", float, 2> one;
  check_pointwise(x + one, {3, 0}, 1, x(empty), one(fx::tensor<float>::full({1, 1}, 2.0f)));

  const auto sums = check_against_oracle(fx::sum(x, fx::axis<1>), {3, 1}, reduction_tolerance<float>(), x(empty));
  const auto isums = check_against_oracle(fx::sum(i, fx::axis<-1>, fx::drop_axes), {3}, tolerance{0, 0}, i(iempty));
  const auto means = check_against_oracle(fx::mean(x, fx::axis<1>), {3, 1}, reduction_tolerance<float>(), x(empty));
  const auto prods = check_against_oracle(fx::prod(x, fx::axis<1>), {3, 1}, reduction_tolerance<float>(), x(empty));
  const auto lse = check_against_oracle(fx::logsumexp(x, fx::axis<1>), {3, 1}, reduction_tolerance<float>(), x(empty));
  const auto vars = check_against_oracle(fx::var(x, fx::axis<1>), {3, 1}, reduction_tolerance<float>(), x(empty));
  const auto anys = check_against_oracle(fx::any(x, fx::axis<1>), {3, 1}, tolerance{0, 0}, x(empty));
  const auto alls = check_against_oracle(fx::all(x, fx::axis<1>), {3, 1}, tolerance{0, 0}, x(empty));
  const auto total = check_against_oracle(fx::sum(x), {1, 1}, reduction_tolerance<float>(), x(empty));
  for (int r = 0; r < 3; ++r) {
    CHECK(sums(r, 0) == 0.0f);
    CHECK(isums(r) == 0);
    CHECK(std::isnan(means(r, 0)));
    CHECK(prods(r, 0) == 1.0f);
    CHECK(lse(r, 0) == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(vars(r, 0)));
    CHECK_FALSE(anys(r, 0));
    CHECK(alls(r, 0));
  }
  CHECK(total(0, 0) == 0.0f);
  // A reduction over the non-empty axis of an empty tensor: an empty result.
  check_against_oracle(fx::sum(x, fx::axis<0>, fx::drop_axes), {0}, reduction_tolerance<float>(), x(empty));
  // A pointwise use of an empty-axis reduction: softmax of no columns is empty, the row sums are 0.
  check_against_oracle(fx::exp(x) / fx::sum(fx::exp(x), fx::axis<1>), {3, 0}, reduction_tolerance<float>(), x(empty));
  // fx::eval with empty tensors.
  fx::tensor<float> out({3, 0});
  fx::eval(out, fx::exp(empty) + 1.0f);
  CHECK(out.numel() == 0);
}
