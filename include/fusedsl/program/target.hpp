/// @file target.hpp
/// Where a program runs: `prog.run(fx::cpu, ...)`. Each backend specialises
/// `executor` for its target type.
#pragma once

namespace fusedsl {

/// Runs programs on the CPU with OpenMP.
struct cpu_target {};
/// The CPU target object: `prog.run(fx::cpu, bindings...)`.
inline constexpr cpu_target cpu{};

/// Runs programs on `Target`; specialised by each backend.
template <class Target>
struct executor {
  static_assert(sizeof(Target) == 0, "fusedsl: no backend for this target: include <fusedsl/fusedsl.hpp>");
};

}  // namespace fusedsl
