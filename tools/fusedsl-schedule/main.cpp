// fusedsl-schedule: schedules an Inductor scheduler-node dump with fusedsl's
// Inductor-compatible fuse_nodes and prints the fused groups.
//
//   fusedsl-schedule --inductor FILE.json [--json] [--explain] [--dot]
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include <fusedsl/interop/inductor.hpp>
#include <fusedsl/schedule/explain.hpp>
#include <fusedsl/schedule/fuse_nodes.hpp>

namespace {

int usage(const char* why) {
  std::cerr << "fusedsl-schedule: " << why << "\n"
            << "usage: fusedsl-schedule --inductor FILE.json [--json] [--explain] [--dot]\n"
            << "  --json     one JSON object: fused_groups, schedule_ms, kernels, decisions\n"
            << "  --explain  every candidate pair of every round, its score and outcome\n"
            << "  --dot      Graphviz DOT, one cluster per kernel\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file;
  bool json = false, explain = false, dot = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--inductor") {
      if (i + 1 >= argc) return usage("--inductor needs a file name");
      file = argv[++i];
    } else if (a == "--json") {
      json = true;
    } else if (a == "--explain") {
      explain = true;
    } else if (a == "--dot") {
      dot = true;
    } else if (a == "-h" || a == "--help") {
      usage("schedule an Inductor node dump");
      return 0;
    } else {
      return usage(("unknown argument '" + std::string(a) + "'").c_str());
    }
  }
  if (file.empty()) return usage("missing --inductor FILE.json");
  try {
    fusedsl::inductor_dump dump = fusedsl::load_inductor_file(file);
    fusedsl::fuse_config cfg = dump.config;
    cfg.record_rejected = explain;
    auto t0 = std::chrono::steady_clock::now();
    fusedsl::plan p = fusedsl::fuse_nodes(dump.g, cfg);
    auto t1 = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
    if (json) {
      std::string body = fusedsl::to_json(p);
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6f", ms);
      // Splice the timing and the workload into the plan's JSON object.
      std::cout << "{\"workload\": " << fusedsl::detail::json_string(dump.workload) << ", \"nodes\": " << dump.g.size()
                << ", \"schedule_ms\": " << buf << ", " << body.substr(1) << "\n";
    }
    if (explain) fusedsl::explain(p, std::cout);
    if (dot) std::cout << fusedsl::to_dot(p);
    if (!json && !explain && !dot) {
      std::cout << dump.workload << ": " << dump.g.size() << " nodes -> " << p.groups.size() << " kernels in " << ms
                << " ms\n";
      for (const auto& g : p.groups) {
        std::cout << "  [";
        for (std::size_t k = 0; k < g.names.size(); ++k) std::cout << (k ? ", " : "") << g.names[k];
        std::cout << "]\n";
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "fusedsl-schedule: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
