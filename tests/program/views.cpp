// Programs over strided views: inputs bound to transposed, sliced (with a
// step) and expanded (stride 0) views; outputs bound to transposed and
// sliced views. Checked against the oracle and against hand-computed values.
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("inputs bound to a transposed, a sliced-with-step and an expanded view") {
  constexpr fx::in<"a", float, 2> a;
  constexpr fx::in<"b", float, 2> b;
  constexpr fx::in<"c", float, 2> c;
  const auto base_a = random_tensor<float>({7, 3}, 1001);
  const auto base_b = random_tensor<float>({5, 22}, 1002);
  const auto base_c = random_tensor<float>({7}, 1003);
  const auto va = base_a.transpose(0, 1);                       // [3, 7], strides [1, 3]
  const auto vb = base_b.slice(0, 1, 5, 2).slice(1, 1, 22, 3);  // [2, 7], strides [44, 3]
  const auto vc = base_c.view().expand({3, 7});                 // [3, 7], strides [0, 1]
  REQUIRE(va.sizes() == fx::shape{3, 7});
  REQUIRE(vb.sizes() == fx::shape{2, 7});
  REQUIRE(vc.strides() == fx::shape{0, 1});

  const auto from_transposed = check_pointwise(fx::exp(a) + 1.0f, {3, 7}, 2, a(va));
  const auto from_expanded = check_pointwise(a * c, {3, 7}, 1, a(va), c(vc));
  const auto from_slices = check_pointwise(b - 2.0f * b, {2, 7}, 2, b(vb));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j) {
      CHECK(from_transposed(i, j) == doctest::Approx(std::exp(base_a(j, i)) + 1.0f).epsilon(2e-6));
      CHECK(from_expanded(i, j) == base_a(j, i) * base_c(j));
    }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 7; ++j) CHECK(from_slices(i, j) == doctest::Approx(-base_b(1 + 2 * i, 1 + 3 * j)));

  // Reductions read through the views, too: a row sum of the transposed view is a column sum of its base.
  const auto row_sums =
      check_against_oracle(fx::sum(a, fx::axis<1>, fx::drop_axes), {3}, reduction_tolerance<float>(), a(va));
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int j = 0; j < 7; ++j) s += base_a(j, i);
    CHECK(row_sums.data()[i] == doctest::Approx(s).epsilon(1e-5));
  }
  check_against_oracle(fx::max(b, fx::axis<0>) + fx::argmin(c, fx::axis<1>), {3, 7}, reduction_tolerance<float>(),
                       b(vb), c(vc));
  // An expanded view along the reduced axis: every row is base_c, so the column sums are 3 * base_c.
  const auto column_sums =
      check_against_oracle(fx::sum(c, fx::axis<0>, fx::drop_axes), {7}, reduction_tolerance<float>(), c(vc));
  for (int j = 0; j < 7; ++j) CHECK(column_sums.data()[j] == doctest::Approx(3.0 * base_c(j)));
}

