/// @file target.hpp
/// Where a program runs: `prog.run(fx::cpu, ...)`. The CPU backend
/// (backend/cpu/executor.hpp) specialises `executor` for `cpu_target`.
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

}  // namespace fusedsl
