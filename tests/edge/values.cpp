// Edge values through the fused CPU executor, against the oracle and hand values: NaN and
// Inf through maximum/minimum, max/min/argmax/logsumexp reductions (long rows, so the lane
// and chunk paths run, and fused with pointwise nodes), integer wrap-around, and division
// with integer operands by zero (true division, as PyTorch: ±inf and NaN, never a trap);
// regressions shrunk from the kernel fuzzer.
#include <cmath>   // std::isnan, std::isinf
#include <limits>  // std::numeric_limits

#include "program/common.hpp"

using namespace fusedsl_tests;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A rows x cols tensor of small values with `v` at (r, c) for each (r, c, v) given.
template <class T>
fx::tensor<T> with_specials(std::int64_t rows, std::int64_t cols,
                            std::initializer_list<std::tuple<int, int, double>> at, std::uint64_t seed) {
  auto t = random_tensor<T>({rows, cols}, seed, -2.0, 2.0);
  for (const auto& [r, c, v] : at) t.data()[r * cols + c] = static_cast<T>(v);
  return t;
}
}  // namespace

TEST_CASE_TEMPLATE("edge: NaN propagates through maximum, minimum, max and min, in long fused rows", T, float, double,
                   fx::bfloat16) {
  constexpr fx::in<"x", T, 2> x;
  // Row 0: NaN deep inside (past the first lanes and chunks); row 1: NaN first; row 2: +inf and -inf; row 3: plain.
  const auto tx = with_specials<T>(4, 1000, {{0, 517, kNaN}, {1, 0, kNaN}, {2, 3, kInf}, {2, 999, -kInf}}, 3001);
  const auto mx = check_against_oracle(fx::max(x, fx::axis<1>, fx::drop_axes), {4}, tolerance{0, 0}, x(tx));
  const auto mn = check_against_oracle(fx::min(x * 2.0f, fx::axis<1>, fx::drop_axes), {4}, tolerance{0, 0}, x(tx));
  CHECK(std::isnan(static_cast<double>(mx(0))));
  CHECK(std::isnan(static_cast<double>(mx(1))));
  CHECK(static_cast<double>(mx(2)) == kInf);
  CHECK(std::isnan(static_cast<double>(mn(0))));
  CHECK(static_cast<double>(mn(2)) == -kInf);
  CHECK_FALSE(std::isnan(static_cast<double>(mx(3))));
  // Pointwise maximum/minimum with a NaN on either side, fused with a reduction (softmax-like).
  const auto pw = check_against_oracle(fx::maximum(x, 0.5f) - fx::max(fx::minimum(x, 1.0f), fx::axis<1>), {4, 1000},
                                       reduction_tolerance<T>(), x(tx));
  CHECK(std::isnan(static_cast<double>(pw(0, 517))));
  CHECK(std::isnan(static_cast<double>(pw(0, 0))));  // the row's max is NaN, so every element of the row is
  CHECK_FALSE(std::isnan(static_cast<double>(pw(3, 10))));
}

TEST_CASE_TEMPLATE("edge: NaN propagates through max and min over rows of 33 to 64 (one vector of lanes)", T, float,
                   double) {
  constexpr fx::in<"x", T, 2> x;
  for (const int cols : {45, 64}) {
    CAPTURE(cols);
    // 40 rows: the NaN in the last lane, in the tail, first; +inf and -inf; the rest plain.
    const auto tx =
        with_specials<T>(40, cols,
                         {{0, 7, kNaN}, {1, cols - 1, kNaN}, {2, 0, kNaN}, {3, 5, kInf}, {3, cols - 2, -kInf}}, 3002);
    const auto mx = check_against_oracle(fx::max(x, fx::axis<1>, fx::drop_axes), {40}, tolerance{0, 0}, x(tx));
    const auto mn = check_against_oracle(fx::min(x, fx::axis<1>, fx::drop_axes), {40}, tolerance{0, 0}, x(tx));
    for (const int r : {0, 1, 2}) {
      CHECK(std::isnan(static_cast<double>(mx(r))));
      CHECK(std::isnan(static_cast<double>(mn(r))));
    }
    CHECK(static_cast<double>(mx(3)) == kInf);
    CHECK(static_cast<double>(mn(3)) == -kInf);
    CHECK_FALSE(std::isnan(static_cast<double>(mx(39))));
  }
}

