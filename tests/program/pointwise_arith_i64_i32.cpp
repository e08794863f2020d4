// Arithmetic, maximum/minimum, neg/abs/relu and where on i64 and i32: the CPU
// executor against the oracle (integers over their whole range, so + and *
// wrap around).
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("arithmetic, maximum, minimum, neg, abs, relu and where on i64 and i32 match the oracle", T,
                   std::int64_t, std::int32_t) {
  check_arithmetic<T>();
}
