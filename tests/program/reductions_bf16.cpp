// sum, max, min, argmax, argmin, any, all and logsumexp of bf16 (computed in f32, stored in bf16) against
// the oracle.
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("sum, max, min, argmax, argmin, any, all and logsumexp of a bf16 tensor match the oracle") {
  check_common_reductions_of<fx::bfloat16>(830);
}
