// Edge shapes through programs: size-1 axes and an 8-d program (the largest
// rank).
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("size-1 axes: reductions over them, broadcasting from them, and all-ones shapes") {
  constexpr fx::in<"x", float, 3> x;
  const auto tx = random_tensor<float>({1, 7, 1}, 1201);
  const auto over_one = check_against_oracle(fx::sum(x, fx::axis<0>), {1, 7, 1}, reduction_tolerance<float>(), x(tx));
  for (int j = 0; j < 7; ++j) CHECK(over_one(0, j, 0) == tx(0, j, 0));
  const auto argmax_one =
      check_against_oracle(fx::argmax(x, fx::axes<0, 2>, fx::drop_axes), {7}, tolerance{0, 0}, x(tx));
  for (int j = 0; j < 7; ++j) CHECK(argmax_one(j) == 0);
  check_against_oracle(fx::var(x, fx::axis<-1>, fx::correction{0}), {1, 7, 1}, reduction_tolerance<float>(), x(tx));
  check_against_oracle(fx::max(x, fx::axis<1>) - x, {1, 7, 1}, reduction_tolerance<float>(), x(tx));
  // Broadcast [1, 7, 1] against [4, 1, 3] -> [4, 7, 3].
  constexpr fx::in<"w", float, 3> w;
  const auto tw = random_tensor<float>({4, 1, 3}, 1202);
  const auto outer = check_pointwise(x * w, {4, 7, 3}, 1, x(tx), w(tw));
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 7; ++b)
      for (int c = 0; c < 3; ++c) CHECK(outer(a, b, c) == tx(0, b, 0) * tw(a, 0, c));
  // A single element.
  const auto single = random_tensor<float>({1, 1, 1}, 1203);
  check_against_oracle(fx::logsumexp(x) + fx::exp(x), {1, 1, 1}, reduction_tolerance<float>(), x(single));
  constexpr fx::in<"v", float, 1> v;
  check_against_oracle(fx::sum(v, fx::axis<0>, fx::drop_axes), {}, reduction_tolerance<float>(),
                       v(random_tensor<float>({1}, 1204)));
}

TEST_CASE("an 8-d program: broadcasting, reductions over several axes and a transposed input") {
  constexpr fx::in<"x", float, 8> x;
  constexpr fx::in<"b", float, 3> b;
  const fx::shape sizes{2, 1, 3, 1, 2, 3, 1, 2};
  const auto tx = random_tensor<float>(sizes, 1301);
  const auto tb = random_tensor<float>({3, 1, 2}, 1302);
  check_pointwise(fx::exp(x) * b + x, sizes, 3, x(tx), b(tb));
  check_against_oracle(fx::sum(x * b, fx::axes<0, 2, 5>), {1, 1, 1, 1, 2, 1, 1, 2}, reduction_tolerance<float>(), x(tx),
                       b(tb));
  check_against_oracle(fx::max(x, fx::axes<-1, 4, 2>, fx::drop_axes), {2, 1, 1, 3, 1}, reduction_tolerance<float>(),
                       x(tx));
  check_against_oracle(fx::exp(x - fx::max(x, fx::axis<-1>)) /
                           fx::sum(fx::exp(x - fx::max(x, fx::axis<-1>)), fx::axis<-1>),
                       sizes, tolerance{1e-5, 1e-6}, x(tx));
  // A transposed 8-d view (axes 0 and 4 both have size 2: same sizes, other strides).
  const auto base = random_tensor<float>(sizes, 1303);
  const auto swapped = base.transpose(0, 4);
  REQUIRE(swapped.sizes() == sizes);
  const auto moved = check_pointwise(x + 1.0f, sizes, 1, x(swapped));
  CHECK(moved(1, 0, 2, 0, 0, 1, 0, 1) == base(0, 0, 2, 0, 1, 1, 0, 1) + 1.0f);
  CHECK(moved(0, 0, 1, 0, 1, 2, 0, 0) == base(1, 0, 1, 0, 0, 2, 0, 0) + 1.0f);
  const auto total =
      check_against_oracle(fx::sum(x, fx::axes<>, fx::drop_axes), {}, reduction_tolerance<float>(), x(swapped));
  double expected = 0;
  for (std::int64_t k = 0; k < base.numel(); ++k) expected += base.data()[k];
  CHECK(total.data()[0] == doctest::Approx(expected).epsilon(1e-5));
}
