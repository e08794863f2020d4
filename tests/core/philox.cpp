// Philox-4x32-10 against the published known-answer vectors (Random123's
// kat_vectors), and the uniform floats made from it: range, mean, variance
// and a chi-square over 64 bins.
#include <cmath>    // std::sqrt
#include <cstdint>  // std::uint32_t
#include <vector>   // std::vector

#include <doctest/doctest.h>

#include <fusedsl/core/philox.hpp>

namespace px = fusedsl::philox;

TEST_CASE("philox4x32_10 gives Random123's known answers") {
  struct vector {
    px::words counter;
    std::uint32_t key0, key1;
    px::words expected;
  };
  const vector vectors[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const vector& v : vectors) {
    const px::words got = px::philox4x32_10(v.counter, v.key0, v.key1);
    for (int i = 0; i < 4; ++i) CHECK(got.w[i] == v.expected.w[i]);
  }
  // Also while compiling: the same function serves constant evaluation.
  static_assert(px::philox4x32_10({{0, 0, 0, 0}}, 0, 0).w[0] == 0x6627e8d5u);
}

TEST_CASE("uniform floats from philox: at least 0 and below 1, mean 1/2, variance 1/12, chi-square over 64 bins") {
  const int n = 1 << 20, bins = 64;
  std::vector<int> count(bins, 0);
  double sum = 0, squares = 0;
  bool in_range = true;
  for (int i = 0; i < n; ++i) {
    const float u = px::uniform(px::draw(1234, 0, static_cast<std::uint64_t>(i)).w[0]);
    in_range = in_range && u >= 0.0f && u < 1.0f;
    if (!in_range) break;
    sum += u, squares += double(u) * u;
    ++count[static_cast<int>(u * bins)];
  }
  REQUIRE(in_range);
  const double mean = sum / n, variance = squares / n - mean * mean;
  CHECK(std::abs(mean - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
  CHECK(std::abs(variance - 1.0 / 12) < 1e-3);
  double chi2 = 0;
  for (int c : count) chi2 += (c - double(n) / bins) * (c - double(n) / bins) / (double(n) / bins);
  CHECK(chi2 < 110.0);  // 63 degrees of freedom: P(chi2 > 110) < 2e-4
  // Streams: another seed, or the same seed at another offset, gives other values.
  CHECK(px::draw(1234, 0, 5).w[0] != px::draw(1235, 0, 5).w[0]);
  CHECK(px::draw(1234, 0, 5).w[0] == px::draw(1234, 5, 0).w[0]);
}
