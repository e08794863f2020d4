// mean, var, std, prod and argmax with ties of bf16 against the oracle.
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("mean, var, std, prod and argmax with ties of a bf16 tensor match the oracle") {
  check_float_only_reductions<fx::bfloat16>(835);
}
