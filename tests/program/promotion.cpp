// Type promotion between tensors, with C++ numbers and with params: the CPU
// executor against the oracle and hand-computed values.
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("promotion between tensors: bf16 * f32 -> f32, u8 + i8 -> i16, i32 + i64 -> i64, f16 * bf16 -> f32") {
  constexpr fx::in<"h", fx::bfloat16, 2> h;
  constexpr fx::in<"f", float, 2> f;
  const auto th = random_tensor<fx::bfloat16>({3, 7}, 906);
  const auto tf = random_tensor<float>({3, 7}, 907);
  static_assert(decltype(h * f)::value_dtype == fx::dtype::f32);
  const auto product = check_pointwise(h * f, {3, 7}, 1, h(th), f(tf));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j) CHECK(product(i, j) == static_cast<float>(th(i, j)) * tf(i, j));  // exact in float

  constexpr fx::in<"u", std::uint8_t, 1> u;
  constexpr fx::in<"c", std::int8_t, 1> c;
  const auto tu = make_tensor<std::uint8_t>({4}, {200, 255, 0, 7});
  const auto tc = make_tensor<std::int8_t>({4}, {-100, 127, -128, 7});
  static_assert(decltype(u + c)::value_dtype == fx::dtype::i16);
  const auto wide = check_pointwise(u + c, {4}, 1, u(tu), c(tc));
  const std::int16_t want[] = {100, 382, -128, 14};  // no wrap-around in i16
  for (int i = 0; i < 4; ++i) CHECK(wide.data()[i] == want[i]);

  constexpr fx::in<"i", std::int32_t, 1> i;
  constexpr fx::in<"l", std::int64_t, 1> l;
  const auto ti = make_tensor<std::int32_t>({2}, {2147483647, -5});
  const auto tl = make_tensor<std::int64_t>({2}, {1, 3});
  static_assert(decltype(i + l)::value_dtype == fx::dtype::i64);
  const auto sum64 = check_pointwise(i + l, {2}, 1, i(ti), l(tl));
  CHECK(sum64.data()[0] == 2147483648LL);  // computed in i64: no i32 wrap
  CHECK(sum64.data()[1] == -2);

  constexpr fx::in<"g", fx::half, 2> g;
  const auto tg = random_tensor<fx::half>({3, 7}, 908);
  static_assert(decltype(g * h)::value_dtype == fx::dtype::f32);
  check_pointwise(g * h, {3, 7}, 1, g(tg), h(th));
  // Mixed floating dtypes with an integer: f16 + i64 -> f16 (the float category wins).
  static_assert(decltype(g + l)::value_dtype == fx::dtype::f16);
}

TEST_CASE("promotion with C++ numbers: int32 * 2.5 -> f32, u8 + 1000 stays u8, bf16 * 0.5 stays bf16") {
  constexpr fx::in<"i", std::int32_t, 2> i;
  const auto ti = random_tensor<std::int32_t>({3, 7}, 909, -1000, 1000);
  static_assert(decltype(i * 2.5)::value_dtype == fx::dtype::f32);
  const auto scaled = check_pointwise(i * 2.5, {3, 7}, 1, i(ti));
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 7; ++k) CHECK(scaled(r, k) == static_cast<float>(ti(r, k)) * 2.5f);
  static_assert(decltype(i * 2)::value_dtype == fx::dtype::i32);
  check_pointwise(i * 2 - 7, {3, 7}, 2, i(ti));

  constexpr fx::in<"u", std::uint8_t, 1> u;
  const auto tu = make_tensor<std::uint8_t>({3}, {0, 24, 255});
  static_assert(decltype(u + 1000)::value_dtype == fx::dtype::u8);
  const auto wrapped = check_pointwise(u + 1000, {3}, 1, u(tu));
  CHECK(wrapped.data()[0] == 232);  // 1000 mod 256
  CHECK(wrapped.data()[1] == 0);
  CHECK(wrapped.data()[2] == 231);

  constexpr fx::in<"b", fx::bfloat16, 1> b;
  const auto tb = random_tensor<fx::bfloat16>({5}, 910);
  static_assert(decltype(b * 0.5)::value_dtype == fx::dtype::bf16);
  const auto half_of = check_pointwise(b * 0.5, {5}, 1, b(tb));
  for (int k = 0; k < 5; ++k) CHECK(static_cast<float>(half_of.data()[k]) == static_cast<float>(tb.data()[k]) * 0.5f);

  // bool tensors: + 1 gives i64, * 1.5f gives f32.
  constexpr fx::in<"p", bool, 1> p;
  const auto tp = make_tensor<bool>({2}, {1, 0});
  static_assert(decltype(p + 1)::value_dtype == fx::dtype::i64);
  const auto counted = check_pointwise(p + 1, {2}, 1, p(tp));
  CHECK(counted.data()[0] == 2);
  CHECK(counted.data()[1] == 1);
  const auto weighted = check_pointwise(p * 1.5f, {2}, 1, p(tp));
  CHECK(weighted.data()[0] == 1.5f);
  CHECK(weighted.data()[1] == 0.0f);
}

