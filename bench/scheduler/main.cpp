// Scheduler benchmark: fuse_nodes on synthetic graphs of 200 to 100k nodes.
//
// The graphs look like a stack of layers of a network: chains of pointwise nodes with
// branches (diamonds), a row reduction every few nodes whose result the next nodes
// broadcast, and per-layer weights read by many nodes. Prints nodes, candidate pairs
// examined, kernels and the median time of several runs, single thread.
//
//   bench_scheduler [nodes...]      (default: 200 1000 10000 100000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fusedsl/schedule/fuse_nodes.hpp>

namespace fx = fusedsl;

namespace {

constexpr std::int64_t rows = 1024, cols = 4096;

std::string nm(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}
fx::dep_spec full(const std::string& buf) { return fx::memory_dep(buf, "4096*d0 + d1", {rows, cols}, 4 * rows * cols); }
fx::dep_spec row_vec(const std::string& buf) { return fx::memory_dep(buf, "d0", {rows}, 4 * rows); }
fx::dep_spec col_vec(const std::string& buf) { return fx::memory_dep(buf, "d1", {rows, cols}, 4 * cols); }

fx::graph make_graph(int n) {
  fx::graph g;
  std::vector<std::string> outs;  // outputs of recent pointwise nodes, newest last
  std::string last_rowvec;
  for (int i = 0; i < n; ++i) {
    int layer = i / 24;
    bool new_chain = i % 12 == 0;
    if (new_chain) {
      outs.clear();
      last_rowvec.clear();
    }
    std::string out = nm("t", i);
    fx::node_spec s;
    s.name = nm("op", i);
    s.device = "cuda:0";
    if (!new_chain && i % 6 == 5) {
      // A row reduction of the newest tensor.
      s.kind = fx::node_kind::reduction;
      s.numel = rows;
      s.rnumel = cols;
      s.reads = {full(outs.back())};
      s.writes = {row_vec(out)};
      last_rowvec = out;
    } else {
      s.kind = fx::node_kind::pointwise;
      s.numel = rows * cols;
      s.reads.push_back(full(new_chain ? nm("x", layer) : outs.back()));
      s.reads.push_back(col_vec(nm("w", layer)));                  // layer weight: many readers
      if (outs.size() >= 3 && i % 3 == 0) s.reads.push_back(full(outs[outs.size() - 3]));  // branch
      if (!last_rowvec.empty()) s.reads.push_back(row_vec(last_rowvec));  // broadcast the reduction
      s.writes = {full(out)};
      outs.push_back(out);
    }
    g.add_node(s);
    if (i % 12 == 11 || i == n - 1) g.add_output(out);
  }
  g.finalize();
  return g;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{200, 1000, 10000, 100000};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  }
  std::printf("%8s %12s %8s %8s %12s %14s\n", "nodes", "pairs", "rounds", "kernels", "ms (median)", "ms (no log)");
  for (int n : sizes) {
    fx::graph g = make_graph(n);
    int runs = n <= 1000 ? 21 : (n <= 10000 ? 7 : 3);
    std::vector<double> with_log, without_log;
    fx::plan p;
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      p = fx::fuse_nodes(g);
      auto t1 = std::chrono::steady_clock::now();
      with_log.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    fx::fuse_config quiet;
    quiet.record_log = false;
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      auto q = fx::fuse_nodes(g, quiet);
      auto t1 = std::chrono::steady_clock::now();
      without_log.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (q.group_count() != p.group_count()) {
        std::fprintf(stderr, "the log changed the schedule\n");
        return 1;
      }
    }
    std::printf("%8d %12zu %8zu %8d %12.3f %14.3f\n", g.size(), p.pairs_examined, p.rounds.size(), p.group_count(),
                median(with_log), median(without_log));
  }
  return 0;
}
