// Axis handling of reductions: kept axes broadcasting back, outputs of
// another rank, argmax/var/mean over several axes, long f32 rows, and f32
// rows, columns and all axes accumulated in double (fx::accumulate).
#include "reductions.hpp"

using namespace fusedsl_tests;

namespace {
constexpr fx::in<"x", float, 3> x;
}  // namespace

TEST_CASE("kept axes broadcast back: into a larger output, into an output of lower rank, and against x") {
  const auto tx = random_tensor<float>({4, 7, 5}, 1402);
  // [4, 1, 5] broadcast into [4, 7, 5]: every j holds the same sum. (The CPU executor rejects a bare
  // reduction assigned to a larger target, "a reduction can only be assigned to a target of its own shape",
  // so the reduction is used inside a pointwise value here.)
  const auto spread =
      check_against_oracle(fx::sum(x, fx::axis<1>) * 1.0f, {4, 7, 5}, reduction_tolerance<float>(), x(tx));
  CHECK(spread(2, 0, 3) == spread(2, 6, 3));
  // [1, 7, 5] written into a rank-2 output [7, 5] (the leading 1 is dropped).
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program lower{y = fx::mean(x, fx::axis<0>)};
  fx::tensor<float> ty({7, 5}), ry({7, 5});
  lower.run(fx::cpu, x(tx), y(ty));
  fx::run_reference(lower, x(tx), y(ry));
  FUSEDSL_CHECK_CLOSE(ty.view(), ry.view(), reduction_tolerance<float>());
  CHECK(ty(3, 2) == doctest::Approx((tx(0, 3, 2) + tx(1, 3, 2) + tx(2, 3, 2) + tx(3, 3, 2)) / 4.0).epsilon(1e-5));
  // Normalizing with kept axes: x / sum(x, axes<0, 2>) and x - mean over the last axis.
  check_against_oracle(x / fx::sum(fx::abs(x), fx::axes<0, 2>), {4, 7, 5}, reduction_tolerance<float>(), x(tx));
  check_against_oracle(x - fx::mean(x, fx::axis<-1>) + fx::std(x, fx::axis<-1>), {4, 7, 5},
                       reduction_tolerance<float>(), x(tx));
  // Dropped axes broadcast by numpy rules: sum over axis 0, dropped ([7, 5]), against x [4, 7, 5].
  check_against_oracle(x * fx::sum(x, fx::axis<0>, fx::drop_axes), {4, 7, 5}, reduction_tolerance<float>(), x(tx));
}

TEST_CASE("argmax, var and mean over several axes") {
  const auto tx = random_tensor<float>({4, 7, 5}, 1403);
  // argmax over several axes: the flattened position within the reduced axes, in row-major order.
  const auto positions =
      check_against_oracle(fx::argmax(x, fx::axes<0, 2>, fx::drop_axes), {7}, tolerance{0, 0}, x(tx));
  for (int j = 0; j < 7; ++j) {
    int best = 0;
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 5; ++k)
        if (tx(i, j, k) > tx(best / 5, j, best % 5)) best = i * 5 + k;
    CHECK(positions(j) == best);
  }
  check_against_oracle(fx::argmin(x, fx::axes<1, 2>), {4, 1, 1}, tolerance{0, 0}, x(tx));
  check_against_oracle(fx::argmax(x), {1, 1, 1}, tolerance{0, 0}, x(tx));
  check_against_oracle(fx::var(x, fx::axes<0, 1>, fx::drop_axes), {5}, reduction_tolerance<float>(), x(tx));
  check_against_oracle(fx::std(x, fx::axes<0, 2>, fx::correction{0}), {1, 7, 1}, reduction_tolerance<float>(), x(tx));
  check_against_oracle(fx::mean(x, fx::axes<-1, 0>, fx::drop_axes), {7}, reduction_tolerance<float>(), x(tx));
  check_against_oracle(fx::logsumexp(x, fx::axes<0, 1>), {1, 1, 5}, reduction_tolerance<float>(), x(tx));
}

