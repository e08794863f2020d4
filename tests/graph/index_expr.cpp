// Index formulas: canonical variable names, evaluation, strides, loop merging.
#include <doctest/doctest.h>

#include <fusedsl/graph/detail/index_expr.hpp>

namespace d = fusedsl::detail;

TEST_CASE("canonical_index renames variables by position and drops spaces") {
  CHECK(d::canonical_index("4096*c0 + c1", {"c0", "c1"}) == "4096*d0+d1");
  CHECK(d::canonical_index("x1 + 7*x0", {"x0", "x1"}) == "d1+7*d0");
  // A foreign identifier spelled like a canonical variable cannot collide.
  CHECK(d::canonical_index("d1 + q0", {"q0"}) == "?d1+d0");
}

TEST_CASE("evaluation follows Python integer semantics and Inductor's index functions") {
  std::vector<std::int64_t> v{7, 3};
  auto eval = [&](const char* t) {
    d::index_evaluator e(t, v);
    auto r = e.run();
    REQUIRE(e.ok());
    return r;
  };
  CHECK(eval("4096*d0+d1") == 4096 * 7 + 3);
  CHECK(eval("ModularIndexing(d0,2,3)") == (7 / 2) % 3);
  CHECK(eval("FloorDiv(-d0,2)") == -4);
  CHECK(eval("Max(d0,d1,10)") == 10);
  CHECK(eval("d0**2") == 49);
  d::index_evaluator bad("ks0*d0", v);
  bad.run();
  CHECK_FALSE(bad.ok());
}

TEST_CASE("analyse_index finds strides, affinity and indirect loads") {
  auto a = d::analyse_index("4096*d0+d1", 2);
  CHECK(a.affine);
  CHECK(a.strides == std::vector<std::int64_t>{4096, 1});
  auto m = d::analyse_index("ModularIndexing(d0,1,64)+128*d1", 2);
  CHECK(m.evaluable);
  CHECK_FALSE(m.affine);
  CHECK(m.strides == std::vector<std::int64_t>{1, 128});
  CHECK(d::analyse_index("tmp0+d0", 1).indirect);
  CHECK_FALSE(d::analyse_index("d0*d1", 2).affine);
}

TEST_CASE("merge_loops merges contiguous neighbours and drops unit loops") {
  auto m = d::merge_loops({1024, 4096}, {4096, 1}, 0);
  CHECK(m.sizes == std::vector<std::int64_t>{4194304});
  CHECK(m.strides == std::vector<std::int64_t>{1});
  auto t = d::merge_loops({1024, 1, 4096}, {1, 0, 1024}, 0);
  CHECK(t.sizes == std::vector<std::int64_t>{1024, 4096});
}
