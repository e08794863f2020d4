// Arithmetic, maximum/minimum, neg/abs/relu and where on i16 and i8: the CPU
// executor against the oracle (integers over their whole range, so + and *
// wrap around).
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("arithmetic, maximum, minimum, neg, abs, relu and where on i16 and i8 match the oracle", T,
                   std::int16_t, std::int8_t) {
  check_arithmetic<T>();
}
