// Arithmetic, maximum/minimum, neg/abs/relu and where on u8 and bool: the CPU
// executor against the oracle (integers over their whole range, so + and *
// wrap around).
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("arithmetic, maximum, minimum, neg, abs, relu and where on u8 and bool match the oracle", T,
                   std::uint8_t, bool) {
  check_arithmetic<T>();
}
