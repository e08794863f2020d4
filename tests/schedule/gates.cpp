// One test per can_fuse gate: each builds the smallest graph that trips it and checks
// the reason (Inductor's WhyNoFuse wording).
#include <doctest/doctest.h>

#include <algorithm>  // std::find, std::sort

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
// A scalar read shared by two nodes, `bytes` big (the size hint is what the score uses).
dep_spec scalar(std::string buf, std::int64_t bytes) { return fx::memory_dep(std::move(buf), "0", {}, bytes); }
}  // namespace

TEST_CASE("a fusable pair passes every gate") {
  auto g =
      finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N), pointwise("b", {flat("t", N)}, {flat("u", N)}, N)});
  CHECK(fx::check_fusion(g, "a", "b") == why_no_fuse::none);
}

TEST_CASE("gate: same node") {
  auto g = finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N)});
  CHECK(fx::check_fusion(g, "a", "a") == why_no_fuse::same_node);
}

TEST_CASE("gate: extern and nop nodes never fuse") {
  auto g = finalized({other("mm", node_kind::extern_kernel, {fx::star_dep("x", 4 * N)}, {fx::star_dep("t", 4 * N)}),
                      other("view", node_kind::nop, {fx::star_dep("x", 4 * N)}, {fx::star_dep("v", 4 * N)}),
                      pointwise("p", {flat("t", N)}, {flat("u", N)}, N)});
  CHECK(fx::check_fusion(g, "mm", "p") == why_no_fuse::node1_extern);
  CHECK(fx::check_fusion(g, "view", "p") == why_no_fuse::node1_nop);
  CHECK(fx::check_fusion(g, "p", "mm") == why_no_fuse::node2_extern_or_nop);
  CHECK(std::string(fx::to_string(why_no_fuse::node1_extern)) == "node1 is extern but not a triton kernel");
}

TEST_CASE("gate: node1 must go before node2") {
  auto g =
      finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N), pointwise("b", {flat("t", N)}, {flat("u", N)}, N)});
  CHECK(fx::check_fusion(g, "b", "a") == why_no_fuse::order);
  CHECK(std::string(fx::to_string(why_no_fuse::order)) == "node1 must go before node2");
}

TEST_CASE("gate: templates take pointwise epilogues only") {
  auto g = finalized({other("mm", node_kind::template_kernel, {flat("x", N)}, {flat("t", N)}, N),
                      pointwise("epi", {flat("t", N)}, {flat("u", N)}, N),
                      reduction("red", {flat("t", N)}, {fx::memory_dep("s", "0", {}, 4)}, 1, N),
                      pointwise("pro", {flat("x", N)}, {flat("p", N)}, N),
                      other("mm2", node_kind::template_kernel, {flat("p", N)}, {flat("q", N)}, N),
                      reduction("rpro", {flat("x", N)}, {fx::memory_dep("rp", "0", {}, 4)}, 1, N),
                      other("mm3", node_kind::template_kernel, {flat("x", N), scalar("rp", 4)}, {flat("q3", N)}, N)});
  CHECK(fx::check_fusion(g, "mm", "epi") == why_no_fuse::none);
  CHECK(fx::check_fusion(g, "mm", "red") == why_no_fuse::template_epilogue);
  // Prologues: dumps do not say which template inputs accept them, so none do by default.
  CHECK(fx::check_fusion(g, "pro", "mm2") == why_no_fuse::prologue_inputs);
  CHECK(fx::check_fusion(g, "rpro", "mm3") == why_no_fuse::prologue_not_pointwise);
  fx::fuse_config off;
  off.prologue_fusion = false;
  CHECK(fx::check_fusion(g, "pro", "mm2", off) == why_no_fuse::prologue_off);
  fx::fuse_config on;
  on.template_prologue_inputs = true;
  CHECK(fx::check_fusion(g, "pro", "mm2", on) == why_no_fuse::none);
}

TEST_CASE("gate: device mismatch") {
  auto g = finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N, "cuda:0"),
                      pointwise("b", {flat("x", N)}, {flat("u", N)}, N, "cuda:1")});
  CHECK(fx::check_fusion(g, "a", "b") == why_no_fuse::device_mismatch);
}

TEST_CASE("gate: no shared data (unless aggressive fusion, for pointwise pairs)") {
  auto g =
      finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N), pointwise("b", {flat("y", N)}, {flat("u", N)}, N)});
  CHECK(fx::check_fusion(g, "a", "b") == why_no_fuse::no_shared_data);
  fx::fuse_config aggressive;
  aggressive.aggressive_fusion = true;
  // Past the shared-data gate, a horizontal pair still needs the memory threshold.
  CHECK(fx::check_fusion(g, "a", "b", aggressive) == why_no_fuse::score_threshold);
}

