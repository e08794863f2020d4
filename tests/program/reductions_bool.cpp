// Every reduction of bool against the oracle (sum and prod in i64).
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("every reduction of a bool tensor matches the oracle exactly") { check_integer_reductions<bool>(840); }
