// Scheduler benchmark: fuse_nodes on Inductor dumps and on synthetic graphs shaped like them.
//
// The synthetic graphs look like the training graphs Inductor dumps: long chains of
// pointwise nodes over 512x4096 tensors that fuse into kernels of up to 64 nodes (the
// fusion size limit), a row reduction every tenth node whose result the following nodes
// broadcast, residual reads of earlier nodes, per-layer weights read by many nodes, saved
// activations that neighbouring nodes share (so that each node shares buffers with many
// others), position-embedding reads through non-affine index text (ModularIndexing),
// index text parsed as the loader parses it, and a matmul (extern node) every hundred nodes.
//
// Times are the median over many samples of the thread's CPU time (which a busy shared
// machine inflates less than the wall clock), single thread; a sample repeats a short
// schedule until it has run for at least a millisecond. "load" is reading and parsing a
// dump (JSON, index text, finalize()); "fuse" is fuse_nodes alone, with the decision log
// (the default) and without it.
//
//   bench_scheduler [nodes...]         (default: 1 200 1000 10000 100000)
//   bench_scheduler --dump FILE...     Inductor dumps: Inductor's fuse_nodes_ms and ours
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fusedsl/interop/inductor.hpp>
#include <fusedsl/schedule/fuse_nodes.hpp>

namespace fx = fusedsl;

namespace {

constexpr std::int64_t rows = 512, cols = 4096;

std::string nm(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}
fx::dep_spec full(const std::string& buf) { return fx::memory_dep(buf, "4096*d0 + d1", {rows, cols}, 4 * rows * cols); }
fx::dep_spec row_vec(const std::string& buf) { return fx::memory_dep(buf, "d0", {rows}, 4 * rows); }
fx::dep_spec col_vec(const std::string& buf) { return fx::memory_dep(buf, "d1", {rows, cols}, 4 * cols); }
// A position embedding of 128 positions, broadcast over the batch: index text Inductor
// writes with ModularIndexing, which is not affine and compares by text.
fx::dep_spec positions(const std::string& buf) {
  return fx::memory_dep(buf, "d1 + 4096*(ModularIndexing(d0, 1, 128))", {rows, cols}, 4 * 128 * cols);
}

fx::graph make_graph(int n) {
  fx::graph g;
  std::vector<std::string> outs;  // outputs of the chain's pointwise nodes, newest last
  std::string last_rowvec;
  for (int i = 0; i < n; ++i) {
    int layer = i / 50;
    std::string out = nm("buf", i);
    fx::node_spec s;
    s.name = nm("op", i);
    s.device = "cuda:0";
    if (i % 100 == 99) {
      // A matmul: ends the chain; the next nodes read its result.
      s.kind = fx::node_kind::extern_kernel;
      s.reads = {fx::star_dep(outs.back(), 4 * rows * cols), fx::star_dep(nm("primals_mm", layer), 4 * cols * cols)};
      s.writes = {fx::star_dep(out, 4 * rows * cols)};
      outs = {out};
      last_rowvec.clear();
    } else if (i % 10 == 9 && !outs.empty()) {
      s.kind = fx::node_kind::reduction;
      s.numel = rows;
      s.rnumel = cols;
      s.reads = {full(outs.back())};
      s.writes = {row_vec(out)};
      last_rowvec = out;
    } else {
      s.kind = fx::node_kind::pointwise;
      s.numel = rows * cols;
      s.reads.push_back(full(outs.empty() ? std::string("primals_x") : outs.back()));
      if (!last_rowvec.empty()) s.reads.push_back(row_vec(last_rowvec));
      if (outs.size() >= 4 && i % 3 == 0) s.reads.push_back(full(outs[outs.size() - 4]));  // residual
      if (i % 4 == 1) s.reads.push_back(col_vec(nm("primals_w", layer)));
      if (i % 7 == 2) s.reads.push_back(positions("primals_pos"));
      // Activations saved by the forward pass, each read by 16 neighbouring nodes.
      for (int k = 0; k < 4; ++k) s.reads.push_back(full(nm("saved", i / 4 + k)));
      s.writes = {full(out)};
      outs.push_back(out);
    }
    g.add_node(s);
    if (i % 25 == 24 || i == n - 1) g.add_output(out);  // saved for the backward pass
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

// Median CPU ms of one call of f: samples of at least 1 ms each (the calls of a sample
// averaged) until `samples` samples or 2 s of CPU time.
template <class F>
double median_ms(F f, int samples = 21) {
  std::vector<double> v;
  double spent = 0;
  int batch = 1;
  while (static_cast<int>(v.size()) < samples && (spent < 2000 || v.size() < 3)) {
    double t0 = cpu_ms();
    for (int k = 0; k < batch; ++k) f();
    double t = cpu_ms() - t0;
    spent += t;
    if (t < 1 && batch < (1 << 20)) {
      batch *= 2;
      continue;
    }
    v.push_back(t / batch);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

fx::fuse_config without_log(fx::fuse_config c) {
  c.record_log = false;
  return c;
}

int bench_dumps(const std::vector<std::string>& files) {
  std::printf("%-32s %6s %8s %12s %10s %10s %12s %10s\n", "dump", "nodes", "kernels", "inductor ms", "load ms",
              "fuse ms", "fuse no log", "ratio");
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    fx::inductor_dump d = fx::load_inductor_dump(text, f);
    fx::plan p = fx::fuse_nodes(d.g, d.config);
    double load = median_ms([&] { fx::load_inductor_dump(text, f); });
    double fuse = median_ms([&] { fx::fuse_nodes(d.g, d.config); });
    double quiet = median_ms([&, c = without_log(d.config)] { fx::fuse_nodes(d.g, c); });
    std::string name = f.substr(f.find_last_of('/') + 1);
    std::printf("%-32s %6d %8d %12.3f %10.4f %10.4f %12.4f %9.0fx\n", name.c_str(), d.g.size(), p.group_count(),
                d.fuse_nodes_ms, load, fuse, quiet, d.fuse_nodes_ms / fuse);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--dump") return bench_dumps({argv + 2, argv + argc});
  std::vector<int> sizes{1, 200, 1000, 10000, 100000};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  }
  std::printf("%8s %10s %7s %8s %12s %12s %12s\n", "nodes", "pairs", "rounds", "kernels", "fuse ms", "fuse no log",
              "us per node");
  for (int n : sizes) {
    fx::graph g = make_graph(n);
    fx::plan p = fx::fuse_nodes(g);
    if (fx::fuse_nodes(g, without_log({})).group_count() != p.group_count()) {
      std::fprintf(stderr, "the log changed the schedule\n");
      return 1;
    }
    int samples = n <= 10000 ? 21 : 5;
    double fuse = median_ms([&] { fx::fuse_nodes(g); }, samples);
    double quiet = median_ms([&] { fx::fuse_nodes(g, without_log({})); }, samples);
    std::printf("%8d %10zu %7zu %8d %12.4f %12.4f %12.3f\n", g.size(), p.pairs_examined, p.rounds.size(),
                p.group_count(), fuse, quiet, 1e3 * fuse / n);
  }
  return 0;
}
