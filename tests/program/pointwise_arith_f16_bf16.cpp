// Arithmetic, maximum/minimum, neg/abs/relu and where on f16 and bf16: the CPU
// executor against the oracle (integers over their whole range, so + and *
// wrap around).
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("arithmetic, maximum, minimum, neg, abs, relu and where on f16 and bf16 match the oracle", T,
                   fx::half, fx::bfloat16) {
  check_arithmetic<T>();
}
