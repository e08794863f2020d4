// Casts from f16 and bf16 to every dtype: executor against the oracle, exact.
#include "casts.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("casts from f16 and bf16 to every dtype match the oracle exactly", From, fx::half, fx::bfloat16) {
  const std::uint64_t seed = 600 + static_cast<std::uint64_t>(fx::dtype_of<From>);
  // [-100, 100) fits every signed integer dtype; fractions test truncation toward zero.
  check_casts_from<From>(random_tensor<From>({3, 7}, seed, -100.0, 100.0),
                         random_tensor<From>({3, 7}, seed + 1, 0.0, 200.0));
}
