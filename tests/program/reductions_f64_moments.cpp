// mean, var, std, prod and argmax with ties of f64 against the oracle.
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("mean, var, std, prod and argmax with ties of an f64 tensor match the oracle") {
  check_float_only_reductions<double>(815);
}
