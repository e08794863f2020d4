// fuse_nodes as a whole: greedy order, remapping to fused nodes, the cycle check,
// the 64-partner window, the round limit, plans, and replacing the policy.
#include <doctest/doctest.h>

#include <algorithm>

#include <fusedsl/schedule/fuse_nodes.hpp>

#include "builders.hpp"

using namespace fx_test;
namespace fx = fusedsl;
using fx::why_no_fuse;

namespace {
constexpr std::int64_t N = 1024;

fx::graph finalized(std::vector<node_spec> nodes, std::vector<std::string> outputs = {}) {
  fx::graph g;
  for (auto& n : nodes) g.add_node(std::move(n));
  for (auto& o : outputs) g.add_output(std::move(o));
  g.finalize();
  return g;
}
dep_spec scalar(std::string buf, std::int64_t bytes) { return fx::memory_dep(std::move(buf), "0", {}, bytes); }
std::string joined(const fx::plan& p, std::span<const int> nodes) {
  std::string s;
  for (int n : nodes) s += (s.empty() ? "" : "_") + p.node_names[static_cast<std::size_t>(n)];
  return s;
}
}  // namespace

TEST_CASE("greedy order: fusing (A,B) first turns the later (B,C) into (AB,C)") {
  // A -> B moves 8x more bytes than B -> C, so (A,B) scores above (B,C).
  auto g = finalized({pointwise("A", {flat("x", N)}, {flat("a", 8 * N)}, N),
                      pointwise("B", {flat("a", 8 * N)}, {flat("b", N)}, N),
                      pointwise("C", {flat("b", N)}, {flat("c", N)}, N)},
                     {"c"});
  auto p = fx::fuse_nodes(g);
  REQUIRE(p.rounds.size() >= 1);
  const auto& r = p.rounds[0];
  REQUIRE(r.candidates.size() == 2);
  CHECK(joined(p, r.members(r.candidates[0].node1)) == "A");
  CHECK(joined(p, r.members(r.candidates[0].node2)) == "B");
  CHECK(r.candidates[0].outcome == why_no_fuse::none);
  const auto& bc = r.candidates[1];
  CHECK(joined(p, r.members(bc.node1)) == "B");
  CHECK(bc.remapped);
  CHECK(joined(p, bc.tried1) == "A_B");
  CHECK(joined(p, bc.tried2) == "C");
  CHECK(bc.outcome == why_no_fuse::none);
  REQUIRE(p.groups.size() == 1);
  CHECK(p.groups[0].names == std::vector<std::string>{"A", "B", "C"});
  // Only the output leaves the kernel.
  CHECK(p.groups[0].materialized == std::vector<int>{g.find_buffer("c")});
  CHECK(p.groups[0].kernel_local.size() == 2);
}

TEST_CASE("the cycle check refuses a fusion that would go around a fused node") {
  // B and D fuse first (they share z, the largest buffer). Then A and C (sharing x) can
  // no longer fuse: A -> B, B~D, D -> C would put BD both after A and before C.
  auto g = finalized({pointwise("A", {flat("x", 1 << 18)}, {flat("a", N)}, N),
                      pointwise("B", {flat("a", N), scalar("z", 1 << 26)}, {flat("b", N)}, N),
                      pointwise("D", {scalar("z", 1 << 26)}, {flat("d", N)}, N),
                      pointwise("C", {flat("x", 1 << 18), flat("d", N)}, {flat("c", N)}, N)},
                     {"b", "c"});
  auto p = fx::fuse_nodes(g);
  const auto& r = p.rounds[0];
  REQUIRE(r.candidates.size() >= 2);
  CHECK(joined(p, r.members(r.candidates[0].node1)) == "B");
  CHECK(r.candidates[0].outcome == why_no_fuse::none);
  CHECK(joined(p, r.members(r.candidates[1].node1)) == "A");
  CHECK(joined(p, r.members(r.candidates[1].node2)) == "C");
  CHECK(r.candidates[1].outcome == why_no_fuse::cycle);
}

