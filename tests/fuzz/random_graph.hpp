/// @file random_graph.hpp
/// Seeded random run-time graphs for the scheduler fuzzer, with what each node
/// computes, so that a plan can be executed and compared with unfused execution.
///
/// Every graph lives in a small 2-D world of R x C elements: buffers are full
/// (R x C, row-major), rows (R), columns (C) or scalars. Nodes are pointwise
/// loops over a buffer shape, reductions (of rows, of columns or of everything),
/// in-place updates of an earlier buffer (StarDep + WeakDeps, as Inductor records
/// them) and extern kernels (StarDeps only, never fusable). Reads are contiguous,
/// flat, transposed, reversed, broadcast or a fixed row/column of a buffer.
#pragma once
#include <cstdint>  // std::int64_t, std::uint64_t
#include <random>   // std::mt19937_64
#include <string>   // std::string
#include <vector>   // std::vector

#include <fusedsl/graph/graph.hpp>      // graph, node_spec, memory_dep, star_dep, weak_dep
#include <fusedsl/schedule/config.hpp>  // fuse_config

namespace fx_fuzz {

namespace fx = fusedsl;

/// An affine access as the generator wrote it: the node's flat iteration index is
/// split row-major over `sizes` into variables v_i; the element is offset + sum(strides[i] * v_i).
struct affine_access {
  std::vector<std::int64_t> sizes, strides;
  std::int64_t offset = 0;

  /// The formula in Inductor's spelling ("6*d0 + d1 + 2", "-d0 + 5", "0").
  std::string text() const {
    std::string s;
    for (std::size_t i = 0; i < strides.size(); ++i) {
      std::int64_t k = strides[i];
      if (k == 0) continue;
      if (s.empty()) s += k < 0 ? "-" : "";
      else s += k < 0 ? " - " : " + ";
      std::int64_t a = k < 0 ? -k : k;
      if (a != 1) s += std::to_string(a) + "*";
      s += "d" + std::to_string(i);
    }
    if (s.empty()) return std::to_string(offset);
    if (offset > 0) s += " + " + std::to_string(offset);
    if (offset < 0) s += " - " + std::to_string(-offset);
    return s;
  }
  /// The element read or written at flat iteration index `flat`.
  std::int64_t element(std::int64_t flat) const {
    std::int64_t e = offset;
    for (std::size_t i = sizes.size(); i-- > 0;) {
      e += strides[i] * (flat % sizes[i]);
      flat /= sizes[i];
    }
    return e;
  }
};

/// One value read of a node: buffer, access, and the odd multiplier it enters with.
struct value_read {
  std::string buffer;
  affine_access at;
  std::uint64_t multiplier = 1;
};

/// What a node computes (values are integers modulo 2^32, so that reduction order does not matter).
/// Pointwise: out[p] = mix(add + sum_i multiplier_i * read_i(p)).
/// Reduction: out[p] = sum or max over r of mix(add + sum_i multiplier_i * read_i(p * rnumel + r)).
/// Extern: out[e] = mix(add + (e + 1) * sum of every element of every star-read buffer).
struct node_semantics {
  fx::node_kind kind = fx::node_kind::pointwise;
  std::int64_t numel = 1, rnumel = 1;
  std::vector<value_read> reads;
  std::vector<std::string> star_reads;  ///< extern inputs (whole buffers)
  std::string output;
  affine_access write;  ///< over the pointwise iteration index
  std::uint64_t add = 0;
  bool reduce_max = false;  ///< max instead of sum
};

/// A generated graph: the specs in insertion order, their semantics, the buffers' sizes.
struct random_graph {
  std::int64_t rows = 1, cols = 1;
  std::vector<fx::node_spec> specs;
  std::vector<node_semantics> semantics;  ///< parallel to specs
  std::vector<std::string> inputs, outputs;
  std::vector<std::pair<std::string, std::int64_t>> sizes;  ///< elements per buffer name
  fx::fuse_config config;

  /// The finalized graph of the specs and outputs.
  fx::graph build() const {
    fx::graph g;
    for (const auto& s : specs) g.add_node(s);
    for (const auto& o : outputs) g.add_output(o);
    g.finalize();
    return g;
  }
  /// Elements of buffer `name`.
  std::int64_t size_of(const std::string& name) const {
    for (const auto& [n, s] : sizes)
      if (n == name) return s;
    return -1;
  }
  /// Readable form: the world, the config and one line per node.
  std::string describe() const;
};

namespace detail {

enum class shape { full, row, col, scalar };

/// The generator's state while it adds nodes.
class graph_builder {
 public:
  explicit graph_builder(std::uint64_t seed) : rng_(seed) {}