TEST_CASE("gate: exceeds max fusion size") {
  auto g =
      finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N), pointwise("b", {flat("t", N)}, {flat("u", N)}, N)});
  fx::fuse_config small;
  small.max_fusion_size = 1;
  CHECK(fx::check_fusion(g, "a", "b", small) == why_no_fuse::exceeds_max_fusion);
}

TEST_CASE("gate: peak memory guard") {
  // c1 and c2 each read a large single-use buffer of the same shape and share only a
  // small vector: fusing them keeps both large buffers alive at once.
  const std::int64_t big = 1 << 20;
  auto g = finalized({pointwise("p1", {flat("x", big)}, {flat("t1", big)}, big),
                      pointwise("p2", {flat("y", big)}, {flat("t2", big)}, big),
                      pointwise("c1", {flat("t1", big), scalar("bias", 4096)}, {flat("o1", big)}, big),
                      pointwise("c2", {flat("t2", big), scalar("bias", 4096)}, {flat("o2", big)}, big)},
                     {"o1", "o2"});
  CHECK(fx::check_fusion(g, "c1", "c2") == why_no_fuse::peak_memory);
  fx::fuse_config no_guard;
  no_guard.peak_memory_guard = false;
  CHECK(fx::check_fusion(g, "c1", "c2", no_guard) == why_no_fuse::none);
}

TEST_CASE("gate: too many unique input/output buffers (when limited)") {
  auto g = finalized({pointwise("a", {flat("x", N), flat("y", N)}, {flat("t", N)}, N),
                      pointwise("b", {flat("t", N), flat("z", N)}, {flat("u", N)}, N)},
                     {"u"});
  fx::fuse_config cfg;
  cfg.max_fusion_unique_io_buffers = 3;
  CHECK(fx::check_fusion(g, "a", "b", cfg) == why_no_fuse::too_many_io);
  cfg.max_fusion_unique_io_buffers = 4;
  CHECK(fx::check_fusion(g, "a", "b", cfg) == why_no_fuse::none);
}

TEST_CASE("gate (vertical): every read of node2 from node1 must match node1's write index") {
  auto g =
      finalized({pointwise("a", {flat("x", N)}, {flat("t", N)}, N),
                 pointwise("shifted", {flat("x", N), fx::memory_dep("t", "d0 + 1", {N}, 4 * N)}, {flat("u", N)}, N),
                 pointwise("star", {flat("x", N), fx::star_dep("t", 4 * N)}, {flat("v", N)}, N),
                 pointwise("bcast", {flat("x", N), fx::memory_dep("t", "d0", {N, 4}, 16 * N)},
                           {fx::memory_dep("w", "4*d0 + d1", {N, 4}, 16 * N)}, 4 * N)});
  CHECK(fx::check_fusion(g, "a", "shifted") == why_no_fuse::memory_deps_mismatch);
  CHECK(fx::check_fusion(g, "a", "star") == why_no_fuse::memory_deps_mismatch);
  // A broadcasting read (extra trailing loop) still matches the write; the pair then
  // fails only on the backend's numel rule.
  CHECK(fx::check_fusion(g, "a", "bcast") == why_no_fuse::nonreduce_mismatch);
}

TEST_CASE("gate (vertical): no intermediate node between node1 and node2") {
  auto g = finalized({pointwise("a", {flat("x", N)}, {flat("ta", N)}, N),
                      pointwise("b", {flat("ta", N)}, {flat("tb", N)}, N),
                      pointwise("c", {flat("ta", N), flat("tb", N)}, {flat("tc", N)}, N)});
  CHECK(fx::check_fusion(g, "a", "c") == why_no_fuse::intermediate_nodes);
  CHECK(fx::check_fusion(g, "b", "c") == why_no_fuse::none);
}

TEST_CASE("gates that follow dependencies see paths longer than the graph's ancestor window") {
  // n0 -> n1 -> ... -> n(k-1), and "far" reads the input of n0 and the output of the last.
  std::vector<node_spec> nodes;
  const int k = 3000;
  for (int i = 0; i < k; ++i)
    nodes.push_back(pointwise("n" + std::to_string(i), {flat(i == 0 ? "x" : "t" + std::to_string(i - 1), N)},
                              {flat("t" + std::to_string(i), N)}, N));
  nodes.push_back(pointwise("far", {flat("x", N), flat("t" + std::to_string(k - 1), N)}, {flat("u", N)}, N));
  auto g = finalized(nodes);
  REQUIRE(g.ancestor_window() < k);
  CHECK(fx::check_fusion(g, "far", "n0") == why_no_fuse::order);
  CHECK(fx::check_fusion(g, "n0", "far") == why_no_fuse::intermediate_nodes);
  CHECK(fx::check_fusion(g, "n2500", "n0") == why_no_fuse::order);
}

