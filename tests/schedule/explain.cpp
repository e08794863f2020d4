// explain(), possible_fusions(), to_dot() and to_json().
#include <doctest/doctest.h>

#include <fusedsl/schedule/explain.hpp>

#include "builders.hpp"

namespace fx = fusedsl;
using namespace fx_test;

namespace {
fx::graph layernorm_like() {
  fx::graph g;
  g.add_node(row_reduce("mean", "x", "m", 64, 256));
  g.add_node(row_reduce("var", "x", "v", 64, 256));
  g.add_node(pointwise("norm",
                       {fx::memory_dep("x", "256*d0 + d1", {64, 256}, 65536), fx::memory_dep("m", "d0", {64}, 256),
                        fx::memory_dep("v", "d0", {64}, 256)},
                       {fx::memory_dep("y", "256*d0 + d1", {64, 256}, 65536)}, 64 * 256));
  g.add_output("y");
  g.finalize();
  return g;
}
}  // namespace

TEST_CASE("explain lists every candidate with score and outcome, then the kernels") {
  auto p = fx::fuse_nodes(layernorm_like());
  std::string text = fx::explain(p);
  CHECK(text.find("round 1: 3 nodes") != std::string::npos);
  CHECK(text.find("mean + var") != std::string::npos);
  CHECK(text.find("-> fused") != std::string::npos);
  CHECK(text.find("kernel 0: [mean, var, norm]") != std::string::npos);
  CHECK(text.find("writes {y}") != std::string::npos);
  CHECK(text.find("kernel-local {m, v}") != std::string::npos);
}

TEST_CASE("possible_fusions returns the log as data, best first per round") {
  auto ds = fx::possible_fusions(layernorm_like());
  REQUIRE(ds.size() == 3);
  CHECK(ds[0].round == 0);
  CHECK(ds[0].outcome == fx::why_no_fuse::none);
  // The last candidate finds both sides already in one kernel.
  CHECK(ds[2].outcome == fx::why_no_fuse::same_node);
  CHECK(ds[2].tried1 == ds[2].tried2);
  for (std::size_t i = 1; i < ds.size(); ++i) CHECK_FALSE(fx::fusion_score_less(ds[i - 1].score, ds[i].score));
}

TEST_CASE("to_dot draws one cluster per kernel; to_json lists fused_groups") {
  auto g = layernorm_like();
  auto p = fx::fuse_nodes(g);
  std::string dot = fx::to_dot(p);
  CHECK(dot.find("digraph") == 0);
  CHECK(dot.find("subgraph cluster_0") != std::string::npos);
  CHECK(dot.find("subgraph cluster_1") == std::string::npos);
  CHECK(dot.find("n0 -> n2") != std::string::npos);
  std::string json = fx::to_json(p);
  CHECK(json.find("\"fused_groups\": [[\"mean\", \"var\", \"norm\"]]") != std::string::npos);
}

TEST_CASE("python_sort_descending keeps equal elements in order (stable, like list.sort)") {
  std::vector<int> v{3, 1, 3, 2, 1};
  std::vector<int> idx{0, 1, 2, 3, 4};
  fx::detail::python_sort_descending(idx, [&](int a, int b) {
    return v[static_cast<std::size_t>(a)] < v[static_cast<std::size_t>(b)];
  });
  CHECK(idx == std::vector<int>{0, 2, 3, 1, 4});
  std::vector<int> big(300), ref(300);
  for (int i = 0; i < 300; ++i) big[static_cast<std::size_t>(i)] = ref[static_cast<std::size_t>(i)] = (i * 7919) % 101;
  fx::detail::python_sort(big, [](int a, int b) { return a < b; });
  std::sort(ref.begin(), ref.end());
  CHECK(big == ref);
}
