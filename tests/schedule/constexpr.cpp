// The scheduler runs in constant evaluation: a graph built and scheduled inside a
// constexpr function, checked with static_assert.
#include <doctest/doctest.h>

#include <fusedsl/schedule/fuse_nodes.hpp>

#include "builders.hpp"

namespace fx = fusedsl;
using namespace fx_test;

namespace {

// softmax over rows of a 1024 x 4096 input: max and sum reductions, then one pointwise node.
constexpr fx::graph softmax_graph() {
  fx::graph g;
  g.add_node(row_reduce("amax", "x", "mx", 1024, 4096));
  g.add_node(row_reduce("sum", "x", "sm", 1024, 4096));
  g.add_node(pointwise("div",
                       {fx::memory_dep("x", "4096*d0 + d1", {1024, 4096}, 1 << 24),
                        fx::memory_dep("mx", "d0", {1024}, 4096), fx::memory_dep("sm", "d0", {1024}, 4096)},
                       {fx::memory_dep("y", "4096*d0 + d1", {1024, 4096}, 1 << 24)}, 1024 * 4096));
  g.add_output("y");
  g.finalize();
  return g;
}

constexpr int softmax_kernels() { return fx::kernel_count(softmax_graph()); }

// Two row reductions of different widths cannot share a kernel.
constexpr int mismatched_kernels() {
  fx::graph g;
  g.add_node(row_reduce("a", "x", "s1", 1024, 4096));
  g.add_node(row_reduce("b", "x", "s2", 2048, 2048));
  g.add_output("s1");
  g.add_output("s2");
  g.finalize();
  return fx::kernel_count(g);
}

constexpr bool softmax_materializes_only_output() {
  auto g = softmax_graph();
  auto p = fx::fuse_nodes(g);
  return p.groups.size() == 1 && p.groups[0].materialized.size() == 1 &&
         g.buffer_name(p.groups[0].materialized[0]) == "y" && p.groups[0].kernel_local.size() == 2;
}

constexpr fx::why_no_fuse order_reason() { return fx::check_fusion(softmax_graph(), "div", "amax"); }

static_assert(softmax_kernels() == 1, "softmax is one kernel");
static_assert(mismatched_kernels() == 2);
static_assert(softmax_materializes_only_output());
static_assert(order_reason() == fx::why_no_fuse::order);

}  // namespace

TEST_CASE("the constexpr results agree with run time") {
  CHECK(fx::kernel_count(softmax_graph()) == softmax_kernels());
  CHECK(fx::kernel_count(softmax_graph()) == 1);
}
