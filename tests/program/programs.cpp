// Multi-statement programs: sequential semantics, in-place updates (Adam),
// named intermediates (fx::local), a subexpression used twice, compound
// assignments and fx::eval over tensors.
#include <vector>

#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("Adam's in-place update matches a hand-written double loop over several steps") {
  constexpr fx::inout<"m", float, 1> m;
  constexpr fx::inout<"v", float, 1> v;
  constexpr fx::inout<"p", float, 1> p;
  constexpr fx::in<"g", float, 1> g;
  constexpr fx::param<"lr", float> lr;
  constexpr fx::param<"b1", float> b1;
  constexpr fx::param<"b2", float> b2;
  constexpr fx::param<"eps", float> eps;
  constexpr fx::program adam{
      m = b1 * m + (1 - b1) * g,
      v = b2 * v + (1 - b2) * g * g,
      p -= lr * m / (fx::sqrt(v) + eps),
  };
  const std::int64_t n = 1023;
  auto tm = random_tensor<float>({n}, 1101, -0.1, 0.1);
  auto tv = random_tensor<float>({n}, 1102, 0.001, 0.01);
  auto tp = random_tensor<float>({n}, 1103);
  auto om = tm.clone(), ov = tv.clone(), op = tp.clone();  // the oracle's copies
  std::vector<double> hm(tm.data(), tm.data() + n), hv(tv.data(), tv.data() + n), hp(tp.data(), tp.data() + n);
  const float rate = 1e-2f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  for (int step = 0; step < 3; ++step) {
    const auto tg = random_tensor<float>({n}, 1110 + step);
    adam.run(fx::cpu, m(tm), v(tv), p(tp), g(tg), lr(rate), b1(beta1), b2(beta2), eps(epsilon));
    fx::run_reference(adam, m(om), v(ov), p(op), g(tg), lr(rate), b1(beta1), b2(beta2), eps(epsilon));
    for (std::int64_t i = 0; i < n; ++i) {
      // Sequential semantics: v uses the g of this step, p uses the new m and v.
      const double gi = tg.data()[i];
      hm[i] = double{beta1} * hm[i] + (1.0 - double{beta1}) * gi;
      hv[i] = double{beta2} * hv[i] + (1.0 - double{beta2}) * gi * gi;
      hp[i] -= double{rate} * hm[i] / (std::sqrt(hv[i]) + double{epsilon});
    }
  }
  FUSEDSL_CHECK_CLOSE(tm.view(), om.view(), fx::testing::default_tolerance<float>(6));
  FUSEDSL_CHECK_CLOSE(tv.view(), ov.view(), fx::testing::default_tolerance<float>(6));
  FUSEDSL_CHECK_CLOSE(tp.view(), op.view(), fx::testing::default_tolerance<float>(12));
  for (std::int64_t i = 0; i < n; ++i) {
    INFO("element ", i);
    CHECK(tm.data()[i] == doctest::Approx(hm[i]).epsilon(1e-5));
    CHECK(tv.data()[i] == doctest::Approx(hv[i]).epsilon(1e-5));
    CHECK(tp.data()[i] == doctest::Approx(hp[i]).epsilon(1e-5));
  }
}

TEST_CASE("a statement reads the value an earlier statement wrote") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::out<"z", float, 2> z;
  constexpr fx::inout<"t", float, 2> t;
  // z sees the new y; t is doubled, then 1 is added to the doubled value; y is rewritten last.
  constexpr fx::program prog{y = x + 1.0f, z = y * 2.0f + fx::sum(y, fx::axis<1>), t = t * 2.0f, t += 1.0f, y = y * y};
  const auto tx = random_tensor<float>({3, 7}, 1120);
  auto ty = fx::tensor<float>({3, 7}), tz = fx::tensor<float>({3, 7});
  auto tt = random_tensor<float>({3, 7}, 1121);
  auto ry = fx::tensor<float>({3, 7}), rz = fx::tensor<float>({3, 7});
  auto rt = tt.clone();
  const auto t0 = tt.clone();
  prog.run(fx::cpu, x(tx), y(ty), z(tz), t(tt));
  fx::run_reference(prog, x(tx), y(ry), z(rz), t(rt));
  FUSEDSL_CHECK_CLOSE(ty.view(), ry.view(), fx::testing::default_tolerance<float>(2));
  FUSEDSL_CHECK_CLOSE(tz.view(), rz.view(), reduction_tolerance<float>());
  FUSEDSL_CHECK_CLOSE(tt.view(), rt.view(), fx::testing::default_tolerance<float>(2));
  for (int i = 0; i < 3; ++i) {
    double row = 0;
    for (int j = 0; j < 7; ++j) row += tx(i, j) + 1.0;
    for (int j = 0; j < 7; ++j) {
      const double yi = tx(i, j) + 1.0;
      CHECK(ty(i, j) == doctest::Approx(yi * yi).epsilon(1e-6));
      CHECK(tz(i, j) == doctest::Approx(yi * 2.0 + row).epsilon(1e-5));
      CHECK(tt(i, j) == t0(i, j) * 2.0f + 1.0f);
    }
  }
}

