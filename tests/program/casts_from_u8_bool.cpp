// Casts from u8 and bool to every dtype: executor against the oracle, exact.
#include "casts.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("casts from u8 and bool to every dtype match the oracle exactly", From, std::uint8_t, bool) {
  const std::uint64_t seed = 700 + static_cast<std::uint64_t>(fx::dtype_of<From>);
  // Wider than the narrower targets, so that narrowing wraps and f16 overflows to inf.
  const double lo = std::is_same_v<From, bool> || std::is_same_v<From, std::uint8_t>
                        ? 0.0
                        : std::max(-100000.0, static_cast<double>(std::numeric_limits<From>::min()));
  const double hi = std::min(100000.0, static_cast<double>(std::numeric_limits<From>::max()));
  const auto src = random_tensor<From>({3, 7}, seed, lo, hi);
  check_casts_from<From>(src, src);
}
