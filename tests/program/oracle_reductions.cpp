// The oracle's reductions (fx::run_reference) against values computed
// independently: NaN propagation, argmax ties and NaN, var/std corrections,
// logsumexp with infinities, empty axes, integer products. Each case also
// runs the CPU executor and checks it against the same values.
#include "oracle.hpp"

using namespace fusedsl_tests;

TEST_CASE("oracle: maximum, minimum, max and min propagate NaN") {
  constexpr fx::in<"a", float, 1> a;
  constexpr fx::in<"b", float, 1> b;
  const auto ta = make_tensor<float>({3}, {kNaN, 1.0, 2.0});
  const auto tb = make_tensor<float>({3}, {1.0, kNaN, -3.0});
  check_values(fx::maximum(a, b), {3}, {kNaN, kNaN, 2.0}, 0, 0, a(ta), b(tb));
  check_values(fx::minimum(a, b), {3}, {kNaN, kNaN, -3.0}, 0, 0, a(ta), b(tb));
  constexpr fx::in<"x", float, 2> x;
  const auto tx = make_tensor<float>({2, 3}, {1.0, kNaN, 3.0, 4.0, -5.0, 6.0});
  check_values(fx::max(x, fx::axis<1>, fx::drop_axes), {2}, {kNaN, 6.0}, 0, 0, x(tx));
  check_values(fx::min(x, fx::axis<1>, fx::drop_axes), {2}, {kNaN, -5.0}, 0, 0, x(tx));
  check_values(fx::max(x, fx::axis<0>, fx::drop_axes), {3}, {4.0, kNaN, 6.0}, 0, 0, x(tx));
  check_values(fx::max(x, fx::axes<>, fx::drop_axes), {}, {kNaN}, 0, 0, x(tx));
}

TEST_CASE("oracle: argmax and argmin take the first index on ties and the NaN position") {
  constexpr fx::in<"x", float, 2> x;
  const auto ties = make_tensor<float>({2, 4}, {1.0, 3.0, 3.0, 2.0, 0.0, 0.0, -1.0, -1.0});
  check_values(fx::argmax(x, fx::axis<1>, fx::drop_axes), {2}, {1, 0}, 0, 0, x(ties));
  check_values(fx::argmin(x, fx::axis<1>, fx::drop_axes), {2}, {0, 2}, 0, 0, x(ties));
  // Flattened position over all axes; the first of the equal maxima.
  check_values(fx::argmax(x), {1, 1}, {1}, 0, 0, x(ties));
  const auto with_nan = make_tensor<float>({2, 4}, {1.0, kNaN, 5.0, kNaN, 7.0, 2.0, 9.0, kNaN});
  check_values(fx::argmax(x, fx::axis<1>, fx::drop_axes), {2}, {1, 3}, 0, 0, x(with_nan));
  check_values(fx::argmin(x, fx::axis<1>, fx::drop_axes), {2}, {1, 3}, 0, 0, x(with_nan));
  // Over axis 0 the position is the row.
  check_values(fx::argmax(x, fx::axis<0>, fx::drop_axes), {4}, {1, 0, 1, 0}, 0, 0, x(with_nan));
  // Integer ties, too.
  constexpr fx::in<"i", std::int32_t, 1> i;
  const auto ti = make_tensor<std::int32_t>({5}, {4, 9, 9, -3, -3});
  check_values(fx::argmax(i, fx::axis<0>, fx::drop_axes), {}, {1}, 0, 0, i(ti));
  check_values(fx::argmin(i, fx::axis<0>, fx::drop_axes), {}, {3}, 0, 0, i(ti));
}