TEST_CASE("gate (horizontal): shared bytes below score_fusion_memory_threshold") {
  auto g = finalized({pointwise("a", {scalar("s", 4), flat("x", N)}, {flat("t", N)}, N),
                      pointwise("b", {scalar("s", 4), flat("y", N)}, {flat("u", N)}, N)});
  CHECK(fx::check_fusion(g, "a", "b") == why_no_fuse::score_threshold);
}

TEST_CASE("gate (horizontal): nodes too far apart") {
  std::vector<node_spec> nodes{pointwise("first", {flat("x", N)}, {flat("t0", N)}, N)};
  for (int i = 0; i < 70; ++i)
    nodes.push_back(pointwise(name("f", i), {flat(name("y", i), N)}, {flat(name("z", i), N)}, N));
  nodes.push_back(pointwise("last", {flat("x", N)}, {flat("t1", N)}, N));
  auto g = finalized(std::move(nodes));
  CHECK(fx::check_fusion(g, "first", "last") == why_no_fuse::too_far);
}

TEST_CASE("gate (backend): reductions need equal (numel, rnumel)") {
  auto g = finalized({row_reduce("r1", "x", "s1", 1024, 4096), row_reduce("r2", "x", "s2", 512, 8192),
                      row_reduce("r3", "x", "s3", 1024, 4096)});
  CHECK(fx::check_fusion(g, "r1", "r3") == why_no_fuse::none);
  // Different loop shapes read the same buffer: the overlap score does not apply to
  // reductions, so the pair has no shared data at all.
  CHECK(fx::check_fusion(g, "r1", "r2") == why_no_fuse::no_shared_data);
  auto h = finalized({reduction("r1", {scalar("w", 4096), flat("x", 4096)}, {flat("s1", 64)}, 64, 64),
                      reduction("r2", {scalar("w", 4096), flat("y", 4096)}, {flat("s2", 32)}, 32, 128)});
  CHECK(fx::check_fusion(h, "r1", "r2") == why_no_fuse::reduce_mismatch);
}

TEST_CASE("gate (backend): pointwise pairs need equal numel") {
  auto g = finalized({pointwise("a", {scalar("w", 4096), flat("x", N)}, {flat("t", N)}, N),
                      pointwise("b", {scalar("w", 4096), flat("y", 2 * N)}, {flat("u", 2 * N)}, 2 * N)});
  CHECK(fx::check_fusion(g, "a", "b") == why_no_fuse::nonreduce_mismatch);
}

TEST_CASE("gate (backend): a pointwise node after a reduction") {
  // softmax-like: the pointwise node has numel rows*cols; a row-sized one has numel rows.
  auto g = finalized(
      {row_reduce("r", "x", "s", 1024, 4096),
       pointwise("full",
                 {fx::memory_dep("x", "4096*d0 + d1", {1024, 4096}, 1 << 24), fx::memory_dep("s", "d0", {1024}, 4096)},
                 {fx::memory_dep("y", "4096*d0 + d1", {1024, 4096}, 1 << 24)}, 1024 * 4096),
       pointwise("rows", {flat("s", 1024)}, {flat("z", 1024)}, 1024),
       pointwise("odd", {flat("s", 1024), flat("q", 1000)}, {flat("o", 1000)}, 1000)});
  CHECK(fx::check_fusion(g, "r", "full") == why_no_fuse::none);
  CHECK(fx::check_fusion(g, "r", "rows") == why_no_fuse::none);
  CHECK(fx::check_fusion(g, "r", "odd") == why_no_fuse::numel_incompatible);
  auto h = finalized({reduction("r", {scalar("w", 1024), flat("x", 200)}, {flat("s", 50)}, 50, 4),
                      pointwise("p", {scalar("w", 1024), flat("y", 100)}, {flat("z", 100)}, 100)});
  CHECK(fx::check_fusion(h, "r", "p") == why_no_fuse::numel_incompatible);
}

