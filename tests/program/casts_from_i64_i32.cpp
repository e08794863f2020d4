// Casts from i64 and i32 to every dtype: executor against the oracle, exact (narrowing wraps around), and hand values.
#include "casts.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("casts from i64 and i32 to every dtype match the oracle exactly", From, std::int64_t, std::int32_t) {
  const std::uint64_t seed = 700 + static_cast<std::uint64_t>(fx::dtype_of<From>);
  // Wider than the narrower targets, so that narrowing wraps and f16 overflows to inf.
  const double lo = std::is_same_v<From, bool> || std::is_same_v<From, std::uint8_t>
                        ? 0.0
                        : std::max(-100000.0, static_cast<double>(std::numeric_limits<From>::min()));
  const double hi = std::min(100000.0, static_cast<double>(std::numeric_limits<From>::max()));
  const auto src = random_tensor<From>({3, 7}, seed, lo, hi);
  check_casts_from<From>(src, src);
}

TEST_CASE("casts from integers: wrap-around, bool and rounding to f32/f16 (hand values)") {
  constexpr fx::in<"i", std::int32_t, 1> i;
  const auto ti = make_tensor<std::int32_t>({5}, {300, -1, 0, 2049, 2051});
  const auto to_i8 = check_against_oracle(fx::cast<std::int8_t>(i), {5}, tolerance{0, 0}, i(ti));
  CHECK(to_i8.data()[0] == 44);  // 300 - 256
  CHECK(to_i8.data()[1] == -1);
  const auto to_u8 = check_against_oracle(fx::cast<std::uint8_t>(i), {5}, tolerance{0, 0}, i(ti));
  CHECK(to_u8.data()[1] == 255);
  const auto to_bool = check_against_oracle(fx::cast<bool>(i), {5}, tolerance{0, 0}, i(ti));
  CHECK(to_bool.data()[1]);
  CHECK_FALSE(to_bool.data()[2]);
  // f16 has 11 significant bits: 2049 is a tie (to even 2048), 2051 a tie (to even 2052).
  const auto to_half = check_against_oracle(fx::cast<fx::half>(i), {5}, tolerance{0, 0}, i(ti));
  CHECK(static_cast<float>(to_half.data()[3]) == 2048.0f);
  CHECK(static_cast<float>(to_half.data()[4]) == 2052.0f);
  constexpr fx::in<"l", std::int64_t, 1> l;
  const auto tl = make_tensor<std::int64_t>({1}, {16777217.0});  // 2^24 + 1: a tie in f32, to even 2^24
  const auto to_f32 = check_against_oracle(fx::cast<float>(l), {1}, tolerance{0, 0}, l(tl));
  CHECK(to_f32.data()[0] == 16777216.0f);
}