TEST_CASE("edge: a row's held value (rmsnorm's rsqrt) when rows are recorded together across an outer axis") {
  // [3, 45, 40]: 45 rows of each outer index, so that a batch of recorded rows stops at the
  // end of one (45 = 32 + 13); the same over a view whose rows are not contiguous.
  constexpr fx::in<"x", float, 3> x;
  constexpr fx::in<"w", float, 1> w;
  const auto dense = random_tensor<float>({3, 45, 40}, 3003);
  const auto wide = random_tensor<float>({3, 45, 43}, 3004);
  const auto weight = random_tensor<float>({40}, 3005);
  const auto rms = x * fx::rsqrt(fx::mean(x * x, fx::axis<2>) + 1e-6f) * w;
  check_against_oracle(rms, {3, 45, 40}, reduction_tolerance<float>(), x(dense), w(weight));
  check_against_oracle(rms, {3, 45, 40}, reduction_tolerance<float>(), x(wide.slice(2, 1, 41, 1)), w(weight));
}

TEST_CASE("edge: argmax/argmin take the first of equal extremes, within a chunk of a row and across chunks") {
  // Rows of 300 (three chunks of a CPU row) and of 64 (one).
  constexpr fx::in<"x", float, 2> x;
  for (const int cols : {300, 64}) {
    CAPTURE(cols);
    const int late = cols - 10, mid = cols / 2;
    auto tx = with_specials<float>(6, cols,
                                   {{0, 10, 5.0},
                                    {0, late, 5.0},  // a tie across chunks
                                    {1, mid, 5.0},
                                    {1, mid - 1, 5.0},  // a tie side by side
                                    {3, 40, 0.0},
                                    {3, 50, -0.0},  // +0 and -0 are equal
                                    {5, 3, kInf},
                                    {5, late, kNaN}},  // NaN beats +inf
                                   3006);
    for (int j = 0; j < cols; ++j) {
      tx.data()[2 * cols + j] = 1.5f;                                     // all equal
      tx.data()[4 * cols + j] = -std::numeric_limits<float>::infinity();  // all -inf
      if (j != 40 && j != 50) tx.data()[3 * cols + j] = -1.0f - static_cast<float>(j);
    }
    const auto amax = check_against_oracle(fx::argmax(x, fx::axis<1>, fx::drop_axes), {6}, tolerance{0, 0}, x(tx));
    CHECK(amax(0) == 10);
    CHECK(amax(1) == mid - 1);
    CHECK(amax(2) == 0);
    CHECK(amax(3) == 40);
    CHECK(amax(4) == 0);
    CHECK(amax(5) == late);
    const auto amin = check_against_oracle(fx::argmin(-x, fx::axis<1>, fx::drop_axes), {6}, tolerance{0, 0}, x(tx));
    CHECK(amin(0) == 10);
    CHECK(amin(1) == mid - 1);
    CHECK(amin(5) == late);
  }
}

