// Comparisons on f64, f32, f16 and bf16: the CPU executor against the oracle,
// and == against the values themselves.
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("all comparisons on f64 and f32 match the oracle and give bool", T, double, float) {
  check_comparisons<T, true>();
}
TEST_CASE_TEMPLATE("comparisons on f16 and bf16 match the oracle and give bool", T, fx::half, fx::bfloat16) {
  check_comparisons<T, false>();
}
