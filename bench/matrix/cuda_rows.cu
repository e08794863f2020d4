// bench_matrix_cuda_rows: bench_matrix_cuda with the row families only (the softmax-like
// ones, the norms and the other row reductions), for work on the row kernels: a fraction of
// the full build's compile, the same harness. Give it their cells (--list FILE or --family).
//
//   bench_matrix_cuda_rows [--check] [--family NAME] [--reps N] [--list FILE] [--tsv FILE]
#include "cuda_harness.hpp"  // cuda_harness
#include "driver.hpp"        // run_matrix

namespace matrix {

/// The softmax-like families, then the norms and the other row reductions (driver.hpp's family_part).
bool cuda_row_part(const workload& w, cuda_harness* h, measurement& m) {
  return run_family(w, h, m, concat_t<softmax_families, row_reduction_families>{});
}

}  // namespace matrix

int main(int argc, char** argv) {
  return matrix::run_matrix<matrix::cuda_harness>(argc, argv, "bench_matrix_cuda_rows", &matrix::make_cuda_harness,
                                                  {&matrix::cuda_row_part});
}
