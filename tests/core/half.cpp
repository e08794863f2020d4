// half and bfloat16: exhaustive round trips, float -> half against g++'s _Float16,
// float -> bfloat16 against a reference that picks the nearer neighbour in exact
// arithmetic, conversions from double and 64-bit integers (rounded once, not twice),
// and constexpr conversions.
#include <doctest/doctest.h>

#include <bit>          // std::bit_cast
#include <cmath>        // std::fabs, std::nextafter, std::isnan
#include <cstdint>      // std::uint16_t, std::uint32_t, std::int64_t, std::uint64_t
#include <limits>       // std::numeric_limits
#include <random>       // std::mt19937_64
#include <sstream>      // std::ostringstream
#include <string>       // std::string
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

#include <fusedsl/core/half.hpp>  // half, bfloat16

using fusedsl::bfloat16;
using fusedsl::half;

namespace {

constexpr bool is_half_nan(std::uint16_t bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0; }
constexpr bool is_bfloat16_nan(std::uint16_t bits) { return (bits & 0x7f80u) == 0x7f80u && (bits & 0x7fu) != 0; }

/// g++'s own conversion to _Float16 (IEEE binary16, round to nearest even), as bits.
template <class T>
std::uint16_t gcc_half_bits(T value) {
  return std::bit_cast<std::uint16_t>(static_cast<_Float16>(value));
}

/// The bfloat16 nearest to `x`, ties to the even bit pattern, by definition:
/// compare the distances to the candidate neighbours in long double, where they
/// are exact for every float, double and 64-bit integer input. Shares nothing
/// with the shift-and-carry rounding in half.hpp. `x` must not be NaN.
std::uint16_t reference_bfloat16_bits(long double x) {
  const auto sign = static_cast<std::uint16_t>(std::signbit(x) ? 0x8000u : 0u);
  const long double magnitude = std::fabs(x);
  constexpr long double two_to_128 = 0x1p128L;  // where the next bfloat16 after the largest finite one would be
  if (magnitude >= two_to_128) return sign | 0x7f80u;
  // The value of a magnitude pattern; the Inf pattern stands for 2^128, so that values
  // past the halfway point above the largest finite bfloat16 round to Inf.
  const auto value = [&](std::uint32_t m) {
    return m == 0x7f80u ? two_to_128 : static_cast<long double>(std::bit_cast<float>(m << 16));
  };
  const float nearest_float =
      magnitude > std::numeric_limits<float>::max() ? std::numeric_limits<float>::max() : static_cast<float>(magnitude);
  const std::uint32_t truncated = std::bit_cast<std::uint32_t>(nearest_float) >> 16;
  std::uint32_t best = truncated;
  for (const std::uint32_t m : {truncated - 1, truncated + 1}) {
    if (m > 0x7f80u) continue;  // below zero (wrapped) or past Inf
    const long double d = std::fabs(magnitude - value(m)), d_best = std::fabs(magnitude - value(best));
    if (d < d_best || (d == d_best && m % 2 == 0)) best = m;
  }
  return sign | static_cast<std::uint16_t>(best);
}

/// Counts the inputs whose conversion differs from the reference and remembers the first few,
/// so that millions of inputs cost one assertion and a failure still shows examples.
struct mismatches {
  std::int64_t count = 0;
  std::int64_t checked = 0;
  std::string examples;

  template <class Input>
  void check(Input input, std::uint16_t ours, std::uint16_t expected, bool (*is_nan)(std::uint16_t)) {
    ++checked;
    if (is_nan(expected) ? is_nan(ours) : ours == expected) return;
    if (++count <= 5) {
      std::ostringstream text;
      text.precision(20);
      text << "input " << input << ": got 0x" << std::hex << ours << ", expected 0x" << expected << "\n";
      examples += text.str();
    }
  }
};

std::mt19937_64& rng() {
  static std::mt19937_64 engine(20261121);
  return engine;
}

/// Random floats: uniformly random bit patterns (every exponent, NaNs and Infs
/// included), then patterns with exponents around the range of half.
std::vector<float> random_floats(int count) {
  std::vector<float> values;
  for (int i = 0; i < count; ++i) values.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng()())));
  for (int i = 0; i < count; ++i) {
    const auto bits = static_cast<std::uint32_t>(rng()());
    const std::uint32_t exponent = 95 + static_cast<std::uint32_t>(rng()() % 55);  // 2^-32 .. 2^22
    values.push_back(std::bit_cast<float>((bits & 0x807fffffu) | (exponent << 23)));
  }
  return values;
}