TEST_CASE("long rows: f32 sums, variances and logsumexp of 1023 values stay within the documented tolerance") {
  constexpr fx::in<"r", float, 2> r;
  const auto tr = random_tensor<float>({3, 1023}, 1404, -2.0, 2.0);
  const auto sums =
      check_against_oracle(fx::sum(r, fx::axis<1>, fx::drop_axes), {3}, reduction_tolerance<float>(), r(tr));
  check_against_oracle(fx::var(r, fx::axis<1>, fx::drop_axes), {3}, reduction_tolerance<float>(), r(tr));
  check_against_oracle(fx::logsumexp(r, fx::axis<-1>), {3, 1}, reduction_tolerance<float>(), r(tr));
  check_against_oracle(fx::mean(r, fx::axis<0>), {1, 1023}, reduction_tolerance<float>(), r(tr));
  for (int i = 0; i < 3; ++i) {
    double s = 0;
    for (int j = 0; j < 1023; ++j) s += tr(i, j);
    CHECK(sums(i) == doctest::Approx(s).epsilon(1e-5).scale(10));
  }
}

TEST_CASE("fx::accumulate<double>: f32 sums, means and variances of rows, columns and all axes rounded once") {
  constexpr fx::in<"r", float, 2> r;
  constexpr std::int64_t rows = 4, cols = 8192;
  // Sums exact in double that f32 accumulation gets many ulps wrong (tolerance 0 against the
  // oracle, whose double sums are exact too).
  const auto wide = fx::testing::cancelling_tensor(rows, cols, 1405);
  const auto tall = fx::testing::cancelling_tensor(cols, rows, 1406);
  const tolerance exact{0, 0};
  const auto row_sums =
      check_against_oracle(fx::sum(r, fx::axis<1>, fx::drop_axes, fx::accumulate<double>), {rows}, exact, r(wide));
  const auto column_sums =
      check_against_oracle(fx::sum(r, fx::axis<0>, fx::drop_axes, fx::accumulate<double>), {rows}, exact, r(tall));
  const auto total =
      check_against_oracle(fx::sum(r, fx::axes<>, fx::drop_axes, fx::accumulate<double>), {}, exact, r(wide));
  const auto means =
      check_against_oracle(fx::mean(r, fx::axis<-1>, fx::drop_axes, fx::accumulate<double>), {rows}, exact, r(wide));
  double all = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    double row = 0, column = 0;
    for (std::int64_t j = 0; j < cols; ++j) row += wide(i, j), column += tall(j, i);
    all += row;
    CHECK(row_sums(i) == static_cast<float>(row));
    CHECK(column_sums(i) == static_cast<float>(column));
    CHECK(means(i) == static_cast<float>(row / cols));
  }
  CHECK(total.data()[0] == static_cast<float>(all));

  // The f32 sum is another node, one kernel with the double one: their difference is its rounding error.
  constexpr fx::out<"d", float, 1> d;
  constexpr fx::program both{d = fx::sum(r, fx::axis<1>, fx::drop_axes, fx::accumulate<double>) -
                                 fx::sum(r, fx::axis<1>, fx::drop_axes)};
  static_assert(fx::kernel_count(both) == 1);
  fx::tensor<float> errors({rows});
  both.run(fx::cpu, r(wide), d(errors));
  for (std::int64_t i = 0; i < rows; ++i) {
    INFO("row ", i, ": sum ", row_sums(i), ", f32 error ", errors(i));
    CHECK(errors(i) != 0);
  }

  // Variance of values 4096 + a multiple of 2^-11 (a spread small against the mean, where f32
  // loses most): within an ulp of the exact value.
  auto offset = random_tensor<float>({rows, cols}, 1407, 0.0, 1.0);
  for (std::int64_t k = 0; k < offset.numel(); ++k)
    offset.data()[k] = 4096.0f + std::floor(offset.data()[k] * 2048.0f) / 2048.0f;
  const auto variances =
      check_against_oracle(fx::var(r, fx::axis<1>, fx::drop_axes, fx::correction{0}, fx::accumulate<double>), {rows},
                           tolerance{0x1p-24, 0}, r(offset));
  for (std::int64_t i = 0; i < rows; ++i) {
    double mean = 0, squares = 0;
    for (std::int64_t j = 0; j < cols; ++j) mean += offset(i, j) / double{cols};
    for (std::int64_t j = 0; j < cols; ++j) squares += (offset(i, j) - mean) * (offset(i, j) - mean);
    CHECK(variances(i) == doctest::Approx(squares / cols).epsilon(0x1p-23).scale(0));
  }
  // Layer normalization with statistics in double is one kernel, as without.
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program normalize{
      y = (r - fx::mean(r, fx::axis<1>, fx::accumulate<double>)) *
          fx::rsqrt(fx::var(r, fx::axis<1>, fx::correction{0}, fx::accumulate<double>) + 1e-5f)};
  static_assert(fx::kernel_count(normalize) == 1);
}
