// Every reduction on i32 and i64 against the oracle (exact: sum and prod
// accumulate in i64 and wrap around identically).
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("every reduction of an integer tensor matches the oracle exactly", T, std::int32_t,
                   std::int64_t) {
  check_integer_reductions<T>(850 + static_cast<std::uint64_t>(fx::dtype_of<T>) * 10);
}
