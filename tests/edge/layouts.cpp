// Edge layouts through the fused CPU executor: rank-0 programs (pointwise, reductions,
// in-place), inputs and outputs bound to offset windows of larger tensors (the elements
// around a written window stay as they were), one tensor bound to several inputs, and
// inputs left unchanged by programs that do not write them.
#include "program/common.hpp"

using namespace fusedsl_tests;

TEST_CASE("edge: rank-0 programs: pointwise, reductions over no axes and an in-place update") {
  constexpr fx::in<"s", double, 0> s;
  constexpr fx::inout<"acc", double, 0> acc;
  constexpr fx::out<"y", double, 0> y;
  constexpr fx::program prog{y = fx::exp(s) + fx::sum(s * s), acc += y * 2.0};
  const auto ts = make_tensor<double>({}, {0.5});
  auto tacc = make_tensor<double>({}, {1.0}), racc = tacc.clone();
  fx::tensor<double> ty(fx::shape{}), ry(fx::shape{});
  prog.run(fx::cpu, s(ts), acc(tacc), y(ty));
  fx::run_reference(prog, s(ts), acc(racc), y(ry));
  FUSEDSL_CHECK_CLOSE(ty.view(), ry.view(), fx::testing::default_tolerance<double>(3));
  FUSEDSL_CHECK_CLOSE(tacc.view(), racc.view(), fx::testing::default_tolerance<double>(5));
  CHECK(ty.data()[0] == doctest::Approx(std::exp(0.5) + 0.25).epsilon(1e-12));
  CHECK(tacc.data()[0] == doctest::Approx(1.0 + 2.0 * (std::exp(0.5) + 0.25)).epsilon(1e-12));
  CHECK(ts.data()[0] == 0.5);
}

TEST_CASE("edge: offset windows: read from and written into the middle of larger tensors") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::in<"b", float, 1> b;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::inout<"z", float, 2> z;
  constexpr fx::program prog{y = x - fx::max(x, fx::axis<1>) + b, z = z * 0.5f + fx::sum(y, fx::axis<1>)};
  const auto big_x = random_tensor<float>({9, 40}, 3101);
  const auto big_b = random_tensor<float>({50}, 3102);
  // x: rows 2..6, columns 3, 5, ..., 35 (offset and step); b: elements 7..23 (offset only).
  const auto vx = big_x.slice(0, 2, 7).slice(1, 3, 37, 2);
  const auto vb = big_b.slice(0, 7, 24);
  REQUIRE(vx.sizes() == fx::shape{5, 17});
  auto big_y = fx::tensor<float>::full({7, 20}, -7.0f), big_z = random_tensor<float>({8, 19}, 3103);
  auto ref_y = big_y.clone(), ref_z = big_z.clone();
  const auto before_x = big_x.clone(), before_z = big_z.clone();
  auto window = [](auto& t) { return t.slice(0, 1, 6).slice(1, 2, 19); };  // [5, 17] at offset (1, 2)
  prog.run(fx::cpu, x(vx), b(vb), y(window(big_y)), z(window(big_z)));
  fx::run_reference(prog, x(vx), b(vb), y(window(ref_y)), z(window(ref_z)));
  FUSEDSL_CHECK_CLOSE(big_y.view(), ref_y.view(), reduction_tolerance<float>());
  FUSEDSL_CHECK_CLOSE(big_z.view(), ref_z.view(), reduction_tolerance<float>());
  // Outside the windows nothing moved; the input tensor is unchanged.
  for (std::int64_t i = 0; i < 7; ++i)
    for (std::int64_t j = 0; j < 20; ++j)
      if (i < 1 || i >= 6 || j < 2 || j >= 19) CHECK(big_y(i, j) == -7.0f);
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 19; ++j)
      if (i < 1 || i >= 6 || j < 2) CHECK(big_z(i, j) == before_z(i, j));
  FUSEDSL_CHECK_CLOSE(big_x.view(), before_x.view(), (tolerance{0, 0}));
}

TEST_CASE("edge: one tensor bound to several inputs, and inputs unchanged by a multi-kernel program") {
  constexpr fx::in<"p", float, 2> p;
  constexpr fx::in<"q", float, 2> q;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::out<"s", float, 1> s;
  constexpr fx::program prog{y = fx::exp(p - fx::max(q, fx::axis<1>)), s = fx::sum(y * q, fx::axis<1>, fx::drop_axes)};
  const auto t = random_tensor<float>({6, 129}, 3104);
  const auto before = t.clone();
  fx::tensor<float> ty({6, 129}), ry({6, 129}), ts({6}), rs({6});
  prog.run(fx::cpu, p(t), q(t), y(ty), s(ts));
  fx::run_reference(prog, p(t), q(t), y(ry), s(rs));
  FUSEDSL_CHECK_CLOSE(ty.view(), ry.view(), reduction_tolerance<float>());
  FUSEDSL_CHECK_CLOSE(ts.view(), rs.view(), reduction_tolerance<float>());
  FUSEDSL_CHECK_CLOSE(t.view(), before.view(), (tolerance{0, 0}));
  // p and q as two different views of the same memory (q transposed back and forth is p).
  const auto square = random_tensor<float>({33, 33}, 3105);
  fx::tensor<float> ty2({33, 33}), ry2({33, 33}), ts2({33}), rs2({33});
  prog.run(fx::cpu, p(square), q(square.transpose(0, 1)), y(ty2), s(ts2));
  fx::run_reference(prog, p(square), q(square.transpose(0, 1)), y(ry2), s(rs2));
  FUSEDSL_CHECK_CLOSE(ty2.view(), ry2.view(), reduction_tolerance<float>());
  FUSEDSL_CHECK_CLOSE(ts2.view(), rs2.view(), reduction_tolerance<float>());
}
