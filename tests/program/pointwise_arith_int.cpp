// Arithmetic, maximum/minimum, neg/abs/relu and where on i64, i32, i16, i8,
// u8 and bool, over the whole range of each (so + and * wrap around): the CPU
// executor against the oracle.
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("arithmetic, maximum, minimum, neg, abs, relu and where match the oracle on integer dtypes", T,
                   std::int64_t, std::int32_t, std::int16_t, std::int8_t, std::uint8_t, bool) {
  check_arithmetic<T>();
}