TEST_CASE("outputs bound to a transposed view and a sliced view") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program prog{y = x * 2.0f + 1.0f};
  const auto tx = random_tensor<float>({3, 7}, 1004);

  SUBCASE("transposed output") {
    auto base = fx::tensor<float>::full({7, 3}, -99.0f);
    auto expected_base = fx::tensor<float>::full({7, 3}, -99.0f);
    prog.run(fx::cpu, x(tx), y(base.transpose(0, 1)));
    fx::run_reference(prog, x(tx), y(expected_base.transpose(0, 1)));
    FUSEDSL_CHECK_CLOSE(base.view(), expected_base.view(), fx::testing::default_tolerance<float>(2));
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 7; ++j) CHECK(base(j, i) == tx(i, j) * 2.0f + 1.0f);
  }
  SUBCASE("sliced output with a step: only the selected elements change") {
    auto base = fx::tensor<float>::full({5, 15}, -99.0f);
    auto expected_base = fx::tensor<float>::full({5, 15}, -99.0f);
    // Rows 0, 2, 4 and columns 1, 3, ..., 13 of a [5, 15] tensor.
    auto window = base.slice(0, 0, 5, 2).slice(1, 1, 15, 2);
    REQUIRE(window.sizes() == fx::shape{3, 7});
    prog.run(fx::cpu, x(tx), y(window));
    fx::run_reference(prog, x(tx), y(expected_base.slice(0, 0, 5, 2).slice(1, 1, 15, 2)));
    FUSEDSL_CHECK_CLOSE(base.view(), expected_base.view(), fx::testing::default_tolerance<float>(2));
    for (int r = 0; r < 5; ++r)
      for (int k = 0; k < 15; ++k) {
        const bool selected = r % 2 == 0 && k % 2 == 1;
        CHECK(base(r, k) == (selected ? tx(r / 2, k / 2) * 2.0f + 1.0f : -99.0f));
      }
  }
}

TEST_CASE("reductions written straight into transposed and sliced outputs") {
  constexpr fx::in<"x", float, 3> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::out<"k", float, 3> k;
  constexpr fx::program drop{y = fx::sum(x, fx::axis<1>, fx::drop_axes)};  // [4, 5], written without a buffer
  constexpr fx::program keep{k = fx::max(x, fx::axis<-1>)};                // [4, 7, 1]
  const auto tx = random_tensor<float>({4, 7, 5}, 1005);

  auto base = fx::tensor<float>::full({5, 4}, -99.0f);
  auto expected = fx::tensor<float>::full({5, 4}, -99.0f);
  drop.run(fx::cpu, x(tx), y(base.transpose(0, 1)));
  fx::run_reference(drop, x(tx), y(expected.transpose(0, 1)));
  FUSEDSL_CHECK_CLOSE(base.view(), expected.view(), reduction_tolerance<float>());
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) {
      double s = 0;
      for (int m = 0; m < 7; ++m) s += tx(i, m, j);
      CHECK(base(j, i) == doctest::Approx(s).epsilon(1e-5));
    }

  auto wide = fx::tensor<float>::full({4, 14, 3}, -99.0f);
  auto wide_expected = fx::tensor<float>::full({4, 14, 3}, -99.0f);
  keep.run(fx::cpu, x(tx), k(wide.slice(1, 0, 14, 2).slice(2, 1, 2)));
  fx::run_reference(keep, x(tx), k(wide_expected.slice(1, 0, 14, 2).slice(2, 1, 2)));
  FUSEDSL_CHECK_CLOSE(wide.view(), wide_expected.view(), fx::testing::default_tolerance<float>());
  for (int i = 0; i < 4; ++i)
    for (int r = 0; r < 14; ++r)
      for (int c = 0; c < 3; ++c) {
        if (r % 2 == 0 && c == 1) {
          float m = tx(i, r / 2, 0);
          for (int e = 1; e < 5; ++e) m = std::max(m, tx(i, r / 2, e));
          CHECK(wide(i, r, c) == m);
        } else {
          CHECK(wide(i, r, c) == -99.0f);
        }
      }
}

TEST_CASE("a large program over views takes the parallel path and still matches the oracle") {
  constexpr fx::in<"x", float, 2> x;
  const auto base = random_tensor<float>({400, 300}, 1006);
  const auto vx = base.transpose(0, 1);  // [300, 400]: 120000 elements, above the OpenMP threshold
  check_pointwise(fx::tanh(x) * x, {300, 400}, 2, x(vx));
  check_against_oracle(fx::exp(x - fx::max(x, fx::axis<1>)) /
                           fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>),
                       {300, 400}, tolerance{1e-5, 1e-6}, x(vx));
  check_against_oracle(fx::sum(x, fx::axis<0>), {1, 400}, reduction_tolerance<float>(), x(vx));
}