/// Floats at each 16-bit value, halfway to the next one, and one float ulp on
/// either side of halfway: where rounding decisions are made.
template <class Storage>
std::vector<float> tie_floats() {
  std::vector<float> values;
  const std::uint16_t top = std::is_same_v<Storage, half> ? 0x7c00u : 0x7f80u;  // +Inf
  for (std::uint32_t bits = 0; bits < top; ++bits) {
    const float low = Storage::from_bits(static_cast<std::uint16_t>(bits));
    const double high =
        bits + 1 == top
            ? (std::is_same_v<Storage, half> ? 65536.0 : 0x1p128)
            : static_cast<double>(static_cast<float>(Storage::from_bits(static_cast<std::uint16_t>(bits + 1))));
    const auto middle = static_cast<float>((low + high) / 2);  // exact: one bit more than the 16-bit format
    for (const float v :
         {low, middle, std::nextafter(middle, 0.0f), std::nextafter(middle, std::numeric_limits<float>::infinity())})
      for (const float s : {v, -v}) values.push_back(s);
  }
  return values;
}

}  // namespace

// Conversions are constant expressions.
static_assert(half(1.0f).bits == 0x3c00);
static_assert(half(-2.0f).bits == 0xc000);
static_assert(half(65504.0f).bits == 0x7bff);
static_assert(half(65520.0f).bits == 0x7c00);                    // halfway to 65536 rounds to even: Inf
static_assert(half(0x1p-24f).bits == 0x0001);                    // smallest subnormal
static_assert(half(0x1p-25f).bits == 0x0000);                    // halfway to it: ties to even zero
static_assert(half(1.0f + 0x1p-11f).bits == 0x3c00);             // tie, even stays
static_assert(half(1.0f + 0x1p-10f + 0x1p-11f).bits == 0x3c02);  // tie, odd rounds up
static_assert(static_cast<float>(half::from_bits(0x3555)) == 0x1.554p-2f);
static_assert(static_cast<float>(half::from_bits(0x0001)) == 0x1p-24f);
static_assert(static_cast<float>(half::from_bits(0xfbff)) == -65504.0f);
static_assert(bfloat16(1.0f).bits == 0x3f80);
static_assert(bfloat16(0x1.01p0f).bits == 0x3f80);  // tie, even stays
static_assert(bfloat16(0x1.03p0f).bits == 0x3f82);  // tie, odd rounds up
static_assert(bfloat16(std::numeric_limits<float>::max()).bits == 0x7f80);
static_assert(static_cast<float>(bfloat16::from_bits(0xc040)) == -3.0f);
static_assert(half(3).bits == 0x4200);        // from int
static_assert(bfloat16(0.5).bits == 0x3f00);  // from double
// From double and 64-bit integers the value is rounded once: through float it would
// land on a tie (1 + 2^-11, 2^24 + 2^16) and round down.
static_assert(half(1.0 + 0x1p-11 + 0x1p-40).bits == 0x3c01);
static_assert(bfloat16(std::int64_t{(1 << 24) + (1 << 16) + 1}).bits == 0x4b81);
static_assert(bfloat16(-std::int64_t{(1 << 24) + (1 << 16) + 1}).bits == 0xcb81);
// Copy-initialization takes the same path (it used to go through the float constructor).
constexpr half copy_initialized_half = 1.0 + 0x1p-11 + 0x1p-40;
constexpr bfloat16 copy_initialized_bfloat16 = std::int64_t{(1 << 24) + (1 << 16) + 1};
static_assert(copy_initialized_half.bits == 0x3c01);
static_assert(copy_initialized_bfloat16.bits == 0x4b81);

TEST_CASE("every half bit pattern survives half -> float -> half, and matches _Float16") {
  mismatches round_trip;
  int widened_differently = 0;
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    const float f = half::from_bits(b);
    round_trip.check(bits, half(f).bits, b, is_half_nan);
    const float expected = std::bit_cast<_Float16>(b);
    if (std::bit_cast<std::uint32_t>(f) != std::bit_cast<std::uint32_t>(expected) &&
        !(std::isnan(f) && std::isnan(expected)))
      ++widened_differently;
  }
  CHECK(round_trip.checked == 65536);
  CHECK_MESSAGE(round_trip.count == 0, round_trip.examples);
  CHECK(widened_differently == 0);
}