  random_graph run() {
    out_.rows = 1 + pick(6);
    out_.cols = 1 + pick(7);
    configure();
    int inputs = 1 + pick(4);
    for (int i = 0; i < inputs; ++i) {
      std::string name = "in" + std::to_string(i);
      add_buffer(name, i == 0 ? shape::full : static_cast<shape>(pick(4)));
      out_.inputs.push_back(name);
    }
    int nodes = chance(10) ? 1 + pick(300) : 1 + pick(30);
    two_devices_ = chance(5);
    for (int i = 0; i < nodes; ++i) add_node(i);
    for (const auto& b : live_)
      if (b.producer && (chance(30) || b.name == out_.specs.back().writes[0].buffer)) out_.outputs.push_back(b.name);
    return out_;
  }

 private:
  struct live_buffer {
    std::string name;
    shape s = shape::full;
    bool producer = false;                    ///< written by a node (not a graph input)
    std::vector<std::string> reader_outputs;  ///< outputs of the nodes that read this version
  };
  // A loop dimension: 'r' (R elements) or 'c' (C elements).
  using dims = std::vector<char>;

  int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
  bool chance(int percent) { return pick(100) < percent; }
  std::int64_t extent(char d) const { return d == 'r' ? out_.rows : out_.cols; }

  static dims dims_of(shape s) {
    switch (s) {
      case shape::full: return {'r', 'c'};
      case shape::row: return {'r'};
      case shape::col: return {'c'};
      case shape::scalar: return {};
    }
    return {};
  }
  std::int64_t elements(shape s) const {
    std::int64_t n = 1;
    for (char d : dims_of(s)) n *= extent(d);
    return n;
  }

  void configure() {
    fx::fuse_config& c = out_.config;
    c.aggressive_fusion = chance(20);
    if (chance(20)) c.max_fusion_size = 2 + pick(6);
    c.loop_ordering_after_fusion = !chance(20);
    c.peak_memory_guard = !chance(20);
    c.cpp_backend = chance(30);
  }

  // The C++ backend's loop sizes of a node over `loop` then `reduced` (the pointwise loops
  // merged into one now and then, as Inductor merges contiguous loops).
  void loop_sizes(fx::node_spec& spec, const dims& loop, const dims& reduced) {
    for (char d : loop) spec.loop_sizes.push_back(extent(d));
    for (char d : reduced) spec.reduction_loop_sizes.push_back(extent(d));
    if (spec.loop_sizes.size() > 1 && chance(50)) spec.loop_sizes = {spec.numel};
  }

  void add_buffer(const std::string& name, shape s, bool producer = false) {
    live_.push_back({name, s, producer, {}});
    out_.sizes.emplace_back(name, elements(s));
  }

  // Stride of dimension d in a buffer of shape s (row-major; `transposed` lays a full buffer out as C x R).
  std::int64_t stride(shape s, char d, bool transposed) const {
    if (s == shape::full) {
      if (transposed) return d == 'r' ? 1 : out_.rows;
      return d == 'r' ? out_.cols : 1;
    }
    return 1;
  }

  // An access of buffer b from a loop over `loop` (pointwise dims then reduction dims).
  // Buffer dims missing from the loop are fixed at a random position.
  affine_access read_access(const live_buffer& b, const dims& loop) {
    affine_access a;
    bool transposed = b.s == shape::full && chance(15);
    for (char d : loop) a.sizes.push_back(extent(d));
    a.strides.assign(loop.size(), 0);
    for (char d : dims_of(b.s)) {
      bool found = false;
      for (std::size_t i = 0; i < loop.size(); ++i)
        if (loop[i] == d) {
          a.strides[i] = stride(b.s, d, transposed);
          found = true;
        }
      if (!found) a.offset += stride(b.s, d, transposed) * pick(static_cast<int>(extent(d)));
    }
    bool covers_buffer = loop.size() == 2 && loop[0] == 'r' && loop[1] == 'c' && b.s == shape::full && !transposed;
    if (covers_buffer && chance(15)) {  // reversed: the last element first
      a.offset = out_.rows * out_.cols - 1;
      for (auto& k : a.strides) k = -k;
    } else if (covers_buffer && chance(30)) {  // the same access spelled over one flat loop
      a.sizes = {out_.rows * out_.cols};
      a.strides = {1};
    }
    if (a.offset != 0 || b.s == shape::scalar) {
      bool all_zero = true;
      for (auto k : a.strides) all_zero = all_zero && k == 0;
      if (all_zero && chance(50)) a.sizes.clear(), a.strides.clear();  // a scalar read: "k" over no loop
    }
    return a;
  }

