/// @file target.hpp
/// Where a program runs: `prog.run(fx::cpu, ...)`, `fx::cpu.threads(n)`. The CPU backend
/// (backend/cpu/executor.hpp) specialises `executor` for `cpu_target`.
#pragma once
#include <string>  // std::to_string

#include <fusedsl/core/error.hpp>  // fusedsl::error

namespace fusedsl {

/// Runs programs on the CPU with OpenMP.
struct cpu_target {
  /// Runs each fused group of the plan as one kernel; false runs every node
  /// as a loop of its own (for comparison and debugging).
  bool fuse = true;
  /// Threads of the run's parallel loops; 0: OpenMP's (OMP_NUM_THREADS, else the cores).
  int thread_count = 0;

  /// This target with `n` threads per run (0: OpenMP's count), for the calls
  /// that pass it: `prog.run(fx::cpu.threads(4), ...)`. Other calls, and runs
  /// from other threads at the same time, keep their own counts. Throws
  /// `fusedsl::error` for a negative `n`.
  constexpr cpu_target threads(int n) const {
    if (n < 0)
      throw error("fusedsl: fx::cpu.threads(" + std::to_string(n) +
                  "): the thread count must be 0 (OpenMP's count) or more");
    cpu_target t = *this;
    t.thread_count = n;
    return t;
  }
};
/// The CPU target: `prog.run(fx::cpu, bindings...)`.
inline constexpr cpu_target cpu{};
/// The CPU target with fusion turned off: every node is its own loop.
inline constexpr cpu_target cpu_unfused{false};

}  // namespace fusedsl
