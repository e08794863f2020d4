// Compiled by the C++ compiler, so that it builds without CUDA: the workloads
// the benchmark requires to be one kernel are one kernel, decided at compile
// time (nvcc folds plans too, docs/limits.md "Compile time").
#include "programs.hpp"

namespace fx = fusedsl;
static_assert(fx::kernel_count(bench_cuda::softmax) == 1, "softmax is one kernel");
static_assert(fx::kernel_count(bench_cuda::layernorm) == 1, "layernorm is one kernel");
static_assert(fx::kernel_count(bench_cuda::rmsnorm) == 1, "rmsnorm is one kernel");
static_assert(fx::kernel_count(bench_cuda::horizontal) == 1, "the horizontal case is one kernel");
static_assert(fx::kernel_count(bench_cuda::adam) == 1, "adam is one kernel");

int main() { return 0; }
