// Scans (fx::cumsum, cumprod, cummax, cummin, logcumsumexp): dtype rules, the CPU kernels
// against the oracle along the last axis (fused with pointwise producers, consumers and a
// row reduction of the same axis: one kernel) and along other axes, the combining order,
// fx::accumulate, scans of scans, and runs with several threads.
#include "common.hpp"

using namespace fusedsl_tests;

namespace {
constexpr fx::in<"x", float, 2> x;
constexpr fx::in<"i", std::int32_t, 2> xi;
constexpr fx::in<"b", bool, 2> xb;
constexpr fx::out<"y", float, 2> y;
/// Integers, bool, extremes and bit-for-bit reruns compare exactly.
constexpr tolerance exact{0, 0};

// torch's dtype rules: integer and bool cumsum and cumprod give i64, floats keep theirs;
// cummax and cummin keep the dtype; logcumsumexp keeps a floating dtype.
static_assert(decltype(fx::cumsum(xi, fx::axis<1>))::value_dtype == fx::dtype::i64);
static_assert(decltype(fx::cumprod(xb, fx::axis<0>))::value_dtype == fx::dtype::i64);
static_assert(decltype(fx::cummax(xi, fx::axis<1>))::value_dtype == fx::dtype::i32);
static_assert(decltype(fx::cummin(xb, fx::axis<1>))::value_dtype == fx::dtype::boolean);
static_assert(decltype(fx::cumsum(fx::cast<fx::bfloat16>(x), fx::axis<1>))::value_dtype == fx::dtype::bf16);
static_assert(decltype(fx::logcumsumexp(x, fx::axis<-1>))::value_dtype == fx::dtype::f32);
// bf16 data combines in float (its compute type), as its sums do; accumulate<float> is the same node.
static_assert(decltype(fx::cumsum(fx::cast<fx::bfloat16>(x), fx::axis<1>))::input_dtype == fx::dtype::bf16);
static_assert(std::is_same_v<decltype(fx::cumsum(fx::cast<fx::bfloat16>(x), fx::axis<1>, fx::accumulate<float>)),
                             decltype(fx::cumsum(fx::cast<fx::bfloat16>(x), fx::axis<1>))>);
static_assert(decltype(fx::cumsum(x, fx::axis<1>, fx::accumulate<double>))::input_dtype == fx::dtype::f64);
static_assert(decltype(fx::cumsum(x, fx::axis<1>, fx::accumulate<double>))::value_dtype == fx::dtype::f32);

/// Every scan of `v` along `Axis`, each with a pointwise producer, in one value.
template <int Axis, class V>
constexpr auto all_scans(const V& v) {
  if constexpr (fx::is_floating_point(V::value_dtype))
    return fx::cumsum(v * 0.5f, fx::axis<Axis>) + fx::cummax(v, fx::axis<Axis>) -
           fx::cummin(fx::abs(v), fx::axis<Axis>) + fx::cumprod(1.0f + v * 0.0625f, fx::axis<Axis>) +
           fx::logcumsumexp(v - 1.0f, fx::axis<Axis>);
  else
    return fx::cumsum(v * 3, fx::axis<Axis>) + fx::cummax(v, fx::axis<Axis>) - fx::cummin(v, fx::axis<Axis>) * 7 +
           fx::cumprod(v % 5, fx::axis<Axis>);
}

/// The scans of placeholder `X` (bound to `data`, [6, 37]) along the last axis, less a row
/// sum of the same axis (one kernel, as Inductor makes it), and along axis 0, against the oracle.
template <class X, class T>
void check_scans(const fx::tensor<T>& data, tolerance tol) {
  constexpr auto last = all_scans<-1>(X{}) - fx::sum(X{}, fx::axis<-1>);
  constexpr fx::out<"r", fx::element_t<decltype(last)::value_dtype>, 2> r;
  static_assert(fx::kernel_count(fx::program{r = last}) == 1);
  check_against_oracle(last, data.sizes(), tol, X{}(data));
  check_against_oracle(all_scans<0>(X{}) - 1, data.sizes(), tol, X{}(data));
}
}  // namespace

TEST_CASE("scans of f32, f64 and bf16 along the last axis less a row sum (one kernel) and along axis 0") {
  check_scans<fx::in<"x", float, 2>>(random_tensor<float>({6, 37}, 2401), reduction_tolerance<float>());
  check_scans<fx::in<"d", double, 2>>(random_tensor<double>({6, 37}, 2402), reduction_tolerance<double>());
  check_scans<fx::in<"h", fx::bfloat16, 2>>(random_tensor<fx::bfloat16>({6, 37}, 2403),
                                            reduction_tolerance<fx::bfloat16>());
}

TEST_CASE("scans of f16 along the last axis and along axis 0") {
  check_scans<fx::in<"f", fx::half, 2>>(random_tensor<fx::half>({6, 37}, 2405), reduction_tolerance<fx::half>());
}

TEST_CASE("scans of i32 (cumsum and cumprod in i64, wrapping) and bool are exact") {
  check_scans<fx::in<"i", std::int32_t, 2>>(random_tensor<std::int32_t>({6, 37}, 2404, -9, 9), exact);
  fx::tensor<bool> tb({3, 4});
  for (int k = 0; k < 12; ++k) tb.data()[k] = k % 3 != 1;
  const auto counts =
      check_against_oracle(fx::cumsum(xb, fx::axis<1>) + fx::cummax(!xb, fx::axis<0>), {3, 4}, exact, xb(tb));
  CHECK(counts(2, 3) == 3 + 1);  // row 2: true, false, true, true; column 3 saw a false at row 0
}

