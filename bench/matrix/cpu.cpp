// bench_matrix_cpu: the performance matrix on the CPU (bench/matrix/README.md). Each cell
// of the workload list runs its fusedsl program on the shared inputs, is checked against
// the oracle, then timed; one markdown table (and --tsv rows) of median ms, GB/s and % of
// a parallel copy loop measured in the same run. Exits 1 if any check fails.
//
//   bench_matrix_cpu [--quick] [--check] [--family NAME] [--reps N] [--list FILE] [--tsv FILE]
//
// Threads: OMP_NUM_THREADS (pin with taskset and OMP_PROC_BIND for fair comparisons).
#include <string>  // std::to_string

#include <omp.h>  // omp_get_max_threads

#include "driver.hpp"   // run_matrix
#include "harness.hpp"  // cpu_harness

namespace {

/// The CPU harness, described by its thread count and build.
struct cpu_matrix_harness : matrix::cpu_harness {
  using cpu_harness::cpu_harness;
  std::string describe() const {
    return "the CPU, " + std::to_string(omp_get_max_threads()) + " threads, built " + FUSEDSL_MATRIX_BUILD;
  }
};

}  // namespace

int main(int argc, char** argv) {
  return matrix::run_matrix<cpu_matrix_harness>(argc, argv, "bench_matrix_cpu", [](bool check_only, int reps) {
    return cpu_matrix_harness(check_only, reps > 0 ? reps : 20);
  });
}
