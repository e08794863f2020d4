/// @file error.hpp
/// The one exception type fusedsl throws for bad input found at run time.
#pragma once
// Bad input found at run time is thrown; without exceptions it would have nowhere to go.
#if !defined(__cpp_exceptions) && !defined(_CPPUNWIND) && !defined(__CUDA_ARCH__)
#  error "fusedsl reports bad input by throwing fusedsl::error: build with exceptions (not -fno-exceptions)"
#endif
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string

namespace fusedsl {

/// Thrown for misuse detected at run time (shape mismatch, wrong dtype or rank,
/// unbound placeholder, malformed graph file, ...). The message names the
/// offending argument and says what was expected.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace fusedsl
