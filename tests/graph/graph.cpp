// The graph: buffers, deps, users, order, ancestors, in-place updates, dead nodes.
#include <doctest/doctest.h>

#include <fusedsl/graph/graph.hpp>

#include "builders.hpp"

using namespace fx_test;
namespace fx = fusedsl;

namespace {
// a -> b -> c, and d reading only the input.
fx::graph small_chain() {
  fx::graph g;
  g.add_node(pointwise("a", {flat("x", 64)}, {flat("ta", 64)}, 64));
  g.add_node(pointwise("b", {flat("ta", 64)}, {flat("tb", 64)}, 64));
  g.add_node(pointwise("c", {flat("tb", 64), flat("ta", 64)}, {flat("tc", 64)}, 64));
  g.add_node(pointwise("d", {flat("x", 64)}, {flat("td", 64)}, 64));
  g.add_output("tc");
  g.finalize();
  return g;
}
}  // namespace

TEST_CASE("finalize computes producers, users, unmet deps and predecessors") {
  auto g = small_chain();
  REQUIRE(g.size() == 4);
  int ta = g.find_buffer("ta");
  CHECK(g.buffer(ta).producer == g.find_node("a"));
  CHECK(g.buffer(ta).users.size() == 2);
  CHECK(g.buffer(g.find_buffer("x")).producer == -1);
  const auto& c = g.node(g.find_node("c"));
  CHECK(c.unmet.size() == 2);
  CHECK(c.preds == std::vector<int>{g.find_node("a"), g.find_node("b")});
  CHECK(g.node(g.find_node("a")).users == std::vector<int>{g.find_node("b"), g.find_node("c")});
  CHECK(g.buffer(g.find_buffer("tc")).output);
}

TEST_CASE("equal deps are interned once; variable spelling does not matter") {
  fx::graph g;
  g.add_node(pointwise("a", {fx::memory_dep("x", "4*p0 + p1", {8, 4}, 128, {"p0", "p1"})}, {flat("y", 32)}, 32));
  g.add_node(pointwise("b", {fx::memory_dep("x", "p1 + 4*p0", {8, 4}, 128, {"p0", "p1"})}, {flat("z", 32)}, 32));
  g.finalize();
  CHECK(g.node(0).reads == g.node(1).reads);
  CHECK(g.dep_to_string(g.node(0).reads[0]) == "MemoryDep(x, 4*d0+d1, [8, 4])");
}

TEST_CASE("an index given as strides is the same access as its text, and prints as that text") {
  fx::graph g;
  g.add_node(pointwise("a", {fx::affine_dep("x", 0, {4, 1}, {8, 4}, 128)}, {flat("y", 32)}, 32));
  g.add_node(pointwise("b", {fx::memory_dep("x", "4*d0 + d1", {8, 4}, 128)}, {flat("z", 32)}, 32));
  g.add_node(pointwise("c", {fx::affine_dep("x", 3, {-2, 0}, {8, 4}, 128)}, {flat("w", 32)}, 32));
  g.finalize();
  CHECK(g.node(0).reads == g.node(1).reads);
  CHECK(g.dep_to_string(g.node(0).reads[0]) == "MemoryDep(x, 4*d0+d1, [8, 4])");
  CHECK(g.dep_to_string(g.node(2).reads[0]) == "MemoryDep(x, -2*d0+3, [8, 4])");
  const auto& a = g.get_access(g.get_dep(g.node(0).reads[0]).access);
  CHECK(a.affine);
  CHECK(a.strides == std::vector<std::int64_t>{4, 1});
}

TEST_CASE("an index given as strides needs one stride per size") {
  fx::graph g;
  g.add_node(pointwise("a", {fx::affine_dep("x", 0, {1}, {8, 4}, 128)}, {flat("y", 32)}, 32));
  CHECK_THROWS_WITH_AS(g.finalize(), "node a: MemoryDep on x has an empty index and 1 strides for 2 sizes", fx::error);
}

TEST_CASE("ancestors and is_ancestor follow all deps transitively") {
  auto g = small_chain();
  int a = g.find_node("a"), b = g.find_node("b"), c = g.find_node("c"), d = g.find_node("d");
  CHECK(g.is_ancestor(a, c));
  CHECK(g.is_ancestor(b, c));
  CHECK_FALSE(g.is_ancestor(c, a));
  CHECK_FALSE(g.is_ancestor(a, d));
  CHECK(g.ancestors(c) == std::vector<int>{a, b});
}

