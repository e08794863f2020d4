// Comparisons on i64, i32, i16, i8, u8 and bool: the CPU executor against
// the oracle, and == against the values themselves.
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("all comparisons on i64 and i32 match the oracle and give bool", T, std::int64_t, std::int32_t) {
  check_comparisons<T, true>();
}
TEST_CASE_TEMPLATE("comparisons on i16, i8, u8 and bool match the oracle and give bool", T, std::int16_t, std::int8_t,
                   std::uint8_t, bool) {
  check_comparisons<T, false>();
}