TEST_CASE("scans along a middle axis of a rank-3 operand and of long rows, against the oracle") {
  constexpr fx::in<"t", float, 3> t;
  const auto tt = random_tensor<float>({4, 7, 5}, 2405);
  check_against_oracle(fx::cumsum(t, fx::axis<1>) * fx::cummax(t, fx::axis<-2>), {4, 7, 5},
                       reduction_tolerance<float>(), t(tt));
  // Rows longer than a chunk and a tile, in tiles of rows over threads.
  const auto wide = random_tensor<float>({9, 3001}, 2406);
  check_against_oracle(fx::logcumsumexp(x, fx::axis<1>) - fx::logsumexp(x, fx::axis<1>), {9, 3001},
                       reduction_tolerance<float>(), x(wide));
}

TEST_CASE("a scan's operand reads a row reduction, a reduction and a scan read a scan: one kernel") {
  const auto data = random_tensor<float>({33, 21}, 2407);
  // A cumulative softmax: the scan reads the max of its group, the division the group's sum.
  constexpr auto e = fx::exp(x - fx::max(x, fx::axis<1>));
  constexpr auto cumulative = fx::cumsum(e, fx::axis<1>) / fx::sum(e, fx::axis<1>);
  static_assert(fx::kernel_count(fx::program{y = cumulative}) == 1);
  const auto c = check_against_oracle(cumulative, {33, 21}, reduction_tolerance<float>(), x(data));
  CHECK(c(5, 20) == doctest::Approx(1.0f).epsilon(1e-6));
  constexpr auto nested =
      fx::cumsum(fx::cumsum(x, fx::axis<1>), fx::axis<1>) - fx::sum(fx::cummin(x, fx::axis<1>), fx::axis<1>);
  static_assert(fx::kernel_count(fx::program{y = nested}) == 1);
  check_against_oracle(nested, {33, 21}, reduction_tolerance<float>(), x(data));
}

TEST_CASE("order and dtype: f32 data combines in float from the start of the row, one element after another") {
  // 2^24 then ones: in float each 1 is lost against 2^24 (round to even), in the order the
  // docs state; a tree or a double accumulator would keep some of them.
  constexpr std::int64_t n = 300;
  fx::tensor<float> big({2, n});
  for (std::int64_t j = 0; j < n; ++j) big(0, j) = big(1, j) = j == 0 ? 16777216.0f : 1.0f;
  fx::tensor<float> result({2, n});
  constexpr fx::program plain{y = fx::cumsum(x, fx::axis<1>)};
  plain.run(fx::cpu, x(big), y(result));
  for (std::int64_t j = 0; j < n; ++j) CHECK(result(1, j) == 16777216.0f);
  // Accumulated in double, rounded once per element: the oracle's exact values.
  constexpr fx::program wide{y = fx::cumsum(x, fx::axis<1>, fx::accumulate<double>)};
  fx::tensor<float> expected({2, n});
  wide.run(fx::cpu, x(big), y(result));
  fx::run_reference(wide, x(big), y(expected));
  FUSEDSL_CHECK_CLOSE(result.view(), expected.view(), exact);
  CHECK(result(0, n - 1) == 16777216.0f + 300.0f - 1.0f);
}

TEST_CASE("scans print in the DSL's spelling, with their options") {
  CHECK(fx::to_string(fx::cumsum(x * 2, fx::axis<1>)) == "cumsum(x * 2, axis<1>)");
  CHECK(fx::to_string(fx::logcumsumexp(x, fx::axis<-1>, fx::accumulate<double>)) ==
        "logcumsumexp(x, axis<-1>, accumulate f64)");
}

TEST_CASE("a running mean with fx::index: the same bits with any thread count, fused or not") {
  constexpr fx::program running{y = x - fx::cumsum(x, fx::axis<1>) / (fx::index<1> + 1)};
  static_assert(fx::kernel_count(running) == 1);
  const auto data = random_tensor<float>({301, 517}, 2408);
  fx::tensor<float> expected({301, 517});
  fx::run_reference(running, x(data), y(expected));
  fx::tensor<float> first({301, 517});
  running.run(fx::cpu.threads(1), x(data), y(first));
  FUSEDSL_CHECK_CLOSE(first.view(), expected.view(), reduction_tolerance<float>());
  for (const int threads : {2, 3}) {
    fx::tensor<float> again({301, 517});
    running.run(fx::cpu.threads(threads), x(data), y(again));
    FUSEDSL_CHECK_CLOSE(again.view(), first.view(), exact);
  }
  fx::tensor<float> unfused({301, 517});
  running.run(fx::cpu_unfused, x(data), y(unfused));
  FUSEDSL_CHECK_CLOSE(unfused.view(), first.view(), exact);
}

TEST_CASE("fx::eval of a scan over tensors of a rank known at run time") {
  const auto data = random_tensor<float>({5, 8}, 2409);
  fx::tensor<float> result({5, 8}), expected({5, 8});
  fx::eval(result, fx::cummax(data, fx::axis<-1>) * 2);
  constexpr fx::program p{y = fx::cummax(x, fx::axis<-1>) * 2};
  fx::run_reference(p, x(data), y(expected));
  FUSEDSL_CHECK_CLOSE(result.view(), expected.view(), exact);
  CHECK_THROWS_WITH(fx::eval(result, fx::cumsum(data, fx::axis<2>)),
                    doctest::Contains("cumsum over axis 2 of a rank-2 operand"));
}
