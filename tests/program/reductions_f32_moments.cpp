// mean, var, std, prod and argmax with ties of f32 against the oracle.
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("mean, var, std, prod and argmax with ties of an f32 tensor match the oracle") {
  check_float_only_reductions<float>(805);
}
