// Every reduction on bf16 (computed in f32, stored in bf16) and on bool
// against the oracle.
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("every reduction of a bf16 tensor matches the oracle") { check_float_reductions<fx::bfloat16>(830); }

TEST_CASE("every reduction of a bool tensor matches the oracle") { check_integer_reductions<bool>(840); }
