// Scheduler benchmark: fuse_nodes on synthetic graphs of 200 to 100k nodes.
//
// The graphs look like a stack of layers of a network: chains of pointwise nodes with
// branches (diamonds), a row reduction every few nodes whose result the next nodes
// broadcast, and per-layer weights read by many nodes. Prints nodes, candidate pairs
// examined, kernels and the median time of several runs (wall clock, and CPU time of
// the thread, which a busy shared machine inflates less), single thread.
//
//   bench_scheduler [nodes...]      (default: 200 1000 10000 100000)
#include <algorithm>
#include <chrono>
#include <ctime>
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
      s.reads.push_back(col_vec(nm("w", layer)));                                          // layer weight: many readers
      if (outs.size() >= 3 && i % 3 == 0) s.reads.push_back(full(outs[outs.size() - 3]));  // branch
      if (!last_rowvec.empty()) s.reads.push_back(row_vec(last_rowvec));                   // broadcast the reduction
      s.writes = {full(out)};
      outs.push_back(out);
    }
    g.add_node(s);
    if (i % 12 == 11 || i == n - 1) g.add_output(out);
  }
  g.finalize();
  return g;
}

// CPU time of this thread: what the scheduler costs, without the waits a shared
// machine adds to the wall clock.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
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
  std::printf("%8s %10s %7s %8s %10s %10s %12s\n", "nodes", "pairs", "rounds", "kernels", "wall ms", "cpu ms",
              "cpu ms no log");
  for (int n : sizes) {
    fx::graph g = make_graph(n);
    int runs = n <= 1000 ? 21 : (n <= 10000 ? 7 : 3);
    std::vector<double> wall, cpu, without_log;
    fx::plan p;
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      double c0 = cpu_ms();
      p = fx::fuse_nodes(g);
      double c1 = cpu_ms();
      auto t1 = std::chrono::steady_clock::now();
      wall.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      cpu.push_back(c1 - c0);
    }
    fx::fuse_config quiet;
    quiet.record_log = false;
    for (int r = 0; r < runs; ++r) {
      double c0 = cpu_ms();
      auto q = fx::fuse_nodes(g, quiet);
      without_log.push_back(cpu_ms() - c0);
      if (q.group_count() != p.group_count()) {
        std::fprintf(stderr, "the log changed the schedule\n");
        return 1;
      }
    }
    std::printf("%8d %10zu %7zu %8d %10.3f %10.3f %12.3f\n", g.size(), p.pairs_examined, p.rounds.size(),
                p.group_count(), median(wall), median(cpu), median(without_log));
  }
  return 0;
}