TEST_CASE("edge: argmax/argmin return the NaN position, logsumexp of ±inf rows") {
  constexpr fx::in<"x", float, 2> x;
  const auto tx = with_specials<float>(3, 300, {{0, 211, kNaN}, {0, 250, kNaN}, {1, 7, kInf}, {2, 5, -kInf}}, 3002);
  const auto amax = check_against_oracle(fx::argmax(x, fx::axis<1>, fx::drop_axes), {3}, tolerance{0, 0}, x(tx));
  const auto amin = check_against_oracle(fx::argmin(x, fx::axis<1>, fx::drop_axes), {3}, tolerance{0, 0}, x(tx));
  CHECK(amax(0) == 211);  // the first NaN
  CHECK(amin(0) == 211);
  CHECK(amax(1) == 7);
  CHECK(amin(2) == 5);
  const auto lse =
      check_against_oracle(fx::logsumexp(x, fx::axis<1>, fx::drop_axes), {3}, reduction_tolerance<float>(), x(tx));
  CHECK(std::isnan(lse(0)));
  CHECK(lse(1) == std::numeric_limits<float>::infinity());
  CHECK(std::isfinite(lse(2)));  // one -inf term adds nothing
  constexpr fx::in<"n", float, 1> n;
  const auto all_minus_inf = fx::tensor<float>::full({64}, -std::numeric_limits<float>::infinity());
  const auto none = check_against_oracle(fx::logsumexp(n), {1}, tolerance{0, 0}, n(all_minus_inf));
  CHECK(none(0) == -std::numeric_limits<float>::infinity());
  // Short rows (several a chunk, added across the rows at once): the same rules row by row;
  // the variance of a row with a NaN is NaN, of the others finite.
  const auto ts = with_specials<float>(13, 5,
                                       {{0, 3, kNaN},
                                        {1, 0, kInf},
                                        {2, 4, -kInf},
                                        {3, 0, -kInf},
                                        {3, 1, -kInf},
                                        {3, 2, -kInf},
                                        {3, 3, -kInf},
                                        {3, 4, -kInf},
                                        {4, 2, kInf},
                                        {4, 3, kNaN}},
                                       3005);
  const auto short_lse =
      check_against_oracle(fx::logsumexp(x, fx::axis<1>, fx::drop_axes), {13}, reduction_tolerance<float>(), x(ts));
  CHECK(std::isnan(short_lse(0)));
  CHECK(short_lse(1) == std::numeric_limits<float>::infinity());
  CHECK(std::isfinite(short_lse(2)));
  CHECK(short_lse(3) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(short_lse(4)));
  const auto short_var =
      check_against_oracle(fx::var(x, fx::axis<1>, fx::drop_axes), {13}, reduction_tolerance<float>(),
                           x(with_specials<float>(13, 5, {{6, 2, kNaN}}, 3006)));
  CHECK(std::isnan(short_var(6)));
  CHECK(std::isfinite(short_var(7)));
}

TEST_CASE_TEMPLATE("edge: integer arithmetic wraps around in the fused executor as in the oracle", T, std::int32_t,
                   std::int64_t) {
  constexpr fx::in<"a", T, 1> a;
  constexpr fx::in<"b", T, 1> b;
  constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  // 300 elements: the specials sit in the first chunk, the tail runs the remainder path.
  auto ta = random_tensor<T>({300}, 3003, -1000, 1000), tb = random_tensor<T>({300}, 3004, -1000, 1000);
  const T as[] = {hi, lo, lo, hi, T{1} << (sizeof(T) * 4)}, bs[] = {1, -1, lo, hi, T{1} << (sizeof(T) * 4)};
  for (int i = 0; i < 5; ++i) ta.data()[i] = as[i], tb.data()[i] = bs[i];
  const auto sum = check_against_oracle(a + b, {300}, tolerance{0, 0}, a(ta), b(tb));
  const auto product = check_against_oracle(a * b, {300}, tolerance{0, 0}, a(ta), b(tb));
  const auto negated = check_against_oracle(-a + fx::abs(b), {300}, tolerance{0, 0}, a(ta), b(tb));
  using U = std::make_unsigned_t<T>;
  auto wrap = [](U v) { return static_cast<T>(v); };
  CHECK(sum(0) == lo);     // max + 1
  CHECK(sum(1) == hi);     // min - 1
  CHECK(product(4) == 0);  // 2^(bits/2) squared
  CHECK(product(3) == wrap(static_cast<U>(static_cast<U>(hi) * static_cast<U>(hi))));
  CHECK(negated(1) == wrap(static_cast<U>(static_cast<U>(lo) + static_cast<U>(1))));  // -min wraps to min; + |-1|
  // Sums of integers accumulate in i64 (torch.sum); the i64 sum of max values wraps.
  const auto total = check_against_oracle(fx::sum(a * 0 + hi), {1}, tolerance{0, 0}, a(ta));
  CHECK(total(0) == static_cast<std::int64_t>(static_cast<std::uint64_t>(hi) * 300u));
}