TEST_CASE("softmax: fx::local intermediates, and the same max used twice, equal the oracle and each other") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::local<"e", float, 2> e;
  constexpr fx::local<"rowmax", float, 1> rowmax;
  constexpr fx::program with_locals{rowmax = fx::max(x, fx::axis<1>, fx::drop_axes),
                                    e = fx::exp(x - fx::cast<float>(fx::max(x, fx::axis<1>))),
                                    y = e / fx::sum(e, fx::axis<1>)};
  constexpr fx::program repeated{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                     fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
  const auto tx = random_tensor<float>({5, 33}, 1130, -8.0, 8.0);
  auto a = fx::tensor<float>({5, 33}), b = fx::tensor<float>({5, 33}), ra = fx::tensor<float>({5, 33}),
       rb = fx::tensor<float>({5, 33});
  with_locals.run(fx::cpu, x(tx), y(a));
  repeated.run(fx::cpu, x(tx), y(b));
  fx::run_reference(with_locals, x(tx), y(ra));
  fx::run_reference(repeated, x(tx), y(rb));
  const auto tol = tolerance{1e-5, 1e-7};
  FUSEDSL_CHECK_CLOSE(a.view(), ra.view(), tol);
  FUSEDSL_CHECK_CLOSE(b.view(), rb.view(), tol);
  FUSEDSL_CHECK_CLOSE(a.view(), b.view(), tol);
  for (int i = 0; i < 5; ++i) {
    double mx = tx(i, 0), total = 0, rowsum = 0;
    for (int j = 1; j < 33; ++j) mx = std::max(mx, double{tx(i, j)});
    for (int j = 0; j < 33; ++j) total += std::exp(tx(i, j) - mx);
    for (int j = 0; j < 33; ++j) {
      CHECK(b(i, j) == doctest::Approx(std::exp(tx(i, j) - mx) / total).epsilon(1e-5));
      rowsum += b(i, j);
    }
    CHECK(rowsum == doctest::Approx(1.0).epsilon(1e-5));
  }
}

TEST_CASE("successive updates of one placeholder, fused into one kernel or not, equal the oracle") {
  constexpr fx::inout<"pos", float, 1> pos;
  constexpr fx::in<"vel", float, 1> vel;
  constexpr fx::out<"energy", float, 0> energy;
  constexpr fx::param<"box", float> box;
  // One kernel: the particle step (docs/programs.md).
  constexpr fx::program step{pos += vel, pos = fx::minimum(pos, box), energy = fx::sum(vel * vel)};
  // Two: the sum reads the first update, so the second waits for it.
  constexpr fx::program apart{pos += vel, energy = fx::sum(pos), pos = pos * 2};
  const auto tv = random_tensor<float>({20000}, 1150);
  const auto p0 = random_tensor<float>({20000}, 1151);
  const auto check = [&](const auto& prog, const auto&... more) {
    auto tp = p0.clone(), rp = p0.clone();
    auto te = fx::tensor<float>(fx::shape{}), re = fx::tensor<float>(fx::shape{});
    prog.run(fx::cpu, pos(tp), vel(tv), energy(te), more...);
    fx::run_reference(prog, pos(rp), vel(tv), energy(re), more...);
    FUSEDSL_CHECK_CLOSE(tp.view(), rp.view(), fx::testing::default_tolerance<float>(2));
    FUSEDSL_CHECK_CLOSE(te.view(), re.view(), fx::testing::default_tolerance<float>(64));
  };
  check(step, box(0.5f));
  check(apart);
}

TEST_CASE("compound assignments += -= *= /= on out and inout placeholders") {
  constexpr fx::in<"x", float, 1> x;
  constexpr fx::out<"y", float, 1> y;
  constexpr fx::inout<"w", std::int32_t, 1> w;
  constexpr fx::program prog{y = x, y += x, y -= 1.0f, y *= x, y /= 4.0f, w += 5, w *= 3, w -= w / 2 * 0 + 1};
  const auto tx = random_tensor<float>({9}, 1140);
  auto ty = fx::tensor<float>({9}), ry = fx::tensor<float>({9});
  auto tw = random_tensor<std::int32_t>({9}, 1141, -100, 100);
  auto rw = tw.clone();
  const auto w0 = tw.clone();
  prog.run(fx::cpu, x(tx), y(ty), w(tw));
  fx::run_reference(prog, x(tx), y(ry), w(rw));
  FUSEDSL_CHECK_CLOSE(ty.view(), ry.view(), fx::testing::default_tolerance<float>(4));
  FUSEDSL_CHECK_CLOSE(tw.view(), rw.view(), fx::testing::default_tolerance<std::int32_t>());
  for (int i = 0; i < 9; ++i) {
    const float xi = tx(i);
    CHECK(ty(i) == doctest::Approx((2.0 * xi - 1.0) * xi / 4.0).epsilon(1e-6));
    CHECK(tw(i) == (w0(i) + 5) * 3 - 1);
  }
  // /= on an integer target computes in f32 and truncates when stored.
  constexpr fx::inout<"q", std::int32_t, 1> q;
  constexpr fx::program divide{q /= 2};
  auto tq = make_tensor<std::int32_t>({4}, {7, -7, 8, 1});
  divide.run(fx::cpu, q(tq));
  CHECK(tq(0) == 3);
  CHECK(tq(1) == -3);
  CHECK(tq(2) == 4);
  CHECK(tq(3) == 0);
}

