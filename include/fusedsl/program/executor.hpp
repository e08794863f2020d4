/// @file executor.hpp
/// The hook through which `prog.run(target, ...)` reaches a backend: each
/// backend specialises `executor` for its target type (runtime/target.hpp,
/// runtime/cuda_target.hpp).
#pragma once

namespace fusedsl {

/// Runs programs on `Target`; specialised by each backend.
template <class Target>
struct executor {
  static_assert(sizeof(Target) == 0, "fusedsl: no backend for this target: include <fusedsl/fusedsl.hpp>");
};

}  // namespace fusedsl