TEST_CASE("gate (backend): loops that cannot be split across (numel, rnumel)") {
  // numel 24 = 6 x 4, but the pointwise loops are 4 x 6: the first loop straddles the split.
  auto g = finalized(
      {reduction("r", {scalar("w", 1024), fx::memory_dep("x", "4*d0 + d1", {6, 4}, 96)}, {flat("s", 6)}, 6, 4),
       pointwise("p", {scalar("w", 1024), fx::memory_dep("y", "6*d0 + d1", {4, 6}, 96)},
                 {fx::memory_dep("z", "6*d0 + d1", {4, 6}, 96)}, 24)});
  CHECK(fx::check_fusion(g, "r", "p") == why_no_fuse::rnumel_incompatible);
}

TEST_CASE("gate (backend): a transposed pointwise node has an invalid tiling for the reduction") {
  auto g = finalized({reduction("r", {scalar("w", 1024), fx::memory_dep("x", "2048*d0 + d1", {512, 2048}, 1 << 22)},
                                {flat("s", 512)}, 512, 2048),
                      pointwise("t", {scalar("w", 1024), fx::memory_dep("y", "d0 + 1024*d1", {1024, 1024}, 1 << 22)},
                                {fx::memory_dep("z", "1024*d0 + d1", {1024, 1024}, 1 << 22)}, 1 << 20)});
  CHECK(fx::check_fusion(g, "r", "t") == why_no_fuse::invalid_reduction_tiling);
}

TEST_CASE("gate (backend): pointwise nodes whose tilings disagree") {
  auto g = finalized({pointwise("a", {fx::memory_dep("x", "d0 + 1024*d1", {1024, 1024}, 1 << 22)},
                                {fx::memory_dep("y", "1024*d0 + d1", {1024, 1024}, 1 << 22)}, 1 << 20),
                      pointwise("b", {fx::memory_dep("x", "d0 + 2048*d1", {2048, 512}, 1 << 22)},
                                {fx::memory_dep("z", "512*d0 + d1", {2048, 512}, 1 << 22)}, 1 << 20)});
  // They share x only at other indices: the buffer-overlap score, on here, lets them reach the tiling gate.
  fx::fuse_config overlap;
  overlap.min_overlap_ratio = 0.5;
  CHECK(fx::check_fusion(g, "a", "b", overlap) == why_no_fuse::tiling_mismatch);
}

TEST_CASE("in-place updates: WeakDeps order the update after readers") {
  // r reads x; m updates x in place after r (StarDep on x, WeakDep on r's output).
  auto build = [](const char* read_index) {
    return finalized({pointwise("r", {fx::memory_dep("x", read_index, {N}, 4 * N)}, {flat("r_out", N)}, N),
                      pointwise("m", {fx::star_dep("x", 4 * N), flat("r_out", N), fx::weak_dep("r_out", "m_out")},
                                {flat("m_out", N)}, N)});
  };
  auto same = build("d0");
  CHECK(fx::check_fusion(same, "r", "m") == why_no_fuse::none);
  CHECK(fx::check_fusion(same, "m", "r") == why_no_fuse::order);
  // The reader touches another element than the one updated: the kernel could see a
  // partially updated x, so the WeakDep cannot be dropped.
  auto shifted = build("d0 + 1");
  CHECK(fx::check_fusion(shifted, "r", "m") == why_no_fuse::memory_deps_mismatch);
  // Scheduling keeps m after r in either case.
  auto p = fx::fuse_nodes(shifted);
  REQUIRE(p.groups.size() == 2);
  CHECK(p.groups[0].names == std::vector<std::string>{"r"});
}

TEST_CASE("gate (backend): foreach nodes, as dumps show them (one node listing its subkernels)") {
  auto foreach = [](const std::string& name, std::vector<dep_spec> reads, std::vector<dep_spec> writes,
                    std::vector<std::string> members) {
    node_spec s = other(name, node_kind::foreach, reads, writes, N);
    s.members = members;
    return s;
  };
  auto g = finalized({foreach ("f1", {flat("x", N), flat("y", N)}, {flat("a", N), flat("b", N)}, {"f1_0", "f1_1"}),
                      foreach ("f2", {flat("a", N), flat("b", N)}, {flat("c", N), flat("d", N)}, {"f2_0", "f2_1"}),
                      foreach ("f3", {flat("c", N), flat("x", N), flat("e", N)},
                               {flat("p", N), flat("q", N), flat("r", N)}, {"f3_0", "f3_1", "f3_2"}),
                      reduction("red", {flat("x", N)}, {fx::memory_dep("s", "0", {}, 4)}, 1, N),
                      pointwise("pw", {flat("x", N)}, {flat("o", N)}, N)});
  CHECK(fx::check_fusion(g, "f1", "f2") == why_no_fuse::none);
  CHECK(fx::check_fusion(g, "f2", "f3") == why_no_fuse::foreach_length);
  CHECK(fx::check_fusion(g, "f1", "red") == why_no_fuse::foreach_reduction);
  CHECK(fx::check_fusion(g, "f1", "pw") == why_no_fuse::foreach_no_dep);
  // Inductor's max fusion size does not apply to foreach nodes.
  fx::fuse_config small;
  small.max_fusion_size = 1;
  CHECK(fx::check_fusion(g, "f1", "f2", small) == why_no_fuse::none);
}

