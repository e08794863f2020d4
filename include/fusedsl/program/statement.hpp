/// @file statement.hpp
/// A statement: `target = value`, the unit of a program.
#pragma once
#include <fusedsl/expr/expression.hpp>  // expression

namespace fusedsl {

/// Writes `value` to the placeholder `target` (broadcast to the target's
/// shape). Built by the placeholder's `=`, `+=`, `-=`, `*=` and `/=`.
template <class Target, expression Value>
struct assign {
  using target_type = Target;
  using value_type = Value;
  Target target;
  Value value;
};

}  // namespace fusedsl