  // The contiguous write of a buffer of shape s over its own loop.
  affine_access write_access(shape s) {
    affine_access a;
    dims d = dims_of(s);
    for (char x : d) {
      a.sizes.push_back(extent(x));
      a.strides.push_back(stride(s, x, false));
    }
    if (d.size() == 2 && chance(30)) {
      a.sizes = {out_.rows * out_.cols};
      a.strides = {1};
    }
    return a;
  }

  static fx::dep_spec to_dep(const std::string& buffer, const affine_access& a, std::int64_t elements) {
    return fx::memory_dep(buffer, a.text(), a.sizes, 4 * elements);
  }

  // Live buffers whose dims all appear in `loop`, or that a missing dim may be fixed for.
  int pick_readable(const dims& loop, bool full_only, const std::string& except) {
    std::vector<int> ok;
    for (std::size_t i = 0; i < live_.size(); ++i) {
      if ((full_only && live_[i].s != shape::full) || live_[i].name == except) continue;
      bool inside = true;
      for (char d : dims_of(live_[i].s)) inside = inside && std::find(loop.begin(), loop.end(), d) != loop.end();
      if (inside || chance(20)) ok.push_back(static_cast<int>(i));
    }
    if (ok.empty()) return -1;
    // Prefer recent buffers, so chains form.
    std::size_t k =
        ok.size() - 1 - static_cast<std::size_t>(pick(static_cast<int>(std::min<std::size_t>(ok.size(), 6))));
    if (chance(30)) k = static_cast<std::size_t>(pick(static_cast<int>(ok.size())));
    return ok[k];
  }

  // Adds `count` reads of live buffers other than `except` (an in-place update reads its
  // target only where it writes it: anything else would race with its own writes).
  void add_value_reads(fx::node_spec& spec, node_semantics& sem, const dims& loop, int count, bool first_full,
                       const std::string& except = {}) {
    for (int i = 0; i < count; ++i) {
      int b = pick_readable(loop, first_full && i == 0, except);
      if (b < 0) b = pick_readable(loop, false, except);
      if (b < 0) continue;
      live_buffer& lb = live_[static_cast<std::size_t>(b)];
      value_read r{lb.name, read_access(lb, loop), (rng_() | 1) & 0xffffffffu};
      spec.reads.push_back(to_dep(lb.name, r.at, elements(lb.s)));
      sem.reads.push_back(r);
      lb.reader_outputs.push_back(sem.output);
    }
  }