TEST_CASE("rule by release: the buffer-overlap score (2.11 has none; 2.15 turns it off by default)") {
  // GPT-2's k and v: two copies of other halves of one qkv buffer share no exact access.
  auto half = [](const char* name, const char* index, const char* out) {
    return pointwise(name, {fx::memory_dep("qkv", index, {N}, 4 * N)}, {flat(out, N)}, N);
  };
  auto g = finalized({half("k", "d0 + 1024", "k_out"), half("v", "d0 + 2048", "v_out")});
  fx::fuse_config newest;  // programs: the newest release, Inductor's defaults (min_overlap_ratio 1.1)
  CHECK(newest.torch == fx::newest_torch);
  CHECK(fx::check_fusion(g, "k", "v", newest) == why_no_fuse::no_shared_data);
  fx::fuse_config later = newest;
  later.min_overlap_ratio = 0.5;
  CHECK(fx::check_fusion(g, "k", "v", later) == why_no_fuse::none);
  fx::fuse_config old = later;
  old.torch = {2, 11};
  CHECK(fx::check_fusion(g, "k", "v", old) == why_no_fuse::no_shared_data);
}

namespace {
// A foreach group's member: a pointwise node over n elements reading `in`, writing `out`.
node_spec member(const std::string& group, const std::string& name, const std::string& in, const std::string& out,
                 std::int64_t n) {
  node_spec s = pointwise(name, {flat(in, n)}, {flat(out, n)}, n);
  s.foreach_group = group;
  return s;
}
// A member over 2N elements that reads the same N elements of `in` as member(..., N) does.
node_spec wide_member(const std::string& group, const std::string& name, const std::string& in,
                      const std::string& out) {
  node_spec s = pointwise(name, {flat(in, N)}, {flat(out, 2 * N)}, 2 * N);
  s.foreach_group = group;
  return s;
}
}  // namespace

TEST_CASE("foreach groups fuse member by member (ForeachKernelSchedulerNode)") {
  // f1 = {a1 (N), a2 (2N)} feeds f2 = {b1, b2} pairwise: the zipped pairs fuse, and the
  // plain node c joins the one member whose output it reads.
  auto g =
      finalized({member("f1", "a1", "x1", "t1", N), member("f1", "a2", "x2", "t2", 2 * N),
                 member("f2", "b1", "t1", "u1", N), member("f2", "b2", "t2", "u2", 2 * N),
                 pointwise("c", {flat("u2", 2 * N)}, {flat("v", 2 * N)}, 2 * N), wide_member("f3", "d1", "x1", "w1"),
                 member("f3", "d2", "x2", "w2", 2 * N), member("f4", "e1", "t1", "y1", N),
                 member("f4", "e2", "t2", "y2", 2 * N), member("f4", "e3", "x3", "y3", N)},
                {"u1", "v", "w1", "w2", "y1", "y2", "y3"});
  CHECK(fx::check_fusion(g, "f1", "f2") == why_no_fuse::none);
  CHECK(fx::check_fusion(g, "f2", "c") == why_no_fuse::none);
  // Same length, but the first pair's sizes differ: the pair's own reason.
  CHECK(fx::check_fusion(g, "f1", "f3") == why_no_fuse::nonreduce_mismatch);
  CHECK(fx::check_fusion(g, "f1", "f4") == why_no_fuse::foreach_length);
  CHECK(std::string(fx::to_string(why_no_fuse::foreach_length)) == "foreach do not have same length");
  auto p = fx::fuse_nodes(g);
  std::vector<std::vector<std::string>> groups;
  for (const auto& grp : p.groups) {
    groups.push_back(grp.names);
    std::sort(groups.back().begin(), groups.back().end());
  }
  CHECK(std::find(groups.begin(), groups.end(), std::vector<std::string>{"a1", "a2", "b1", "b2", "c"}) != groups.end());
}

TEST_CASE("foreach groups: bad members are refused") {
  node_spec ext = other("mm", node_kind::extern_kernel, {flat("x", N)}, {flat("t", N)});
  ext.foreach_group = "f";
  fx::graph g;
  g.add_node(ext);
  CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("node mm: foreach group f: a member must be a pointwise or"),
                       fx::error);
}

