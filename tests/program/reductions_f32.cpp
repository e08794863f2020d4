// sum, max, min, argmax, argmin, any, all and logsumexp of f32 against the oracle (all axes kept, last axis
// dropped, axes 0 and 2 through a buffer).
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("sum, max, min, argmax, argmin, any, all and logsumexp of an f32 tensor match the oracle") {
  check_common_reductions_of<float>(800);
}
