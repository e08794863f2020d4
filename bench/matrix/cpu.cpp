// bench_matrix_cpu: the performance matrix on the CPU (bench/matrix/README.md). Each cell
// of the workload list runs its fusedsl program on the shared inputs, is checked against
// the oracle, then timed; one markdown table (and --tsv rows) of median ms, GB/s and % of
// a parallel copy loop measured in the same run. Exits 1 if any check fails.
//
//   bench_matrix_cpu [--quick] [--check] [--family NAME] [--reps N] [--list FILE] [--tsv FILE] [--cells]
//
// Threads: OMP_NUM_THREADS (pin with taskset and OMP_PROC_BIND for fair comparisons). This
// file compiles the pointwise families; cpu_softmax.cpp and cpu_reductions.cpp the row and
// column ones.
#include "driver.hpp"   // run_matrix, run_family
#include "harness.hpp"  // cpu_harness

namespace matrix {

/// The pointwise families on the CPU (driver.hpp's family_part).
bool cpu_pointwise_part(const workload& w, cpu_harness* h, measurement& m) {
  return run_family(w, h, m, pointwise_families{});
}
/// The softmax-like families on the CPU (cpu_softmax.cpp).
bool cpu_softmax_part(const workload& w, cpu_harness* h, measurement& m);
/// The other row and the column reductions on the CPU (cpu_reductions.cpp).
bool cpu_reduction_part(const workload& w, cpu_harness* h, measurement& m);

}  // namespace matrix

int main(int argc, char** argv) {
  return matrix::run_matrix<matrix::cpu_harness>(argc, argv, "bench_matrix_cpu",
                                                 [](bool check_only, int reps) {
                                                   return matrix::cpu_harness(check_only, reps > 0 ? reps : 20);
                                                 },
                                                 {&matrix::cpu_pointwise_part, &matrix::cpu_softmax_part,
                                                  &matrix::cpu_reduction_part});
}
