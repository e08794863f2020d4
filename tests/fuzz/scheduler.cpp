// Scheduler fuzzing: random run-time graphs (pointwise and reduction nodes, broadcast and
// transposed reads, shared inputs, in-place updates, extern barriers, 1 to 300 nodes) are
// scheduled with random fuse_configs; each plan must keep its invariants and, run group by
// group as fused loops, give what unfused execution gives.
//
// FUSEDSL_FUZZ_GRAPHS=n runs n graphs (default 10000); FUSEDSL_FUZZ_SEED=s starts at seed s
// (default 1). A failure prints the seed of the graph, which reruns alone with
// FUSEDSL_FUZZ_SEED=<seed> FUSEDSL_FUZZ_GRAPHS=1.
#include <doctest/doctest.h>

#include <cstdint>   // std::uint64_t
#include <cstdlib>   // std::getenv, std::strtoull
#include <fstream>   // std::ofstream
#include <iostream>  // std::cout
#include <string>    // std::string

#include <fusedsl/schedule/explain.hpp>     // explain
#include <fusedsl/schedule/fuse_nodes.hpp>  // fuse_nodes

#include "plan_check.hpp"    // check_invariants, check_execution
#include "random_graph.hpp"  // make_random_graph

namespace {
std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}
}  // namespace

TEST_CASE("fuzz: random graphs are scheduled legally and their plans compute what unfused execution computes") {
  const std::uint64_t first = env_or("FUSEDSL_FUZZ_SEED", 1), count = env_or("FUSEDSL_FUZZ_GRAPHS", 10000);
  std::uint64_t graphs = 0, nodes = 0, groups = 0, mismatches = 0;
  // FUSEDSL_FUZZ_EXPLAIN=FILE writes every plan's explain() there: a refactor that must not
  // change plans diffs this file before and after it (docs/testing.md).
  const char* explain_path = std::getenv("FUSEDSL_FUZZ_EXPLAIN");
  std::ofstream explain_file;
  if (explain_path && *explain_path) explain_file.open(explain_path);
  for (std::uint64_t seed = first; seed < first + count; ++seed) {
    const fx_fuzz::random_graph rg = fx_fuzz::make_random_graph(seed);
    std::string groups_text;
    try {
      const fusedsl::graph g = rg.build();
      const fusedsl::plan p = fusedsl::fuse_nodes(g, rg.config);
      groups_text = fx_fuzz::describe_groups(g, p);
      if (explain_file.is_open()) explain_file << "== graph seed " << seed << "\n" << fusedsl::explain(p) << "\n";
      fx_fuzz::check_invariants(rg, g, p);
      fx_fuzz::check_execution(rg, g, p);
      nodes += static_cast<std::uint64_t>(g.size());
      groups += p.groups.size();
    } catch (const std::exception& e) {
      ++mismatches;
      if (mismatches <= 30)
        FAIL_CHECK("graph seed " << seed << " (rerun: FUSEDSL_FUZZ_SEED=" << seed
                                 << " FUSEDSL_FUZZ_GRAPHS=1): " << std::string(e.what()) << "\n"
                                 << rg.describe() << groups_text);
    }
    ++graphs;
  }
  std::cout << "scheduler fuzz: " << graphs << " graphs (seeds " << first << ".." << first + count - 1 << "), " << nodes
            << " nodes in " << groups << " groups, " << mismatches << " failures\n";
  CHECK(mismatches == 0);
}
