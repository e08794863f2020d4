// The scheduler in constant evaluation under nvcc: the same static_asserts as
// constexpr.cpp, compiled as CUDA (device code is not involved; the host compiler
// front end of nvcc must accept the constexpr scheduler).
#include <doctest/doctest.h>

#include <fusedsl/schedule/fuse_nodes.hpp>

#include "builders.hpp"

namespace {

constexpr int softmax_kernels_cuda() {
  namespace fx = fusedsl;
  using namespace fx_test;
  fx::graph g;
  g.add_node(row_reduce("amax", "x", "mx", 1024, 4096));
  g.add_node(row_reduce("sum", "x", "sm", 1024, 4096));
  g.add_node(pointwise("div",
                       {fx::memory_dep("x", "4096*d0 + d1", {1024, 4096}, 1 << 24),
                        fx::memory_dep("mx", "d0", {1024}, 4096), fx::memory_dep("sm", "d0", {1024}, 4096)},
                       {fx::memory_dep("y", "4096*d0 + d1", {1024, 4096}, 1 << 24)}, 1024 * 4096));
  g.add_output("y");
  g.finalize();
  return fx::kernel_count(g);
}

static_assert(softmax_kernels_cuda() == 1, "softmax is one kernel, also under nvcc");

}  // namespace

TEST_CASE("nvcc accepts the constexpr scheduler") { CHECK(softmax_kernels_cuda() == 1); }