TEST_CASE("every bfloat16 bit pattern survives bfloat16 -> float -> bfloat16") {
  mismatches round_trip;
  int widened_differently = 0;
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    const float f = bfloat16::from_bits(b);
    round_trip.check(bits, bfloat16(f).bits, b, is_bfloat16_nan);
    if (std::bit_cast<std::uint32_t>(f) != bits << 16) ++widened_differently;  // widening is exact: the upper 16 bits
  }
  CHECK(round_trip.checked == 65536);
  CHECK_MESSAGE(round_trip.count == 0, round_trip.examples);
  CHECK(widened_differently == 0);
}

TEST_CASE("float -> half rounds as g++'s _Float16 does") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> boundaries = {0.0f,
                                         -0.0f,
                                         inf,
                                         -inf,
                                         std::numeric_limits<float>::quiet_NaN(),
                                         -std::numeric_limits<float>::quiet_NaN(),
                                         std::numeric_limits<float>::signaling_NaN(),
                                         std::numeric_limits<float>::max(),
                                         std::numeric_limits<float>::min(),
                                         std::numeric_limits<float>::denorm_min(),
                                         65504.0f,
                                         65505.0f,
                                         65519.0f,
                                         std::nextafter(65520.0f, 0.0f),
                                         65520.0f,
                                         std::nextafter(65520.0f, inf),
                                         65536.0f,
                                         1e10f,
                                         0x1p-24f,
                                         0x1p-25f,
                                         std::nextafter(0x1p-25f, 0.0f),
                                         std::nextafter(0x1p-25f, 1.0f),
                                         0x1.8p-25f,
                                         0x1.8p-24f,
                                         0x1p-14f,
                                         std::nextafter(0x1p-14f, 0.0f),
                                         0x1.ffcp-15f,
                                         0x1.ffep-15f,
                                         0x1.ff8p-15f,
                                         0x1p-15f,
                                         0x3p-26f,
                                         1e-8f,
                                         1e-9f,
                                         1.0f / 3.0f};
  mismatches result;
  for (const std::vector<float>& inputs : {boundaries, random_floats(1 << 21), tie_floats<half>()})
    for (const float f : inputs) {
      result.check(f, half(f).bits, gcc_half_bits(f), is_half_nan);
      result.check(-f, half(-f).bits, gcc_half_bits(-f), is_half_nan);
    }
  MESSAGE("float -> half compared on ", result.checked, " inputs");
  CHECK(result.checked > 4'000'000);
  CHECK_MESSAGE(result.count == 0, result.examples);
}

TEST_CASE("float -> bfloat16 rounds to the nearer neighbour, ties to even") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> boundaries = {0.0f,
                                         -0.0f,
                                         inf,
                                         std::numeric_limits<float>::max(),
                                         std::numeric_limits<float>::min(),
                                         std::numeric_limits<float>::denorm_min(),
                                         0x1.fffffep126f,
                                         0x1.fep127f,
                                         0x1.fcp127f,
                                         0x1.fdp127f,
                                         0x1.fefffep127f,
                                         0x1.01p0f,
                                         0x1.03p0f,
                                         0x1.0100002p0f,
                                         1.0f / 3.0f,
                                         0x1p-133f,
                                         0x1.8p-133f};
  mismatches result;
  for (const std::vector<float>& inputs : {boundaries, random_floats(1 << 21), tie_floats<bfloat16>()})
    for (const float f : inputs) {
      if (std::isnan(f)) {
        result.check(f, bfloat16(f).bits, 0x7fc0u, is_bfloat16_nan);
        continue;
      }
      result.check(f, bfloat16(f).bits, reference_bfloat16_bits(f), is_bfloat16_nan);
      result.check(-f, bfloat16(-f).bits, reference_bfloat16_bits(-f), is_bfloat16_nan);
    }
  MESSAGE("float -> bfloat16 compared on ", result.checked, " inputs");
  CHECK(result.checked > 4'000'000);
  CHECK_MESSAGE(result.count == 0, result.examples);
}

TEST_CASE("NaN stays NaN, with its sign") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(static_cast<float>(half(nan))));
  CHECK(std::isnan(static_cast<float>(bfloat16(nan))));
  CHECK(std::signbit(static_cast<float>(half(-nan))));
  CHECK(std::signbit(static_cast<float>(bfloat16(-nan))));
  // A signalling NaN whose payload sits only in the bits that bfloat16 drops must not become Inf.
  CHECK(is_bfloat16_nan(bfloat16(std::bit_cast<float>(0x7f800001u)).bits));
  CHECK(is_half_nan(half(std::bit_cast<float>(0x7f800001u)).bits));
  CHECK(std::isnan(static_cast<float>(half(std::numeric_limits<double>::quiet_NaN()))));
}

