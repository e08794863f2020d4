// Scheduling a graph that PyTorch Inductor compiled: load its scheduler-node
// dump (JSON, see docs/inductor.md), run fusedsl's fuse_nodes on it, and
// compare the kernels with the ones Inductor chose, which the dump records.
// The fusedsl-schedule tool does the same from the command line:
//   fusedsl-schedule --inductor mlp_train_1.json [--explain] [--dot] [--json]
//
//   example_inductor_dump FILE.json
#include <algorithm>  // std::sort
#include <cstdio>     // std::printf
#include <cstdlib>    // EXIT_SUCCESS, EXIT_FAILURE
#include <string>     // std::string
#include <vector>     // std::vector

#include <fusedsl/fusedsl.hpp>
#include <fusedsl/interop/inductor.hpp>  // load_inductor_file: not in the umbrella header

namespace fx = fusedsl;

using groups = std::vector<std::vector<std::string>>;

/// The groups as a set of sets (each sorted, then the list sorted): the order of
/// kernels and of nodes inside a kernel may differ between two equal answers.
groups as_sets(groups g) {
  for (auto& names : g) std::sort(names.begin(), names.end());
  std::sort(g.begin(), g.end());
  return g;
}

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::printf("usage: example_inductor_dump FILE.json\n");
    return EXIT_FAILURE;
  }
  // inductor: schedule
  const fx::inductor_dump dump = fx::load_inductor_file(argv[1]);
  const fx::plan plan = fx::fuse_nodes(dump.g, dump.config);  // the rules and settings of the dump's release
  groups ours;
  for (const fx::fused_group& kernel : plan.groups) ours.push_back(kernel.names);
  // inductor: end
  std::printf("%s: %d nodes -> %zu kernels\n", dump.workload.c_str(), dump.g.size(), plan.groups.size());
  for (const auto& names : ours) {
    std::printf("  kernel:");
    for (const auto& name : names) std::printf(" %s", name.c_str());
    std::printf("\n");
  }
  const bool same = as_sets(ours) == as_sets(dump.fused_groups);
  std::printf("Inductor's own groups (PyTorch %s): %s\n", dump.torch.c_str(), same ? "the same" : "DIFFERENT");
  return same ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const fx::error& e) {  // unreadable file, malformed dump: the message names the field
  std::printf("error: %s\n", e.what());
  return EXIT_FAILURE;
}
