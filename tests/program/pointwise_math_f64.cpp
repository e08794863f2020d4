// Unary floating-point functions on f64: the CPU executor against the oracle,
// on several shapes. A subset, as for f16 and bf16 (compile time): f64 differs
// from f32 in the compute type the same code is instantiated at, and
// tests/backend/vector_math.cpp checks the f64 functions' accuracy.
#include "math.hpp"

using namespace fusedsl_tests;

TEST_CASE("unary math functions on f64 match the oracle") { check_unary_math_dtype<double, false>(100); }
