// Every reduction of i32 against the oracle (exact: sum and prod accumulate in i64).
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("every reduction of an i32 tensor matches the oracle exactly") {
  check_integer_reductions<std::int32_t>(850);
}
