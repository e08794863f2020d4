// Binary floating-point functions (pow, division, maximum, minimum, and on f32
// atan2, hypot, fmod, % and fma) on f64, f32, f16 and bf16: the CPU executor
// against the oracle.
#include "math.hpp"

using namespace fusedsl_tests;

TEST_CASE("binary floating-point functions on f32 match the oracle") {
  check_binary_math<float, true>(200 + static_cast<std::uint64_t>(fx::dtype_of<float>));
}

// f64, f16 and bf16: a subset (compile time; the same code at other compute types).
TEST_CASE_TEMPLATE("binary floating-point functions on f64, f16 and bf16 match the oracle", T, double, fx::half,
                   fx::bfloat16) {
  check_binary_math<T, false>(200 + static_cast<std::uint64_t>(fx::dtype_of<T>));
}