TEST_CASE("is_ancestor agrees with ancestors() near and beyond the ancestor window") {
  // Two interleaved chains that meet now and then, with reads reaching far back: paths
  // inside the window, across it and longer than it.
  fx::graph g;
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    std::vector<fx::dep_spec> reads{flat(i < 2 ? "x" : "t" + std::to_string(i - 2), 8)};
    if (i % 97 == 0 && i >= 1) reads.push_back(flat("t" + std::to_string(i - 1), 8));
    if (i % 301 == 0 && i >= 2500) reads.push_back(flat("t" + std::to_string(i - 2500), 8));
    g.add_node(pointwise("n" + std::to_string(i), reads, {flat("t" + std::to_string(i), 8)}, 8));
  }
  g.finalize();
  REQUIRE(g.ancestor_window() < n);
  int checked = 0;
  for (int b = 0; b < n; b += 211) {
    std::vector<char> is(static_cast<std::size_t>(n), 0);
    for (int a : g.ancestors(b)) is[static_cast<std::size_t>(a)] = 1;
    for (int a = b % 7; a < n; a += 7) {
      CHECK(g.is_ancestor(a, b) == (is[static_cast<std::size_t>(a)] != 0));
      if (a < b && b - a <= g.ancestor_window()) CHECK(g.near_ancestor(a, b) == (is[static_cast<std::size_t>(a)] != 0));
      ++checked;
    }
  }
  CHECK(checked > 10000);
}

TEST_CASE("nodes given out of order are put in topological order") {
  fx::graph g;
  g.add_node(pointwise("late", {flat("t", 8)}, {flat("u", 8)}, 8));
  g.add_node(pointwise("early", {flat("x", 8)}, {flat("t", 8)}, 8));
  g.finalize();
  CHECK(g.node(0).name == "early");
  CHECK(g.node(1).name == "late");
}

TEST_CASE("malformed graphs are rejected with the node named") {
  SUBCASE("cycle") {
    fx::graph g;
    g.add_node(pointwise("p", {flat("v", 8)}, {flat("u", 8)}, 8));
    g.add_node(pointwise("q", {flat("u", 8)}, {flat("v", 8)}, 8));
    CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("cycle"), fx::error);
  }
  SUBCASE("duplicate name") {
    fx::graph g;
    g.add_node(pointwise("p", {}, {flat("u", 8)}, 8));
    g.add_node(pointwise("p", {}, {flat("v", 8)}, 8));
    CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("node p"), fx::error);
  }
  SUBCASE("buffer written twice") {
    fx::graph g;
    g.add_node(pointwise("p", {}, {flat("u", 8)}, 8));
    g.add_node(pointwise("q", {}, {flat("u", 8)}, 8));
    CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("also written by node p"), fx::error);
  }
  SUBCASE("sizes and var_names disagree") {
    fx::graph g;
    g.add_node(pointwise("p", {fx::memory_dep("x", "d0", {8, 2}, 64, {"d0"})}, {flat("u", 8)}, 8));
    CHECK_THROWS_WITH_AS(g.finalize(), doctest::Contains("node p"), fx::error);
  }
}

TEST_CASE("in-place updates: StarDep + WeakDeps give renames and real names") {
  // r reads x; m updates x in place (result buffer m_out), after r.
  fx::graph g;
  g.add_node(pointwise("r", {flat("x", 16)}, {flat("r_out", 16)}, 16));
  g.add_node(pointwise("m", {fx::star_dep("x", 64), flat("r_out", 16), fx::weak_dep("r_out", "m_out")},
                       {flat("m_out", 16)}, 16));
  g.finalize();
  int x = g.find_buffer("x"), m_out = g.find_buffer("m_out");
  CHECK(g.node(g.find_node("m")).mutates == x);
  CHECK(g.rename(x) == m_out);
  CHECK(g.real_name(m_out) == x);
  // The updated graph input must reach memory: its final version is an output.
  CHECK(g.buffer(m_out).output);
}

TEST_CASE("dead-node elimination removes unused nodes and their WeakDeps") {
  fx::graph g;
  g.add_node(pointwise("used", {flat("x", 8)}, {flat("a", 8)}, 8));
  g.add_node(pointwise("dead1", {flat("x", 8)}, {flat("b", 8)}, 8));
  g.add_node(pointwise("dead2", {flat("b", 8)}, {flat("c", 8)}, 8));
  g.add_node(pointwise("weakonly", {flat("x", 8)}, {flat("w", 8)}, 8));
  g.add_node(pointwise("out", {flat("a", 8), fx::weak_dep("w", "o")}, {flat("o", 8)}, 8));
  g.add_output("o");
  g.finalize();
  auto removed = g.eliminate_dead_nodes();
  CHECK(removed == std::vector<std::string>{"weakonly", "dead2", "dead1"});
  REQUIRE(g.size() == 2);
  CHECK(g.node(1).name == "out");
  CHECK(g.node(1).reads.size() == 1);  // the WeakDep on the removed node is gone
}
