// Every reduction on f32 and f64 against the oracle (all axes, one axis,
// several axes, kept and dropped, direct and buffered).
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("every reduction of a floating-point tensor matches the oracle", T, float, double) {
  check_float_reductions<T>(800 + static_cast<std::uint64_t>(fx::dtype_of<T>) * 10);
}
