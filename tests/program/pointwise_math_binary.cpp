// Binary floating-point functions (pow, division, maximum, minimum) on f64,
// f32, f16 and bf16: the CPU executor against the oracle.
#include "math.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("binary floating-point functions on f64 and f32 match the oracle", T, double, float) {
  check_binary_math<T, true>(200 + static_cast<std::uint64_t>(fx::dtype_of<T>));
}

TEST_CASE_TEMPLATE("binary floating-point functions on f16 and bf16 match the oracle", T, fx::half, fx::bfloat16) {
  check_binary_math<T, false>(200 + static_cast<std::uint64_t>(fx::dtype_of<T>));
}