TEST_CASE("each node is paired with at most the next 64 nodes of a bucket") {
  // 70 readers of x and nothing else in common: bucket x has 70 nodes.
  std::vector<node_spec> nodes;
  for (int i = 0; i < 70; ++i) nodes.push_back(pointwise(name("n", i), {flat("x", N)}, {flat(name("o", i), N)}, N));
  std::vector<std::string> outs;
  for (int i = 0; i < 70; ++i) outs.push_back(name("o", i));
  auto g = finalized(std::move(nodes), outs);
  fx::fuse_config cfg;
  cfg.record_rejected = true;
  auto p = fx::fuse_nodes(g, cfg);
  // sum over i of min(64, 69 - i) pairs.
  CHECK(p.rounds[0].pairs_examined == 6 * 64 + 63 * 64 / 2);
  for (const auto& c : p.rounds[0].candidates) CHECK(c.node2 - c.node1 <= 64);
  for (const auto& x : p.rounds[0].rejected) CHECK(x.node2 - x.node1 <= 64);
  // Fusion stops at 64 nodes per kernel.
  for (const auto& grp : p.groups) CHECK(grp.nodes.size() <= 64);
  fx::fuse_config wide = cfg;
  wide.max_fusion_buffer_group_pairwise_attempts = 100;
  CHECK(fx::fuse_nodes(g, wide).rounds[0].pairs_examined == 70 * 69 / 2);
}

TEST_CASE("pairs are examined as Inductor meets them: bucket after bucket, each pair once") {
  // Buckets in order of first use: x = [A, C, D], then z = [B, C, D]. Inductor examines
  // (A,C), (A,D), (C,D) in x, then (B,C), (B,D) in z, where (C,D) is not examined again;
  // taken node by node, (B,*) would come before (C,D). Nodes of different sizes: every
  // pair is refused, so the refusals show the order.
  auto g = finalized({pointwise("A", {flat("x", N)}, {flat("a", N)}, N),
                      pointwise("B", {flat("z", 2 * N)}, {flat("b", 2 * N)}, 2 * N),
                      pointwise("C", {flat("x", N), flat("z", 2 * N)}, {flat("c", 3 * N)}, 3 * N),
                      pointwise("D", {flat("x", N), flat("z", 2 * N)}, {flat("d", 5 * N)}, 5 * N)},
                     {"a", "b", "c", "d"});
  fx::fuse_config cfg;
  cfg.record_rejected = true;
  auto p = fx::fuse_nodes(g, cfg);
  const auto& r = p.rounds[0];
  CHECK(r.pairs_examined == 5);
  CHECK(r.candidates.empty());
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& x : r.rejected) order.push_back({joined(p, r.members(x.node1)), joined(p, r.members(x.node2))});
  CHECK(order ==
        std::vector<std::pair<std::string, std::string>>{{"A", "C"}, {"A", "D"}, {"C", "D"}, {"B", "C"}, {"B", "D"}});
}

