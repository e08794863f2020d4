// The softmax-like families of bench_matrix_cpu (cpu.cpp), compiled on their own so that a
// build compiles the parts of the families side by side.
#include "driver.hpp"   // run_family
#include "harness.hpp"  // cpu_harness

namespace matrix {

/// The softmax-like row reductions on the CPU (driver.hpp's family_part).
bool cpu_softmax_part(const workload& w, cpu_harness* h, measurement& m) {
  return run_family(w, h, m, softmax_families{});
}

}  // namespace matrix
