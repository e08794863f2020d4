// Comparisons on f64, f32, f16 and bf16: the CPU executor against the oracle,
// and == against the values themselves.
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("all comparisons on f64 and f32 match the oracle and give bool", T, double, float) {
  check_comparisons<T, true>();
}
TEST_CASE_TEMPLATE("comparisons on f16 and bf16 match the oracle and give bool", T, fx::half, fx::bfloat16) {
  check_comparisons<T, false>();
}

TEST_CASE_TEMPLATE("clamp, isnan, isinf and isfinite, with NaN and infinities, match torch's results", T, double, float,
                   fx::half) {
  constexpr fx::in<"x", T, 1> x;
  constexpr fx::out<"c", T, 1> c;
  constexpr fx::out<"n", bool, 1> n;
  constexpr fx::out<"i", bool, 1> i;
  constexpr fx::out<"f", bool, 1> f;
  constexpr fx::program prog{c = fx::clamp(x, -1.5, 2), n = fx::isnan(x), i = fx::isinf(x), f = fx::isfinite(x)};
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto tx = make_tensor<T>({6}, {-3.0, -1.0, 2.5, inf, -inf, nan});
  fx::tensor<T> tc({6});
  fx::tensor<bool> tn({6}), ti({6}), tf({6});
  prog.run(fx::cpu, x(tx), c(tc), n(tn), i(ti), f(tf));
  const double clamped[] = {-1.5, -1.0, 2.0, 2.0, -1.5};
  for (int k = 0; k < 5; ++k) CHECK(static_cast<double>(tc(k)) == clamped[k]);
  CHECK(std::isnan(static_cast<double>(tc(5))));  // NaN propagates
  const bool is_nan[] = {false, false, false, false, false, true}, is_inf[] = {false, false, false, true, true, false};
  for (int k = 0; k < 6; ++k) {
    CHECK(tn(k) == is_nan[k]);
    CHECK(ti(k) == is_inf[k]);
    CHECK(tf(k) == (!is_nan[k] && !is_inf[k]));
  }
  // Integers: never NaN or infinite; clamp keeps the integer type.
  constexpr fx::in<"k", std::int32_t, 1> k;
  constexpr fx::out<"ck", std::int32_t, 1> ck;
  constexpr fx::out<"fk", bool, 1> fk;
  constexpr fx::program ints{ck = fx::clamp(k, -2, 3), fk = fx::isfinite(k) && !fx::isnan(k) && !fx::isinf(k)};
  const auto tk = make_tensor<std::int32_t>({4}, {-5, 0, 7, std::numeric_limits<std::int32_t>::min()});
  fx::tensor<std::int32_t> tck({4});
  fx::tensor<bool> tfk({4});
  ints.run(fx::cpu, k(tk), ck(tck), fk(tfk));
  CHECK(tck(0) == -2);
  CHECK(tck(1) == 0);
  CHECK(tck(2) == 3);
  CHECK(tck(3) == -2);
  for (int j = 0; j < 4; ++j) CHECK(tfk(j));
}

TEST_CASE("x != x and x == x on one operand are expressions, so where(x != x, 0, x) replaces NaNs") {
  // Expression types have no C++ equality of their own: it would win over the
  // DSL's template operators for two operands of the same type and give a bool.
  constexpr fx::in<"x", float, 1> x;
  constexpr fx::param<"s", float> s;
  constexpr fx::out<"y", float, 1> y;
  constexpr fx::out<"m", bool, 1> m;
  static_assert(fx::expression<decltype(x != x)> && fx::expression<decltype(x == x)>);
  static_assert(fx::expression<decltype(s == s)> && fx::expression<decltype((x + 1) != (x + 1))>);
  static_assert(fx::expression<decltype(fx::sum(x, fx::axis<0>) == fx::sum(x, fx::axis<0>))>);
  constexpr fx::program prog{y = fx::where(x != x, 0.0f, x), m = (x * s) == (x * s)};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto tx = make_tensor<float>({4}, {1.0, nan, -2.0, nan});
  fx::tensor<float> ty({4});
  fx::tensor<bool> tm({4});
  prog.run(fx::cpu, x(tx), s(2.0f), y(ty), m(tm));
  const float expected[] = {1.0f, 0.0f, -2.0f, 0.0f};
  for (int k = 0; k < 4; ++k) {
    CHECK(ty(k) == expected[k]);
    CHECK(tm(k) == (k % 2 == 0));
  }
}

TEST_CASE_TEMPLATE("floor, ceil, trunc, round (halves to even) and sign match torch's results", T, double, fx::half) {
  constexpr fx::in<"x", T, 1> x;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto tx = make_tensor<T>({10}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.75, 3.25, inf, -inf, nan});
  constexpr fx::out<"f", T, 1> f;
  constexpr fx::out<"c", T, 1> c;
  constexpr fx::out<"t", T, 1> t;
  constexpr fx::out<"r", T, 1> r;
  constexpr fx::out<"s", T, 1> s;
  constexpr fx::program prog{f = fx::floor(x), c = fx::ceil(x), t = fx::trunc(x), r = fx::round(x), s = fx::sign(x)};
  fx::tensor<T> tf({10}), tc({10}), tt({10}), tr({10}), ts({10});
  prog.run(fx::cpu, x(tx), f(tf), c(tc), t(tt), r(tr), s(ts));
  // torch.floor, torch.ceil, torch.trunc, torch.round, torch.sign of the same values.
  const double floors[] = {0, 1, 2, -1, -2, -3, 3, inf, -inf}, ceils[] = {1, 2, 3, -0.0, -1, -2, 4, inf, -inf};
  const double truncs[] = {0, 1, 2, -0.0, -1, -2, 3, inf, -inf}, rounds[] = {0, 2, 2, -0.0, -2, -3, 3, inf, -inf};
  const double signs[] = {1, 1, 1, -1, -1, -1, 1, 1, -1};
  for (int i = 0; i < 9; ++i) {
    CHECK(static_cast<double>(tf(i)) == floors[i]);
    CHECK(static_cast<double>(tc(i)) == ceils[i]);
    CHECK(static_cast<double>(tt(i)) == truncs[i]);
    CHECK(static_cast<double>(tr(i)) == rounds[i]);
    CHECK(static_cast<double>(ts(i)) == signs[i]);
  }
  CHECK(std::signbit(static_cast<double>(tr(3))));  // round(-0.5) is -0
  for (const auto* v : {&tf, &tc, &tt, &tr}) CHECK(std::isnan(static_cast<double>((*v)(9))));
  CHECK(static_cast<double>(ts(9)) == 0.0);  // sign(NaN) is 0, as torch
  const auto random = fx::testing::random_tensor<T>({257}, 11, -40.0, 40.0);
  check_each(std::make_tuple(fx::floor(x * 0.5) + fx::ceil(x) * 2 + fx::trunc(x) * 4 + fx::round(x) * fx::sign(x - 1)),
             {257}, {4}, x(random));
}
