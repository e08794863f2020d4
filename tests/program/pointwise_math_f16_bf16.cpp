// Unary floating-point functions on f16 and bf16 (computed in f32, stored
// rounded): the CPU executor against the oracle, on several shapes.
#include "math.hpp"

using namespace fusedsl_tests;

TEST_CASE("unary math functions on f16 match the oracle") { check_unary_math_dtype<fx::half, false>(120); }
TEST_CASE("unary math functions on bf16 match the oracle") { check_unary_math_dtype<fx::bfloat16, false>(130); }