TEST_CASE("double -> half and double -> bfloat16 round once") {
  mismatches to_half, to_bfloat16;
  std::vector<double> inputs = {0.0,
                                -0.0,
                                1e300,
                                -1e300,
                                5e-324,
                                std::numeric_limits<double>::infinity(),
                                0x1.fffffffffffffp127,
                                0x1p128,
                                65519.999999,
                                65520.0,
                                0x1p-25,
                                0x1.0000000001p-25};
  // Just above and below every halfway point: exactly where rounding through float goes wrong.
  for (std::uint32_t bits = 0; bits < 0x7c00u; ++bits) {
    const double low = static_cast<float>(half::from_bits(static_cast<std::uint16_t>(bits)));
    const double high =
        bits + 1 == 0x7c00u ? 65536.0 : static_cast<float>(half::from_bits(static_cast<std::uint16_t>(bits + 1)));
    const double middle = (low + high) / 2;
    inputs.insert(inputs.end(), {middle, middle * (1 + 0x1p-40), middle * (1 - 0x1p-40)});
  }
  for (std::uint32_t bits = 0; bits < 0x7f80u; bits += 7) {
    const double low = static_cast<float>(bfloat16::from_bits(static_cast<std::uint16_t>(bits)));
    const double high = static_cast<float>(bfloat16::from_bits(static_cast<std::uint16_t>(bits + 1)));
    const double middle = (low + high) / 2;
    inputs.insert(inputs.end(), {middle * (1 + 0x1p-40), middle * (1 - 0x1p-40)});
  }
  for (int i = 0; i < 1 << 20; ++i) {
    const auto bits = rng()();
    const std::uint64_t exponent = 1023 - 40 + rng()() % 60;  // 2^-40 .. 2^19
    inputs.push_back(std::bit_cast<double>((bits & 0x800fffffffffffffu) | (exponent << 52)));
    inputs.push_back(std::bit_cast<double>(bits));
  }
  for (const double d : inputs) {
    if (std::isnan(d)) continue;
    for (const double s : {d, -d}) {
      to_half.check(s, half(s).bits, gcc_half_bits(s), is_half_nan);
      to_bfloat16.check(s, bfloat16(s).bits, reference_bfloat16_bits(s), is_bfloat16_nan);
    }
  }
  MESSAGE("double conversions compared on ", to_half.checked, " inputs");
  CHECK_MESSAGE(to_half.count == 0, to_half.examples);
  CHECK_MESSAGE(to_bfloat16.count == 0, to_bfloat16.examples);
}

TEST_CASE("64-bit and 32-bit integers -> half and bfloat16 round once") {
  mismatches to_half, to_bfloat16, from_int32;
  std::vector<std::int64_t> inputs = {0,
                                      1,
                                      -1,
                                      2049,
                                      65504,
                                      65519,
                                      65520,
                                      65535,
                                      (1 << 24) + (1 << 16) + 1,
                                      std::numeric_limits<std::int64_t>::max(),
                                      std::numeric_limits<std::int64_t>::min(),
                                      (std::int64_t{1} << 62) + 1};
  for (int i = 0; i < 1 << 20; ++i) {
    const int width = static_cast<int>(rng()() % 64);  // values of every magnitude
    inputs.push_back(static_cast<std::int64_t>(rng()() >> width));
    inputs.push_back(-static_cast<std::int64_t>(rng()() >> (width + 1)));
  }
  for (const std::int64_t v : inputs) {
    to_half.check(v, half(v).bits, gcc_half_bits(v), is_half_nan);
    to_bfloat16.check(v, bfloat16(v).bits, reference_bfloat16_bits(static_cast<long double>(v)), is_bfloat16_nan);
    const auto narrow = static_cast<std::int32_t>(v);
    from_int32.check(narrow, bfloat16(narrow).bits, reference_bfloat16_bits(narrow), is_bfloat16_nan);
  }
  CHECK_MESSAGE(to_half.count == 0, to_half.examples);
  CHECK_MESSAGE(to_bfloat16.count == 0, to_bfloat16.examples);
  CHECK_MESSAGE(from_int32.count == 0, from_int32.examples);
  CHECK(static_cast<float>(half(std::uint8_t{255})) == 255.0f);
  CHECK(static_cast<float>(bfloat16(true)) == 1.0f);
}