namespace {
// Mix-order reductions over an r x c tensor x: its row sums (contiguous loads) and its
// column sums (loads strided by c), as Inductor's dumps describe them.
constexpr std::int64_t R = 16384, C = 1024;
node_spec row_sums(std::int64_t r = R, std::int64_t c = C, const std::string& device = "cuda:0") {
  node_spec s = row_reduce("row", "x", "rs", r, c);
  s.device = device;
  return s;
}
node_spec column_sums(std::int64_t r = R, std::int64_t c = C, const std::string& device = "cuda:0") {
  std::string index = "d0 + " + fx::detail::to_decimal(c) + "*d1";
  node_spec s =
      reduction("col", {fx::memory_dep("x", index, {c, r}, 4 * r * c)}, {fx::memory_dep("cs", "d0", {c}, 4 * c)}, c, r);
  s.device = device;
  return s;
}
fx::fuse_config mix_on() {
  fx::fuse_config cfg;
  cfg.mix_order_reduction = true;
  return cfg;
}
std::vector<std::vector<std::string>> sorted_groups(const fx::plan& p) {
  std::vector<std::vector<std::string>> groups;
  for (const auto& grp : p.groups) {
    groups.push_back(grp.names);
    std::sort(groups.back().begin(), groups.back().end());
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}
}  // namespace

TEST_CASE("mix-order reductions: the rows and the columns of one tensor in one kernel (Triton only)") {
  auto g = finalized({row_sums(), column_sums()}, {"rs", "cs"});
  CHECK(fx::check_fusion(g, "row", "col", mix_on()) == why_no_fuse::none);
  CHECK(fx::check_fusion(g, "col", "row", mix_on()) == why_no_fuse::none);
  CHECK(fx::kernel_count(g, mix_on()) == 1);
  // Off (fusedsl's default: its kernels have no such group), the pair shares no access.
  CHECK(fx::check_fusion(g, "row", "col") == why_no_fuse::no_shared_data);
  CHECK(fx::kernel_count(g) == 2);
  // Not on the CPU.
  auto cpu = finalized({row_sums(R, C, "cpu"), column_sums(R, C, "cpu")}, {"rs", "cs"});
  CHECK(fx::check_fusion(cpu, "row", "col", mix_on()) == why_no_fuse::no_shared_data);
}

TEST_CASE("mix-order reductions: sizes where Inductor does not mix orders") {
  auto refused = [](std::int64_t r, std::int64_t c) {
    auto g = finalized({row_sums(r, c), column_sums(r, c)}, {"rs", "cs"});
    return fx::check_fusion(g, "row", "col", mix_on()) == why_no_fuse::no_shared_data;
  };
  CHECK(!refused(5 * 1024, 1024));  // 5 Mi elements: the smallest tensor that mixes
  CHECK(refused(5 * 1024 - 1, 1024));
  CHECK(refused(4096, 4096));     // fewer than twice as many rows as columns
  CHECK(refused(4000, 1500));     // fewer than 4096 rows
  CHECK(!refused(65536, 16384));  // rows of 16 Ki elements at most
  CHECK(refused(65536, 16385));
}

TEST_CASE("mix-order reductions: a split column reduction counts with its sizes before the split") {
  // Inductor splits the column sums 8 ways: col reduces 2048 rows for each of 8 x 1024
  // outputs, and a second reduction adds the 8 partial sums.
  auto split = [](bool marked) {
    node_spec s = reduction("col", {fx::memory_dep("x", "2097152*d0 + d1 + 1024*d2", {8, C, R / 8}, 4 * R * C)},
                            {fx::memory_dep("part", "1024*d0 + d1", {8, C}, 4 * 8 * C)}, 8 * C, R / 8);
    if (marked) {
      s.unsplit_numel = C;
      s.unsplit_rnumel = R;
    }
    return finalized({row_sums(), s,
                      reduction("col2", {fx::memory_dep("part", "d0 + 1024*d1", {C, 8}, 4 * 8 * C)},
                                {fx::memory_dep("cs", "d0", {C}, 4 * C)}, C, 8)},
                     {"rs", "cs"});
  };
  CHECK(fx::check_fusion(split(true), "row", "col", mix_on()) == why_no_fuse::none);
  CHECK(sorted_groups(fx::fuse_nodes(split(true), mix_on())) ==
        std::vector<std::vector<std::string>>{{"col", "row"}, {"col2"}});
  CHECK(fx::check_fusion(split(false), "row", "col", mix_on()) == why_no_fuse::no_shared_data);
  // Only a reduction is split, into at least 2.
  node_spec bad = row_sums();
  bad.unsplit_numel = 1;
  bad.unsplit_rnumel = 1;
  fx::graph g;
  g.add_node(bad);
  CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("node row: unsplit_numel/unsplit_rnumel: only a reduction"),
                       fx::error);
}

