// Arithmetic, maximum/minimum, neg/abs/relu and where on f64 and f32: the CPU
// executor against the oracle (integers over their whole range, so + and *
// wrap around).
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("arithmetic, maximum, minimum, neg, abs, relu and where on f64 and f32 match the oracle", T, double,
                   float) {
  check_arithmetic<T>();
}