  void add_node(int i) {
    fx::node_spec spec;
    node_semantics sem;
    spec.name = "n" + std::to_string(i);
    sem.output = "b" + std::to_string(i);
    spec.device = two_devices_ && chance(10) ? "cuda:0" : "cpu";
    sem.add = rng_() & 0xffffffffu;
    int roll = pick(100);
    shape out_shape = static_cast<shape>(pick(4));
    if (roll < 10) {  // extern kernel: whole-buffer reads, never fused
      sem.kind = spec.kind = fx::node_kind::extern_kernel;
      int n = 1 + pick(2);
      for (int k = 0; k < n; ++k) {
        live_buffer& lb = live_[static_cast<std::size_t>(pick(static_cast<int>(live_.size())))];
        if (std::find(sem.star_reads.begin(), sem.star_reads.end(), lb.name) != sem.star_reads.end()) continue;
        sem.star_reads.push_back(lb.name);
        spec.reads.push_back(fx::star_dep(lb.name, 4 * elements(lb.s)));
        lb.reader_outputs.push_back(sem.output);
      }
      spec.writes.push_back(fx::star_dep(sem.output, 4 * elements(out_shape)));
      sem.numel = spec.numel = elements(out_shape);
      finish(spec, sem, out_shape);
      return;
    }
    if (roll < 25) {  // in-place update of a live buffer
      int t = pick(static_cast<int>(live_.size()));
      live_buffer target = live_[static_cast<std::size_t>(t)];
      dims loop = dims_of(target.s);
      sem.numel = spec.numel = elements(target.s);
      spec.reads.push_back(fx::star_dep(target.name, 4 * elements(target.s)));
      if (chance(60)) {  // x.add_(...) reads x where it writes it
        value_read r{target.name, write_access(target.s), (rng_() | 1) & 0xffffffffu};
        spec.reads.push_back(to_dep(target.name, r.at, elements(target.s)));
        sem.reads.push_back(r);
      }
      add_value_reads(spec, sem, loop, pick(3), false, target.name);
      // Every earlier reader of this version must run before the update.
      std::vector<std::string> waits = live_[static_cast<std::size_t>(t)].reader_outputs;
      std::sort(waits.begin(), waits.end());
      waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
      for (const auto& w : waits)
        if (w != sem.output) spec.reads.push_back(fx::weak_dep(w, sem.output));
      sem.write = write_access(target.s);
      spec.writes.push_back(to_dep(sem.output, sem.write, elements(target.s)));
      live_.erase(live_.begin() + t);  // the old version is gone
      finish(spec, sem, target.s);
      return;
    }
    dims loop = dims_of(out_shape);
    if (roll < 50) {  // reduction into rows, columns or a scalar
      sem.kind = spec.kind = fx::node_kind::reduction;
      sem.reduce_max = chance(40);
      dims reduced;
      if (out_shape == shape::full) out_shape = shape::row;
      if (out_shape == shape::row) loop = {'r'}, reduced = {'c'};
      else if (out_shape == shape::col) loop = {'c'}, reduced = {'r'};
      else loop = {}, reduced = {'r', 'c'};
      sem.numel = spec.numel = elements(out_shape);
      sem.rnumel = spec.rnumel = out_.rows * out_.cols / sem.numel;
      dims all = loop;
      all.insert(all.end(), reduced.begin(), reduced.end());
      add_value_reads(spec, sem, all, 1 + pick(3), true);
      loop_sizes(spec, loop, reduced);
    } else {  // pointwise
      sem.numel = spec.numel = elements(out_shape);
      add_value_reads(spec, sem, loop, 1 + pick(3), out_shape == shape::full);
      loop_sizes(spec, loop, {});
    }
    sem.write = write_access(out_shape);
    spec.writes.push_back(to_dep(sem.output, sem.write, elements(out_shape)));
    finish(spec, sem, out_shape);
  }

  void finish(fx::node_spec& spec, node_semantics& sem, shape s) {
    out_.specs.push_back(spec);
    out_.semantics.push_back(sem);
    add_buffer(sem.output, s, true);
  }

  std::mt19937_64 rng_;
  random_graph out_;
  std::vector<live_buffer> live_;
  bool two_devices_ = false;
};

}  // namespace detail

/// The graph of seed `seed`: 1 to 300 nodes (mostly up to 30), deterministic per seed.
inline random_graph make_random_graph(std::uint64_t seed) { return detail::graph_builder(seed).run(); }

inline std::string random_graph::describe() const {
  std::string s = "world " + std::to_string(rows) + " x " + std::to_string(cols) +
                  "; config: aggressive_fusion=" + std::to_string(config.aggressive_fusion) +
                  " max_fusion_size=" + std::to_string(config.max_fusion_size) +
                  " loop_ordering_after_fusion=" + std::to_string(config.loop_ordering_after_fusion) +
                  " peak_memory_guard=" + std::to_string(config.peak_memory_guard) +
                  " cpp_backend=" + std::to_string(config.cpp_backend) + "\ninputs:";
  for (const auto& i : inputs) s += " " + i + "[" + std::to_string(size_of(i)) + "]";
  s += "\noutputs:";
  for (const auto& o : outputs) s += " " + o;
  s += "\n";
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& sp = specs[i];
    s += "  " + sp.name + " (" + fx::to_string(sp.kind) + ", " + sp.device + ", numel " + std::to_string(sp.numel) +
         ", rnumel " + std::to_string(sp.rnumel) + "):";
    for (const auto& r : sp.reads) {
      if (r.kind == fx::dep_kind::memory) s += " read " + r.buffer + "[" + r.index + "]";
      else if (r.kind == fx::dep_kind::star) s += " star " + r.buffer;
      else s += " weak " + r.buffer;
    }
    for (const auto& w : sp.writes)
      s += " -> " + w.buffer + (w.kind == fx::dep_kind::memory ? "[" + w.index + "]" : "[*]");
    s += "\n";
  }
  return s;
}

}  // namespace fx_fuzz