TEST_CASE("mix-order reductions: what the fused node takes afterwards") {
  auto rows = [](const char* name, const char* in, const char* index) {
    return pointwise(name, {fx::memory_dep(in, index, {R, C}, 4 * R * C), fx::memory_dep("rs", "d0", {R}, 4 * R)},
                     {fx::memory_dep(name + std::string("_out"), "1024*d0 + d1", {R, C}, 4 * R * C)}, R * C);
  };
  // Inductor's reasons are in the log: its candidates, and its pairs refused when collected.
  auto reasons = [](const fx::plan& p) {
    std::vector<why_no_fuse> r;
    for (const auto& round : p.rounds) {
      for (const auto& c : round.candidates) r.push_back(c.outcome);
      for (const auto& c : round.rejected) r.push_back(c.reason);
    }
    return r;
  };
  auto seen = [](const std::vector<why_no_fuse>& v, why_no_fuse r) {
    return std::find(v.begin(), v.end(), r) != v.end();
  };
  fx::fuse_config cfg = mix_on();
  cfg.record_rejected = true;
  cfg.tiling_prevents_reduction_fusion = false;  // so that only the contiguity rule keeps "strided" out
  SUBCASE("a node with contiguous loads joins the row part; one with strided loads does not") {
    auto g = finalized({row_sums(), column_sums(), rows("scaled", "x", "1024*d0 + d1"),
                        rows("strided", "t", "d0 + 16384*d1")},
                       {"scaled_out", "strided_out", "cs"});
    auto p = fx::fuse_nodes(g, cfg);
    CHECK(sorted_groups(p) == std::vector<std::vector<std::string>>{{"col", "row", "scaled"}, {"strided"}});
    CHECK(seen(reasons(p), why_no_fuse::mix_order_contiguity));
  }
  SUBCASE("a node reading both parts' outputs joins neither") {
    node_spec both =
        pointwise("both", {fx::memory_dep("rs", "d0", {R}, 4 * R), fx::memory_dep("cs", "d1", {R, C}, 4 * C)},
                  {fx::memory_dep("z", "1024*d0 + d1", {R, C}, 4 * R * C)}, R * C);
    auto g = finalized({row_sums(), column_sums(), both}, {"z"});
    auto p = fx::fuse_nodes(g, cfg);
    CHECK(sorted_groups(p) == std::vector<std::vector<std::string>>{{"both"}, {"col", "row"}});
    CHECK(seen(reasons(p), why_no_fuse::mix_order_ancestor));
  }
}

namespace {
// CPU nodes with the C++ backend's groups: loop sizes after Inductor merged the loops.
node_spec cpu_node(const std::string& name, std::vector<std::int64_t> sizes, std::vector<std::int64_t> reduction,
                   const std::vector<dep_spec>& reads, const std::vector<dep_spec>& writes) {
  std::int64_t numel = 1, rnumel = 1;
  for (auto z : sizes) numel *= z;
  for (auto z : reduction) rnumel *= z;
  node_spec s = make_node(name, reduction.empty() ? node_kind::pointwise : node_kind::reduction, numel, rnumel, reads,
                          writes, "cpu");
  s.loop_sizes = std::move(sizes);
  s.reduction_loop_sizes = std::move(reduction);
  return s;
}
fx::fuse_config cpp_on() {
  fx::fuse_config cfg;
  cfg.cpp_backend = true;
  return cfg;
}
constexpr std::int64_t Rows = 256, Cols = 1024;
// softmax over rows, as Inductor's C++ backend groups it: the max ((rows), (cols)), the
// exponentials (rows, cols) and their sums ((rows), (cols)).
fx::graph cpu_softmax(std::vector<std::int64_t> exp_sizes = {Rows, Cols}) {
  const dep_spec x = fx::memory_dep("x", "c0", {Rows * Cols}, 4 * Rows * Cols);
  const dep_spec mx = fx::memory_dep("mx", "c0", {Rows}, 4 * Rows);
  const dep_spec e = fx::memory_dep("e", "c0", {Rows * Cols}, 4 * Rows * Cols);
  return finalized({cpu_node("max", {Rows}, {Cols}, {x}, {mx}), cpu_node("exp", exp_sizes, {}, {x, mx}, {e}),
                    cpu_node("sum", {Rows}, {Cols}, {e}, {fx::memory_dep("s", "c0", {Rows}, 4 * Rows)})},
                   {"e", "s"});
}
}  // namespace