TEST_CASE("params: values given at run time, promoting like C++ numbers") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::in<"i", std::int32_t, 2> i;
  constexpr fx::in<"c", std::int8_t, 1> c;
  constexpr fx::param<"lr", float> lr;
  constexpr fx::param<"scale", double> scale;
  constexpr fx::param<"k", std::int64_t> k;
  const auto tx = random_tensor<float>({3, 7}, 911);
  const auto ti = random_tensor<std::int32_t>({3, 7}, 912, -100, 100);
  const auto tc = make_tensor<std::int8_t>({3}, {100, -100, 5});

  const auto step = check_pointwise(x - lr * x, {3, 7}, 2, x(tx), lr(0.25f));
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 7; ++j) CHECK(step(r, j) == doctest::Approx(tx(r, j) * 0.75f).epsilon(1e-6));
  // A double param with an f32 tensor stays f32 (a scalar only raises the category).
  static_assert(decltype(scale * x)::value_dtype == fx::dtype::f32);
  check_pointwise(scale * x, {3, 7}, 1, x(tx), scale(1.0 / 3.0));
  // A float param with an integer tensor gives f32.
  static_assert(decltype(lr * i)::value_dtype == fx::dtype::f32);
  const auto promoted = check_pointwise(lr * i, {3, 7}, 1, i(ti), lr(0.5f));
  CHECK(promoted(1, 2) == static_cast<float>(ti(1, 2)) * 0.5f);
  // An i64 param with an i8 tensor stays i8 and wraps around.
  static_assert(decltype(c + k)::value_dtype == fx::dtype::i8);
  const auto bumped = check_pointwise(c + k, {3}, 1, c(tc), k(100));
  CHECK(bumped.data()[0] == -56);
  CHECK(bumped.data()[1] == 0);
  CHECK(bumped.data()[2] == 105);
  // Params only: a rank-0 value broadcast to the output.
  const auto constant = check_pointwise<2>(lr * 2 + k, {2, 2}, 2, lr(1.25f), k(3));
  for (std::int64_t e = 0; e < 4; ++e) CHECK(constant.data()[e] == 5.5f);
  // The same program, run again with other param values, uses the new ones.
  const auto again = check_pointwise<2>(lr * 2 + k, {2, 2}, 2, lr(-1.0f), k(1));
  CHECK(again.data()[0] == -1.0f);
}

TEST_CASE("a value is converted to the target's dtype when stored (truncation, rounding, widening)") {
  constexpr fx::in<"x", float, 1> x;
  constexpr fx::in<"i", std::int32_t, 1> i;
  constexpr fx::out<"as_i8", std::int8_t, 1> as_i8;
  constexpr fx::out<"as_bf16", fx::bfloat16, 1> as_bf16;
  constexpr fx::out<"as_f64", double, 1> as_f64;
  constexpr fx::out<"as_f32", float, 1> as_f32;
  // f32 values into i8 (truncation toward zero) and bf16 (round to nearest even); an i32 value into f64 and f32.
  constexpr fx::program prog{as_i8 = x * 10.0f, as_bf16 = x + 1.0f, as_f64 = i * 3, as_f32 = i / 2};
  const auto tx = make_tensor<float>({4}, {1.27, -2.55, 0.05, 3.0});
  const auto ti = make_tensor<std::int32_t>({4}, {7, -7, 1000000, 0});
  fx::tensor<std::int8_t> t8({4}), r8({4});
  fx::tensor<fx::bfloat16> tb({4}), rb({4});
  fx::tensor<double> td({4}), rd({4});
  fx::tensor<float> tf({4}), rf({4});
  prog.run(fx::cpu, x(tx), i(ti), as_i8(t8), as_bf16(tb), as_f64(td), as_f32(tf));
  fx::run_reference(prog, x(tx), i(ti), as_i8(r8), as_bf16(rb), as_f64(rd), as_f32(rf));
  FUSEDSL_CHECK_CLOSE(t8.view(), r8.view(), (tolerance{0, 0}));
  FUSEDSL_CHECK_CLOSE(tb.view(), rb.view(), (tolerance{0, 0}));
  FUSEDSL_CHECK_CLOSE(td.view(), rd.view(), (tolerance{0, 0}));
  FUSEDSL_CHECK_CLOSE(tf.view(), rf.view(), (tolerance{0, 0}));
  const std::int8_t want8[] = {12, -25, 0, 30};
  const double want64[] = {21, -21, 3000000, 0};
  const float want32[] = {3.5f, -3.5f, 500000.0f, 0.0f};
  for (int k = 0; k < 4; ++k) {
    CHECK(t8(k) == want8[k]);
    CHECK(static_cast<float>(tb(k)) == static_cast<float>(fx::bfloat16(tx(k) + 1.0f)));
    CHECK(td(k) == want64[k]);
    CHECK(tf(k) == want32[k]);
  }
}
