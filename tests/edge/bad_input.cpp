// Bad input to the scheduler's entry points: settings no schedule can honour, an unfinished
// graph, unknown node names; each refused with fusedsl::error naming what was wrong.
#include <doctest/doctest.h>

#include <fusedsl/schedule/fuse_nodes.hpp>

#include "schedule/builders.hpp"

namespace fx = fusedsl;
using namespace fx_test;

namespace {
fx::graph two_nodes() {
  fx::graph g;
  g.add_node(pointwise("a", {flat("x", 64)}, {flat("t", 64)}, 64));
  g.add_node(pointwise("b", {flat("t", 64)}, {flat("u", 64)}, 64));
  return g;
}
}  // namespace

TEST_CASE("bad input: fuse_config values no schedule can honour are refused, naming the field") {
  fx::graph g = two_nodes();
  g.finalize();
  auto refused = [&](auto edit, const char* expected) {
    fx::fuse_config c;
    edit(c);
    CHECK_THROWS_WITH_AS(fx::fuse_nodes(g, c), doctest::Contains(expected), fx::error);
    CHECK_THROWS_WITH_AS(fx::check_fusion(g, "a", "b", c), doctest::Contains(expected), fx::error);
  };
  refused([](fx::fuse_config& c) { c.max_rounds = -1; }, "fuse_config.max_rounds: must be at least 0, got -1");
  refused([](fx::fuse_config& c) { c.max_fusion_size = 0; }, "fuse_config.max_fusion_size: must be at least 1, got 0");
  refused([](fx::fuse_config& c) { c.max_fusion_buffer_group_pairwise_attempts = -3; },
          "fuse_config.max_fusion_buffer_group_pairwise_attempts: must be at least 1, got -3");
  refused([](fx::fuse_config& c) { c.max_proximity = -1; }, "fuse_config.max_proximity: must be at least 0, got -1");
  refused([](fx::fuse_config& c) { c.max_fusion_unique_io_buffers = -2; },
          "fuse_config.max_fusion_unique_io_buffers: must be at least 0, got -2");
  refused([](fx::fuse_config& c) { c.min_overlap_ratio = -0.5; }, "fuse_config.min_overlap_ratio: must be at least 0");
  // The edges of the ranges are accepted: no rounds at all, kernels of one node.
  fx::fuse_config none;
  none.max_rounds = 0;
  none.loop_ordering_after_fusion = false;
  CHECK(fx::fuse_nodes(g, none).group_count() == 2);
  fx::fuse_config single;
  single.max_fusion_size = 1;
  CHECK(fx::fuse_nodes(g, single).group_count() == 2);
}

TEST_CASE("bad input: scheduling an unfinished graph and checking unknown nodes") {
  fx::graph g = two_nodes();
  CHECK_THROWS_WITH_AS(fx::fuse_nodes(g), doctest::Contains("fuse_nodes: graph: call finalize() before scheduling"),
                       fx::error);
  g.finalize();
  CHECK_THROWS_WITH_AS(fx::check_fusion(g, "a", "zz"),
                       doctest::Contains("check_fusion: node2: no node or foreach group named zz"), fx::error);
  CHECK_THROWS_WITH_AS(fx::check_fusion(g, "q", "b"),
                       doctest::Contains("check_fusion: node1: no node or foreach group named q"), fx::error);
  g.add_node(pointwise("c", {flat("u", 64)}, {flat("v", 64)}, 64));  // changed after finalize: unfinished again
  CHECK_FALSE(g.finalized());
  CHECK_THROWS_AS(fx::fuse_nodes(g), fx::error);
}

TEST_CASE("bad input: index formulas whose arithmetic overflows are not evaluable (no undefined behaviour)") {
  // Found by the loader fuzzer under UBSan: a dump's index "99999999999999999999" overflowed int64.
  for (const char* text :
       {"99999999999999999999", "9223372036854775807 + 1", "-9223372036854775807 - 2", "4611686018427387904*2", "2**63",
        "Abs(-9223372036854775807 - 1)", "(-9223372036854775807 - 1)//(-1)", "Mod(-9223372036854775807 - 1, -1)",
        "4611686018427387904*d0"}) {
    INFO("index ", text);
    const auto info = fx::detail::analyse_index(text, 1);
    CHECK_FALSE(info.affine);
  }
  const auto big = fx::detail::analyse_index("9223372036854775807", 0);
  CHECK(big.evaluable);
  CHECK(big.offset == 9223372036854775807);
  // In a graph: such a dep is kept, not analysed as affine, and scheduling still works.
  fx::graph g;
  g.add_node(pointwise("a", {fx::memory_dep("x", "99999999999999999999*d0", {64}, 256)}, {flat("t", 64)}, 64));
  g.add_node(pointwise("b", {flat("t", 64)}, {flat("u", 64)}, 64));
  g.finalize();
  CHECK(fx::fuse_nodes(g).group_count() >= 1);
}
