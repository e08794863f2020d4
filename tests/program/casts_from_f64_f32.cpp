// Casts from f64 and f32 to every dtype: executor against the oracle, exact, and hand-computed roundings.
#include "casts.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("casts from f64 and f32 to every dtype match the oracle exactly", From, double, float) {
  const std::uint64_t seed = 600 + static_cast<std::uint64_t>(fx::dtype_of<From>);
  // [-100, 100) fits every signed integer dtype; fractions test truncation toward zero.
  check_casts_from<From>(random_tensor<From>({3, 7}, seed, -100.0, 100.0),
                         random_tensor<From>({3, 7}, seed + 1, 0.0, 200.0));
}

TEST_CASE("casts from floating point: truncation, bool, overflow and round to nearest even (hand values)") {
  constexpr fx::in<"f", float, 1> f;
  const auto tf = make_tensor<float>({6}, {-2.7, 2.7, 0.5, 0.0, 65520.0, 65519.0});
  const auto to_i32 = check_against_oracle(fx::cast<std::int32_t>(f), {6}, tolerance{0, 0}, f(tf));
  CHECK(to_i32.data()[0] == -2);
  CHECK(to_i32.data()[1] == 2);
  CHECK(to_i32.data()[2] == 0);
  const auto to_bool = check_against_oracle(fx::cast<bool>(f), {6}, tolerance{0, 0}, f(tf));
  CHECK(to_bool.data()[0]);
  CHECK(to_bool.data()[2]);  // 0.5 != 0
  CHECK_FALSE(to_bool.data()[3]);
  const auto to_half = check_against_oracle(fx::cast<fx::half>(f), {6}, tolerance{0, 0}, f(tf));
  CHECK(std::isinf(static_cast<float>(to_half.data()[4])));  // 65520 is halfway to 65536: overflows
  CHECK(static_cast<float>(to_half.data()[5]) == 65504.0f);  // just below halfway: the largest half
  // bf16 keeps 7 fraction bits: 1 + 1/256 is a tie, to even 1.0; 1 + 3/256 is a tie, to even 1 + 2/128.
  const auto tb = make_tensor<float>({2}, {1.00390625, 1.01171875});
  const auto to_bf16 = check_against_oracle(fx::cast<fx::bfloat16>(f), {2}, tolerance{0, 0}, f(tb));
  CHECK(static_cast<float>(to_bf16.data()[0]) == 1.0f);
  CHECK(static_cast<float>(to_bf16.data()[1]) == 1.015625f);
  // f64 -> f16 rounds once: 1 + 2^-11 + 2^-40 is above the halfway point, so it rounds up to 1 + 2^-10
  // (going through float first would make it an exact tie and round down to 1).
  constexpr fx::in<"d", double, 1> d;
  const auto td = make_tensor<double>({1}, {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)});
  const auto d_to_half = check_against_oracle(fx::cast<fx::half>(d), {1}, tolerance{0, 0}, d(td));
  CHECK(static_cast<float>(d_to_half.data()[0]) == 1.0009765625f);
}