TEST_CASE("fx::eval with tensors and views used directly in the expression") {
  const auto ta = random_tensor<float>({3, 7}, 1150);
  const auto tb = random_tensor<float>({3, 7}, 1151);
  const auto tc = random_tensor<float>({7}, 1152);
  fx::tensor<float> y({3, 7});
  fx::eval(y, fx::exp(ta) * tb + tc);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j)
      CHECK(y(i, j) == doctest::Approx(std::exp(double{ta(i, j)}) * tb(i, j) + tc(j)).epsilon(3e-6));
  // Views, a reduction over a run-time-checked axis and a C++ number.
  const auto base = random_tensor<float>({7, 3}, 1153);
  fx::tensor<float> z({3, 7});
  fx::eval(z.view(), base.transpose(0, 1) - fx::max(base.transpose(0, 1), fx::axis<1>) + 0.5f);
  for (int i = 0; i < 3; ++i) {
    float mx = base(0, i);
    for (int j = 1; j < 7; ++j) mx = std::max(mx, base(j, i));
    for (int j = 0; j < 7; ++j) CHECK(z(i, j) == base(j, i) - mx + 0.5f);
  }
  // Promotion: an i32 tensor times 2.5 into an f32 target; a bool target from a comparison.
  const auto ti = random_tensor<std::int32_t>({4}, 1154, -10, 10);
  fx::tensor<float> scaled({4});
  fx::eval(scaled, ti * 2.5);
  fx::tensor<bool> positive({4});
  fx::eval(positive, ti > 0);
  for (int i = 0; i < 4; ++i) {
    CHECK(scaled(i) == static_cast<float>(ti(i)) * 2.5f);
    CHECK(positive(i) == (ti(i) > 0));
  }
  // In place through the very same view is allowed: y = 2 * y.
  const auto y0 = y.clone();
  fx::eval(y, y * 2.0f);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j) CHECK(y(i, j) == 2.0f * y0(i, j));
}

TEST_CASE("in-place updates whose value reduces the updated tensor: p = p - mean(p, axis<0>), y = x / sum(x)") {
  // Every reduction must see the old values, whatever order a fused kernel writes in.
  constexpr fx::inout<"p", float, 2> p;
  constexpr fx::program center_columns{p = p - fx::mean(p, fx::axis<0>)};
  constexpr fx::program center_rows{p = p - fx::max(p, fx::axis<1>) + fx::std(p, fx::axis<1>)};
  auto tp = random_tensor<float>({9, 5}, 1160);
  auto rp = tp.clone();
  const auto p0 = tp.clone();
  center_columns.run(fx::cpu, p(tp));
  fx::run_reference(center_columns, p(rp));
  FUSEDSL_CHECK_CLOSE(tp.view(), rp.view(), reduction_tolerance<float>());
  for (int j = 0; j < 5; ++j) {
    double mean = 0;
    for (int i = 0; i < 9; ++i) mean += p0(i, j) / 9.0;
    for (int i = 0; i < 9; ++i) CHECK(tp(i, j) == doctest::Approx(p0(i, j) - mean).epsilon(1e-5).scale(1));
  }
  center_rows.run(fx::cpu, p(tp));
  fx::run_reference(center_rows, p(rp));
  FUSEDSL_CHECK_CLOSE(tp.view(), rp.view(), reduction_tolerance<float>());
  // An in and an out bound to the very same view, the value reading all of x.
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program normalize{y = x / fx::sum(fx::abs(x))};
  auto t = random_tensor<float>({4, 6}, 1161);
  auto r = t.clone();
  normalize.run(fx::cpu, x(t), y(t));
  fx::run_reference(normalize, x(r), y(r));
  FUSEDSL_CHECK_CLOSE(t.view(), r.view(), reduction_tolerance<float>());
  double total = 0;
  for (std::int64_t k = 0; k < t.numel(); ++k) total += std::fabs(t.data()[k]);
  CHECK(total == doctest::Approx(1.0).epsilon(1e-5));
}