TEST_CASE("edge: an i32 intermediate wraps in i32 before abs, in the oracle as in the kernels") {
  // Shrunk from fuzz program 19 of seed 14801551: |y - max(y)| overflows i32; the oracle
  // computed it in i64 and wrapped only when storing, so |.| saw the unwrapped difference.
  constexpr fx::in<"a", std::int32_t, 1> a;
  constexpr fx::in<"b", std::int32_t, 1> b;
  const auto ta = make_tensor<std::int32_t>({3}, {-2000000000, 2000000000, 5});
  const auto tb = make_tensor<std::int32_t>({3}, {2000000000, 0, -2147483648.0});
  const auto d = check_against_oracle(fx::abs(a - b), {3}, tolerance{0, 0}, a(ta), b(tb));
  CHECK(d(0) == 294967296);   // -4e9 wraps to 294967296
  CHECK(d(1) == 2000000000);  // in range
  CHECK(d(2) == 2147483643);  // 5 + 2^31 wraps to -2^31 + 5
  const auto r = check_against_oracle(fx::abs(a - fx::max(b, fx::axis<0>)), {3}, tolerance{0, 0}, a(ta), b(tb));
  CHECK(r(0) == 294967296);
}

TEST_CASE("edge: two constant-only subexpressions in one loop keep their own values") {
  // Shrunk from fuzz program 63 of seed 14801551: the CPU loop held both `abs(-1.5) + 1` and
  // `abs(2.0) + 1` (no leaves, so the same slot) and divided by 2.5 twice.
  constexpr fx::in<"x", double, 3> x;
  constexpr fx::local<"t", double, 3> t;
  constexpr fx::out<"y", double, 3> y;
  constexpr fx::out<"r", double, 2> r;
  const auto tx = random_tensor<double>({3, 13, 1}, 3010, -2.0, 2.0);
  const auto q =
      check_against_oracle((x / (fx::abs(-1.5) + 1)) / (fx::abs(2.0) + 1), {3, 13, 1}, tolerance{0, 0}, x(tx));
  CHECK(q.data()[5] == tx.data()[5] / 2.5 / 3.0);
  // Also as a kernel-local value fused into a column logsumexp (loop reordering) and
  // beside a reduction result (a held subexpression with leaves next to a constant one).
  const fx::program prog{t = (x / (fx::abs(-1.5) + 1)) / (fx::abs(2.0) + 1),
                         r = fx::logsumexp(t, fx::axis<0>, fx::drop_axes),
                         y = x * (fx::abs(-2.0) + 1) + (fx::mean(x, fx::axis<0>) + 1) * (fx::abs(3.0) + 1)};
  fx::tensor<double> ar({13, 1}), br({13, 1}), ay({3, 13, 1}), by({3, 13, 1});
  prog.run(fx::cpu, x(tx), r(ar), y(ay));
  fx::run_reference(prog, x(tx), r(br), y(by));
  FUSEDSL_CHECK_CLOSE(ar.view(), br.view(), (tolerance{1e-12, 1e-12}));
  FUSEDSL_CHECK_CLOSE(ay.view(), by.view(), (tolerance{1e-12, 1e-12}));
}

TEST_CASE("edge: / with integer operands is true division: x/0 is ±inf and 0/0 NaN, as in PyTorch") {
  constexpr fx::in<"a", std::int32_t, 1> a;
  constexpr fx::in<"b", std::int32_t, 1> b;
  const auto ta = make_tensor<std::int32_t>({5}, {7, -7, 0, 6, -2147483648.0});
  const auto tb = make_tensor<std::int32_t>({5}, {0, 0, 0, 4, -1});
  const auto q = check_against_oracle(a / b, {5}, fx::testing::default_tolerance<float>(), a(ta), b(tb));
  static_assert(std::is_same_v<decltype(q), const fx::tensor<float>>, "int / int is float, as torch.div");
  CHECK(q(0) == std::numeric_limits<float>::infinity());
  CHECK(q(1) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(q(2)));
  CHECK(q(3) == 1.5f);
  CHECK(q(4) == 2147483648.0f);  // no overflow trap: the quotient is a float
  // i64 operands divide in f32 too (PyTorch's default dtype), and stay finite.
  constexpr fx::in<"c", std::int64_t, 1> c;
  const auto tc = make_tensor<std::int64_t>({2}, {1, -1});
  const auto r = check_against_oracle(c / 0, {2}, fx::testing::default_tolerance<float>(), c(tc));
  CHECK(r(0) == std::numeric_limits<float>::infinity());
  CHECK(r(1) == -std::numeric_limits<float>::infinity());
}
