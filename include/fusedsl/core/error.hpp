/// @file error.hpp
/// The one exception type fusedsl throws for bad input found at run time.
#pragma once
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
