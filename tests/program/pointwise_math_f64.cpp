// Every unary floating-point function on f64: the CPU executor against the
// oracle, on several shapes.
#include "math.hpp"

using namespace fusedsl_tests;

TEST_CASE("every unary math function on f64 matches the oracle") { check_unary_math_dtype<double, true>(100); }