TEST_CASE("fuse_nodes stops after 10 rounds, when nothing changes, or at one node") {
  // M0+M1 fuse in round 1. Y_k shares 5 bytes with M0 and 5 with Y_{k-1}: only once both
  // are in one kernel does it reach the 10-byte threshold, so each round adds one Y.
  std::vector<node_spec> nodes{pointwise("M0", {flat("x", N)}, {flat("m0", N)}, N),
                               pointwise("M1", {flat("x", N), scalar("s", 5)}, {flat("m1", N)}, N)};
  std::vector<std::string> outs{"m0", "m1"};
  const int ys = 12;
  for (int k = 1; k <= ys; ++k) {
    std::string ks = std::to_string(k);
    nodes[0].reads.push_back(scalar("p" + ks, 5));
    std::vector<dep_spec> reads{scalar("p" + ks, 5), scalar(k == 1 ? std::string("s") : "link" + ks, 5)};
    if (k < ys) reads.push_back(scalar(name("link", k + 1), 5));
    nodes.push_back(pointwise("Y" + ks, reads, {flat("y" + ks, N)}, N));
    outs.push_back("y" + ks);
  }
  auto g = finalized(std::move(nodes), outs);

  fx::fuse_config no_reorder;
  no_reorder.loop_ordering_after_fusion = false;
  auto p = fx::fuse_nodes(g, no_reorder);
  CHECK(p.rounds.size() == 10);
  for (int r = 0; r < 10; ++r) CHECK(p.rounds[static_cast<std::size_t>(r)].nodes_after == 2 + ys - 1 - r);
  CHECK(p.groups.size() == 4);  // M0 M1 Y1..Y9, then Y10, Y11, Y12 unfused

  auto q = fx::fuse_nodes(g);  // the extra loop-ordering round fuses one more
  CHECK(q.rounds.size() == 11);
  CHECK(q.rounds.back().reorder_round);
  CHECK(q.groups.size() == 3);

  fx::fuse_config three = no_reorder;
  three.max_rounds = 3;
  CHECK(fx::fuse_nodes(g, three).rounds.size() == 3);

  // A chain fuses to one node in round 1 and stops there.
  auto chain =
      finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N), pointwise("b", {flat("t", N)}, {flat("u", N)}, N)},
                {"u"});
  CHECK(fx::fuse_nodes(chain, no_reorder).rounds.size() == 1);
  // Nothing fusable: one round, no change, stop.
  auto apart =
      finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N), pointwise("b", {flat("y", N)}, {flat("u", N)}, N)},
                {"t", "u"});
  CHECK(fx::fuse_nodes(apart, no_reorder).rounds.size() == 1);
}

namespace {
// A user policy: Inductor's rules, but nothing may fuse with a node named "keep".
struct keep_apart : fx::inductor_policy {
  template <class S>
  constexpr why_no_fuse can_fuse(const S& s, int a, int b, std::int64_t shared) const {
    for (int x : {a, b})
      for (int m : s.node(x).members)
        if (s.source().node(m).name == "keep") return why_no_fuse::policy;
    return fx::inductor_policy::can_fuse(s, a, b, shared);
  }
};
}  // namespace

TEST_CASE("the fusion policy is replaceable") {
  auto g = finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N),
                      pointwise("keep", {flat("t", N)}, {flat("u", N)}, N),
                      pointwise("c", {flat("u", N)}, {flat("v", N)}, N)},
                     {"v"});
  CHECK(fx::fuse_nodes(g).group_count() == 1);
  auto p = fx::fuse_nodes(g, {}, keep_apart{});
  CHECK(p.group_count() == 3);
  CHECK(fx::check_fusion(g, "a", "keep", {}, keep_apart{}) == why_no_fuse::policy);
}

TEST_CASE("mutation: an in-place update is scheduled after every reader of the old value") {
  // Two readers of x (r1 reads it shifted, so it cannot fuse with the update), then m
  // updates x in place, then a reader of the new value.
  auto g = finalized(
      {pointwise("r1", {fx::memory_dep("x", "d0 + 1", {N - 1}, 4 * N)}, {flat("a", N - 1)}, N - 1),
       pointwise("r2", {flat("x", N)}, {flat("b", N)}, N),
       pointwise("m", {fx::star_dep("x", 4 * N), flat("b", N), fx::weak_dep("a", "m_out"), fx::weak_dep("b", "m_out")},
                 {flat("m_out", N)}, N),
       pointwise("after", {flat("m_out", N)}, {flat("z", N)}, N)},
      {"a", "z"});
  auto p = fx::fuse_nodes(g);
  auto pos = [&](const char* name) {
    int id = g.find_node(name);
    for (std::size_t i = 0; i < p.groups.size(); ++i)
      if (std::find(p.groups[i].nodes.begin(), p.groups[i].nodes.end(), id) != p.groups[i].nodes.end())
        return static_cast<int>(i);
    return -1;
  };
  CHECK(pos("r1") < pos("m"));
  CHECK(pos("r2") <= pos("m"));
  CHECK(pos("m") <= pos("after"));
  // r2 reads x at the updated index: it fuses with the update; r1 does not.
  CHECK(pos("r2") == pos("m"));
  CHECK(pos("r1") != pos("m"));
}

