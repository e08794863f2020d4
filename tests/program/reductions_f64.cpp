// sum, max, min, argmax, argmin, any, all and logsumexp of f64 against the oracle.
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("sum, max, min, argmax, argmin, any, all and logsumexp of an f64 tensor match the oracle") {
  check_common_reductions_of<double>(810);
}