TEST_CASE("C++ backend: one loop nest or shared outer loops, outer loops after every other pair") {
  auto g = cpu_softmax();
  // A pointwise node over a reduction's loops fuses into it; after a reduction, the two
  // share the outer loop over rows (an outer-loop fusion).
  CHECK(fx::check_fusion(g, "exp", "sum", cpp_on()) == why_no_fuse::none);
  CHECK(fx::check_fusion(g, "max", "exp", cpp_on()) == why_no_fuse::none);
  auto p = fx::fuse_nodes(g, cpp_on());
  CHECK(p.group_count() == 1);
  // The first round takes only the pairs of priority 0: exp + sum; max joins in the next.
  REQUIRE(p.rounds.size() >= 2);
  REQUIRE(p.rounds[0].candidates.size() == 1);
  CHECK(p.rounds[0].candidates[0].outcome == why_no_fuse::none);
  CHECK(p.rounds[0].nodes_after == 2);
  CHECK(p.rounds[1].nodes_after == 1);
  // The SIMD backend's rules (fusedsl's default) fuse all three in the first round.
  CHECK(fx::fuse_nodes(g).rounds[0].nodes_after == 1);
}

TEST_CASE("C++ backend: loops merged into one do not share a reduction's outer loop") {
  // exp's loops merged into one (rows * cols): neither the max's loops nor a prefix of them.
  auto g = cpu_softmax({Rows * Cols});
  CHECK(fx::check_fusion(g, "max", "exp", cpp_on()) == why_no_fuse::cpp_loops);
  CHECK(fx::check_fusion(g, "max", "exp") == why_no_fuse::none);  // SIMD: numel = rows * cols
  CHECK(std::string(fx::to_string(why_no_fuse::cpp_loops)).starts_with("C++ backend: the loops"));
}

TEST_CASE("C++ backend: the loop-reordering round repeats a last round that fused nothing") {
  // No loops are reordered on the C++ backend: after a round that fused nothing, the
  // reordering round would examine the same pairs with the same outcomes.
  auto g = cpu_softmax({Rows * Cols});
  auto p = fx::fuse_nodes(g, cpp_on());
  REQUIRE(p.rounds.size() >= 2);
  const auto& last = p.rounds.back();
  const auto& before = p.rounds[p.rounds.size() - 2];
  CHECK(last.reorder_round);
  CHECK_FALSE(before.reorder_round);
  CHECK(before.nodes_after == before.node_count());
  CHECK(last.member_nodes == before.member_nodes);
  CHECK(before.pairs_examined > 0);
  CHECK(last.pairs_examined == before.pairs_examined);
  CHECK(last.candidates.size() == before.candidates.size());
  std::size_t examined = 0;
  for (const auto& r : p.rounds) examined += r.pairs_examined;
  CHECK(p.pairs_examined == examined);
  // Without the log the plan counts the same pairs.
  fx::fuse_config quiet = cpp_on();
  quiet.record_log = false;
  CHECK(fx::fuse_nodes(g, quiet).pairs_examined == examined);
}

TEST_CASE("C++ backend: horizontal fusions, their size limit and templates") {
  const dep_spec x = fx::memory_dep("x", "c0", {Rows * Cols}, 4 * Rows * Cols);
  auto out = [](const char* b) { return fx::memory_dep(b, "c0", {Rows * Cols}, 4 * Rows * Cols); };
  // Two pointwise nodes over the same elements, one with its loops merged into one.
  auto g =
      finalized({cpu_node("a", {Rows * Cols}, {}, {x}, {out("ya")}), cpu_node("b", {Rows, Cols}, {}, {x}, {out("yb")})},
                {"ya", "yb"});
  CHECK(fx::check_fusion(g, "a", "b", cpp_on()) == why_no_fuse::none);
  fx::fuse_config one = cpp_on();
  one.cpp_max_horizontal_fusion_size = 1;
  CHECK(fx::check_fusion(g, "a", "b", one) == why_no_fuse::cpp_horizontal_size);
  // No prologue into a template on the CPU.
  node_spec gemm = other("gemm", node_kind::template_kernel,
                         {fx::memory_dep("ya", "c0", {Rows * Cols}, 4 * Rows * Cols)}, {out("z")}, Rows * Cols);
  gemm.device = "cpu";
  auto t = finalized({cpu_node("a", {Rows * Cols}, {}, {x}, {out("ya")}), gemm}, {"z"});
  fx::fuse_config prologues = cpp_on();
  prologues.template_prologue_inputs = true;
  CHECK(fx::check_fusion(t, "a", "gemm", prologues) == why_no_fuse::cpp_template);
}