TEST_CASE("oracle: var and std with correction 0 and 1") {
  constexpr fx::in<"x", double, 2> x;
  const auto tx = make_tensor<double>({2, 4}, {1, 2, 3, 4, 10, 10, 10, 14});
  // Row 0: mean 2.5, squared deviations sum 5; row 1: mean 11, sum 12.
  check_values(fx::var(x, fx::axis<1>, fx::drop_axes), {2}, {5.0 / 3, 4.0}, 1e-15, 1e-14, x(tx));
  check_values(fx::var(x, fx::axis<1>, fx::drop_axes, fx::correction{1}), {2}, {5.0 / 3, 4.0}, 1e-15, 1e-14, x(tx));
  check_values(fx::var(x, fx::axis<1>, fx::drop_axes, fx::correction{0}), {2}, {1.25, 3.0}, 1e-15, 1e-14, x(tx));
  check_values(fx::std(x, fx::axis<1>, fx::drop_axes, fx::correction{0}), {2}, {std::sqrt(1.25), std::sqrt(3.0)}, 1e-15,
               1e-14, x(tx));
  check_values(fx::std(x, fx::axis<1>, fx::drop_axes), {2}, {std::sqrt(5.0 / 3), 2.0}, 1e-15, 1e-14, x(tx));
  // One element with correction 1: 0 / 0 is NaN (PyTorch gives NaN too).
  constexpr fx::in<"one", double, 1> one;
  const auto t1 = make_tensor<double>({1}, {3.0});
  check_values(fx::var(one), {1}, {kNaN}, 0, 0, one(t1));
  check_values(fx::var(one, fx::axes<>, fx::correction{0}), {1}, {0.0}, 0, 0, one(t1));
  // Like PyTorch, the divisor is max(0, count - correction): [1, 2] with correction 3 is 0.5 / 0 = inf,
  // and an empty axis (0 / 0) is NaN, not 0 / -1 = -0.
  constexpr fx::in<"two", double, 1> two;
  const auto t2 = make_tensor<double>({2}, {1.0, 2.0});
  check_values(fx::var(two, fx::axes<>, fx::correction{3}), {1}, {kInf}, 0, 0, two(t2));
  check_values(fx::std(two, fx::axes<>, fx::correction{2}), {1}, {kInf}, 0, 0, two(t2));
  check_values(fx::var(two, fx::axes<>, fx::correction{0.5}), {1}, {0.5 / 1.5}, 1e-15, 1e-15, two(t2));
  const fx::tensor<double> empty({0});
  check_values(fx::var(two), {1}, {kNaN}, 0, 0, two(empty));
  check_values(fx::std(two, fx::axes<>, fx::correction{0}), {1}, {kNaN}, 0, 0, two(empty));
}

TEST_CASE("oracle: logsumexp with -kInf, +kInf and NaN") {
  constexpr fx::in<"x", double, 2> x;
  const auto tx = make_tensor<double>({6, 2}, {-kInf, 0.0,    //
                                               -kInf, -kInf,  //
                                               kInf, 1.0,     //
                                               1.0, 2.0,      //
                                               kNaN, 1.0,     //
                                               1000.0, 1000.0});
  check_values(fx::logsumexp(x, fx::axis<1>, fx::drop_axes), {6},
               {0.0, -kInf, kInf, 2.0 + std::log1p(std::exp(-1.0)), kNaN, 1000.0 + std::log(2.0)}, 1e-15, 1e-14, x(tx));
  constexpr fx::in<"f", float, 1> f;
  const auto tf = make_tensor<float>({3}, {-kInf, 88.0, 88.0});  // exp(88) * 2 would overflow a naive f32 sum
  check_values(fx::logsumexp(f), {1}, {88.0 + std::log(2.0)}, 1e-7, 1e-6, f(tf));
}

TEST_CASE("oracle: sum and mean over an empty axis, prod of integers wraps") {
  constexpr fx::in<"x", float, 2> x;
  const fx::tensor<float> empty({3, 0});
  check_values(fx::sum(x, fx::axis<1>, fx::drop_axes), {3}, {0.0, 0.0, 0.0}, 0, 0, x(empty));
  check_values(fx::mean(x, fx::axis<1>, fx::drop_axes), {3}, {kNaN, kNaN, kNaN}, 0, 0, x(empty));
  check_values(fx::prod(x, fx::axis<1>, fx::drop_axes), {3}, {1.0, 1.0, 1.0}, 0, 0, x(empty));
  check_values(fx::any(x, fx::axis<1>, fx::drop_axes), {3}, {0, 0, 0}, 0, 0, x(empty));
  check_values(fx::all(x, fx::axis<1>, fx::drop_axes), {3}, {1, 1, 1}, 0, 0, x(empty));
  constexpr fx::in<"i", std::int32_t, 1> i;
  const auto ti = make_tensor<std::int32_t>({3}, {65536, 65536, 65536});  // 2^48 fits i64: no wrap
  check_values(fx::prod(i), {1}, {281474976710656.0}, 0, 0, i(ti));
  const auto tw = make_tensor<std::int32_t>({5}, {65536, 65536, 65536, 65536, 3});  // 2^64 * 3 wraps to 0
  check_values(fx::prod(i), {1}, {0}, 0, 0, i(tw));
  // sum of i8 accumulates in i64: no wrap at 127.
  constexpr fx::in<"c", std::int8_t, 1> c;
  const auto tc = make_tensor<std::int8_t>({3}, {127, 127, 127});
  check_values(fx::sum(c), {1}, {381}, 0, 0, c(tc));
}
