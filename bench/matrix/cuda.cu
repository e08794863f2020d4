// bench_matrix_cuda: the performance matrix on a CUDA device (bench/matrix/README.md),
// from the same workload list and families as bench_matrix_cpu, timed as peers.py times
// torch (cuda_harness.hpp). Exits 1 if any check fails.
//
//   bench_matrix_cuda [--quick] [--check] [--family NAME] [--reps N] [--list FILE] [--tsv FILE]
#include "cuda_harness.hpp"  // cuda_harness
#include "driver.hpp"        // run_matrix

namespace matrix {

/// The pointwise families, the softmax-like ones, then the other row and the column reductions, on CUDA (driver.hpp's
/// family_part).
bool cuda_pointwise_part(const workload& w, cuda_harness* h, measurement& m) {
  return run_family(w, h, m, pointwise_families{});
}
bool cuda_softmax_part(const workload& w, cuda_harness* h, measurement& m) {
  return run_family(w, h, m, softmax_families{});
}
bool cuda_reduction_part(const workload& w, cuda_harness* h, measurement& m) {
  return run_family(w, h, m, reduction_families{});
}

}  // namespace matrix

int main(int argc, char** argv) {
  return matrix::run_matrix<matrix::cuda_harness>(argc, argv, "bench_matrix_cuda", &matrix::make_cuda_harness,
                                                  {&matrix::cuda_pointwise_part, &matrix::cuda_softmax_part,
                                                   &matrix::cuda_reduction_part});
}
