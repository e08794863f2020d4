// Every reduction of i64 against the oracle (exact: prod wraps around identically).
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("every reduction of an i64 tensor matches the oracle exactly") {
  check_integer_reductions<std::int64_t>(860);
}