TEST_CASE("the loop-reordering round permutes a producer's loops to match a transposed consumer") {
  // A writes y row-major over (64, 128); B reads y transposed over its (128, 64) loops.
  auto g = finalized({pointwise("A", {fx::memory_dep("x", "128*d0 + d1", {64, 128}, 32768)},
                                {fx::memory_dep("y", "128*d0 + d1", {64, 128}, 32768)}, 8192),
                      pointwise("B", {fx::memory_dep("y", "d0 + 128*d1", {128, 64}, 32768)},
                                {fx::memory_dep("z", "64*d0 + d1", {128, 64}, 32768)}, 8192)},
                     {"z"});
  // No dep matches as given: the regular rounds find nothing to fuse.
  CHECK(fx::check_fusion(g, "A", "B") == why_no_fuse::no_shared_data);
  fx::fuse_config no_reorder;
  no_reorder.loop_ordering_after_fusion = false;
  CHECK(fx::fuse_nodes(g, no_reorder).group_count() == 2);
  auto p = fx::fuse_nodes(g);
  REQUIRE(p.group_count() == 1);
  CHECK(p.rounds.back().reorder_round);
  CHECK(p.rounds.back().candidates.size() == 1);
  CHECK(p.rounds.back().candidates[0].outcome == why_no_fuse::none);
}

TEST_CASE("loop reordering renames the variables of a producer's non-affine reads") {
  // A GPT backward's bias gradient: P gathers q, k and v slices through ModularIndexing and
  // writes y over (8, 128, 768); R sums y over the 128 positions, reading it transposed
  // over (8, 768, 128). Inductor reorders P's loops, reads included, and fuses the two.
  const char* gather = "32768*d0 + 64*d1 + (ModularIndexing((d2), 1, 64)) + 8192*(ModularIndexing((d2), 64, 4))";
  auto g = finalized({pointwise("P", {fx::memory_dep("qkv", gather, {8, 128, 768}, 3145728)},
                                {fx::memory_dep("y", "98304*d0 + 768*d1 + d2", {8, 128, 768}, 3145728)}, 786432),
                      reduction("R", {fx::memory_dep("y", "98304*d0 + d1 + 768*d2", {8, 768, 128}, 3145728)},
                                {fx::memory_dep("z", "768*d0 + d1", {8, 768}, 24576)}, 6144, 128)},
                     {"z"});
  CHECK(fx::check_fusion(g, "P", "R") == why_no_fuse::no_shared_data);
  auto p = fx::fuse_nodes(g);
  REQUIRE(p.group_count() == 1);
  CHECK(p.rounds.back().reorder_round);
  // A read over two of the three loops that names a third "d2", which is not one of its
  // variables: renaming could make it one, so P's loops stay as they are.
  auto opaque = finalized({pointwise("P", {fx::memory_dep("qkv", "d0 + ModularIndexing(d2, 1, 64)", {8, 128}, 4096)},
                                     {fx::memory_dep("y", "98304*d0 + 768*d1 + d2", {8, 128, 768}, 3145728)}, 786432),
                           reduction("R", {fx::memory_dep("y", "98304*d0 + d1 + 768*d2", {8, 768, 128}, 3145728)},
                                     {fx::memory_dep("z", "768*d0 + d1", {8, 768}, 24576)}, 6144, 128)},
                          {"z"});
  CHECK(fx::fuse_nodes(opaque).group_count() == 2);
}
