/// @file target.hpp
/// Where a program runs: `prog.run(fx::cpu, ...)`. Each backend specialises
/// `executor` for its target type.
#pragma once

namespace fusedsl {

/// Runs programs on the CPU with OpenMP.
struct cpu_target {
  /// Runs each fused group of the plan as one kernel; false runs every node
  /// as a loop of its own (for comparison and debugging).
  bool fuse = true;
};
/// The CPU target: `prog.run(fx::cpu, bindings...)`.
inline constexpr cpu_target cpu{};
/// The CPU target with fusion turned off: every node is its own loop.
inline constexpr cpu_target cpu_unfused{false};

/// Runs programs on `Target`; specialised by each backend.
template <class Target>
struct executor {
  static_assert(sizeof(Target) == 0, "fusedsl: no backend for this target: include <fusedsl/fusedsl.hpp>");
};

}  // namespace fusedsl
