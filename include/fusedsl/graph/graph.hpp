/// @file graph.hpp
/// The run-time (and compile-time) graph of scheduler nodes: buffers, deps, users,
/// topological order, ancestors, in-place updates and dead-node elimination.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fusedsl/core/error.hpp>
#include <fusedsl/graph/detail/elements.hpp>
#include <fusedsl/graph/dep.hpp>
#include <fusedsl/graph/detail/index_expr.hpp>
#include <fusedsl/graph/detail/intern.hpp>
#include <fusedsl/graph/node.hpp>

namespace fusedsl {

namespace detail {
struct access_hash {
  constexpr std::uint64_t operator()(const access& a) const {
    std::uint64_t h = hash_mix(a.affine ? 1 : 2, a.sizes.size());
    for (auto s : detail::elements(a.sizes)) h = hash_mix(h, static_cast<std::uint64_t>(s));
    if (a.affine) {
      h = hash_mix(h, static_cast<std::uint64_t>(a.offset));
      for (auto s : detail::elements(a.strides)) h = hash_mix(h, static_cast<std::uint64_t>(s));
    } else {
      h = hash_mix(h, hash_bytes(a.text));
    }
    return h;
  }
};
struct dep_hash {
  constexpr std::uint64_t operator()(const dep& d) const {
    std::uint64_t h = hash_mix(static_cast<std::uint64_t>(d.kind), static_cast<std::uint64_t>(d.buffer));
    h = hash_mix(h, static_cast<std::uint64_t>(d.access + 1));
    return hash_mix(h, static_cast<std::uint64_t>(d.mutating + 1));
  }
};

/// The access of a canonical index text over loops of `sizes`, analysed (analyse_index).
/// (A string_view: g++ 12 cannot move from a by-value std::string in constant evaluation.)
constexpr access text_access(std::string_view canon, const std::vector<std::int64_t>& sizes) {
  access a;
  a.sizes = sizes;
  a.text = canon;
  auto info = analyse_index(a.text, sizes.size());
  a.indirect = info.indirect;
  a.evaluable = info.evaluable;
  a.affine = info.affine;
  a.offset = info.offset;
  a.strides = std::move(info.strides);
  return a;
}

}  // namespace detail

/// One user of a buffer; `weak` users only order themselves after the writer.
struct buffer_user {
  int node = -1;
  bool weak = false;
};

/// What the graph knows about one buffer.
struct buffer_info {
  int producer = -1;                           ///< node writing it; -1 for graph inputs
  std::vector<buffer_user> users;              ///< distinct reading nodes
  bool output = false;                         ///< a graph output (never eliminated, always materialized)
  std::int64_t bytes = 0;                      ///< size hint of the written buffer
  element_type dtype = element_type::unknown;  ///< element type of the producer
  std::int64_t itemsize = 4;                   ///< bytes per element (4 when the type is unknown)
  int real = -1;                               ///< for in-place results: the buffer originally updated
  int renamed = -1;                            ///< the buffer that replaced this one by an in-place update
  int name_rank = 0;                           ///< position of its name among all buffers' names, sorted
};

/// A node of a finalized graph. Node ids are positions in topological order.
struct graph_node {
  std::string name;
  node_kind kind = node_kind::pointwise;
  int device = 0;
  std::int64_t numel = 1, rnumel = 1;
  std::vector<int> reads, writes;    ///< dep ids in order, without repeats
  std::vector<int> buffers;          ///< buffer ids written
  std::vector<std::string> members;  ///< names reported for it in plans
  element_type dtype = element_type::unknown;
  std::vector<int> unmet;                              ///< read deps on buffers that some node writes
  std::vector<int> preds;                              ///< writers of `unmet`, ascending, without repeats
  std::vector<int> users;                              ///< nodes reading any of `buffers`, ascending
  std::vector<std::int64_t> ranges;                    ///< loop sizes: pointwise ranges then reduction ranges
  std::size_t pointwise_ranges = 0;                    ///< how many of `ranges` are pointwise
  int mutates = -1;                                    ///< buffer this node updates in place, -1 if none
  int foreach_group = -1;                              ///< index into graph::foreach_groups(), -1 if none
  std::int64_t unsplit_numel = 0, unsplit_rnumel = 0;  ///< a split reduction's sizes before the split; else 0
  /// The C++ backend's group: node_spec's loop sizes, or {numel} and (a reduction) {rnumel}.
  std::vector<std::int64_t> loop_sizes, reduction_loop_sizes;
};

/// A foreach (combo) kernel: independent nodes that Inductor schedules as one node
/// (ForeachKernelSchedulerNode) and fuses member by member.
struct foreach_info {
  std::string name;          ///< the group's name (node_spec::foreach_group)
  std::vector<int> members;  ///< node ids, in topological order
};

/// A graph of scheduler nodes. Build it with add_node/add_output, then finalize().
/// Works the same in constant evaluation (for graphs lowered from C++ programs) and at
/// run time (for graphs loaded from files); malformed graphs throw fusedsl::error.
class graph {
 public:
  /// Adds a node; returns its position in insertion order.
  constexpr int add_node(const node_spec& spec) {
    // By reference: g++ 12 cannot move from a by-value std::string parameter in constant evaluation.
    finalized_ = false;
    specs_.push_back(spec);
    return static_cast<int>(specs_.size()) - 1;
  }
  /// Adds a node, taking its spec.
  constexpr int add_node(node_spec&& spec) {
    finalized_ = false;
    specs_.push_back(std::move(spec));
    return static_cast<int>(specs_.size()) - 1;
  }
  /// Marks a buffer as a graph output: it is always materialized and never eliminated.
  constexpr void add_output(std::string_view buffer) {
    finalized_ = false;
    output_names_.push_back(std::string(buffer));
  }

  /// Validates the nodes and computes buffers, deps, users, order and in-place renames.
  /// Nodes are put in topological order (keeping insertion order where it already is one).
  constexpr void finalize();
  /// True after finalize() and before the next change.
  constexpr bool finalized() const { return finalized_; }

  /// Number of nodes.
  constexpr int size() const { return static_cast<int>(nodes_.size()); }
  /// Node `i` (topological position).
  constexpr const graph_node& node(int i) const { return nodes_[static_cast<std::size_t>(i)]; }
  /// The foreach groups, in order of their first member.
  constexpr const std::vector<foreach_info>& foreach_groups() const { return foreach_groups_; }
  /// Node id by name, -1 if absent.
  constexpr int find_node(std::string_view name) const { return node_names_.find(std::string(name)); }
  /// Number of buffers (inputs included).
  constexpr int buffer_count() const { return buffer_names_.size(); }
  /// Buffer id by name, -1 if absent.
  constexpr int find_buffer(std::string_view name) const { return buffer_names_.find(std::string(name)); }
  /// Name of buffer `b`.
  constexpr const std::string& buffer_name(int b) const { return buffer_names_[b]; }
  /// Facts about buffer `b`.
  constexpr const buffer_info& buffer(int b) const { return buffers_[static_cast<std::size_t>(b)]; }
  /// Name of device `d`.
  constexpr const std::string& device_name(int d) const { return devices_[d]; }
  /// Number of distinct devices (ids 0 .. device_count() - 1).
  constexpr int device_count() const { return devices_.size(); }
  /// Dep by id.
  constexpr const dep& get_dep(int id) const { return deps_[id]; }
  /// Number of distinct deps.
  constexpr int dep_count() const { return deps_.size(); }
  /// Access by id.
  constexpr const access& get_access(int id) const { return accesses_[id]; }
  /// Id of an existing dep equal to `d`, or -1.
  constexpr int find_dep(const dep& d) const { return deps_.find(d); }
  /// Number of distinct accesses.
  constexpr int access_count() const { return accesses_.size(); }
  /// Id of an existing access equal to `a`, or -1.
  constexpr int find_access(const access& a) const { return accesses_.find(a); }

  /// The latest name of buffer `b` after in-place updates (Inductor's mutation_renames).
  constexpr int rename(int b) const {
    for (int guard = 0; b >= 0 && buffers_[static_cast<std::size_t>(b)].renamed >= 0 && guard <= size(); ++guard)
      b = buffers_[static_cast<std::size_t>(b)].renamed;
    return b;
  }
  /// The buffer originally updated by the in-place chain that produced `b` (itself otherwise).
  constexpr int real_name(int b) const {
    int r = buffers_[static_cast<std::size_t>(b)].real;
    return r >= 0 ? r : b;
  }

  /// True when there is a path a -> ... -> b (a is an ancestor of b).
  constexpr bool is_ancestor(int a, int b) const {
    if (a >= b) return false;
    std::vector<char> seen(static_cast<std::size_t>(b + 1), 0);
    std::vector<int> stack{b};
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (v <= a) {
        if (v == a) return true;
        continue;
      }
      if (v - a <= ancestor_window()) {
        if (near_ancestor(a, v)) return true;
        continue;
      }
      if (seen[static_cast<std::size_t>(v)]) continue;
      seen[static_cast<std::size_t>(v)] = 1;
      for (int p : nodes_[static_cast<std::size_t>(v)].preds) stack.push_back(p);
    }
    return false;
  }
  /// How far back near_ancestor() sees: the ancestors of a node among the nodes at most
  /// this many positions before it are kept as bits, so that the scheduler's many
  /// dependency checks between nearby nodes (and walks that reach nearby nodes) do not
  /// walk the graph.
  constexpr int ancestor_window() const { return 64 * ancestor_words_; }
  /// True when a is an ancestor of b, for b - ancestor_window() <= a < b.
  constexpr bool near_ancestor(int a, int b) const {
    const int d = b - a - 1;
    const auto word =
        static_cast<std::size_t>(b) * static_cast<std::size_t>(ancestor_words_) + static_cast<std::size_t>(d / 64);
    return (ancestor_bits_[word] >> (d % 64) & 1) != 0;
  }
  /// All ancestors of node `n`, ascending.
  constexpr std::vector<int> ancestors(int n) const {
    std::vector<char> seen(static_cast<std::size_t>(n + 1), 0);
    std::vector<int> stack(nodes_[static_cast<std::size_t>(n)].preds), out;
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (seen[static_cast<std::size_t>(v)]) continue;
      seen[static_cast<std::size_t>(v)] = 1;
      out.push_back(v);
      for (int p : nodes_[static_cast<std::size_t>(v)].preds) stack.push_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  /// Removes nodes none of whose buffers is needed (only weak users or none, not an
  /// output), repeatedly, as Inductor's dead_node_elimination does; drops WeakDeps on
  /// removed nodes. Returns the names removed. The graph is finalized again.
  constexpr std::vector<std::string> eliminate_dead_nodes();

  /// Human-readable form of a dep, e.g. MemoryDep(buf0, 4096*d0 + d1, [1024, 4096]).
  constexpr std::string dep_to_string(int id) const {
    const dep& d = deps_[id];
    std::string s;
    if (d.kind == dep_kind::memory) {
      const access& a = accesses_[d.access];
      s = "MemoryDep(" + buffer_names_[d.buffer] + ", ";
      if (a.text.empty()) s += detail::affine_text(a.offset, a.strides);  // given as integers
      else s += a.text;
      s += ", [";
      for (std::size_t i = 0; i < a.sizes.size(); ++i) s += (i ? ", " : "") + detail::to_decimal(a.sizes[i]);
      s += "])";
    } else if (d.kind == dep_kind::star) {
      s = "StarDep(" + buffer_names_[d.buffer] + ")";
    } else {
      s = "WeakDep(" + buffer_names_[d.buffer] + ", mutating=" + buffer_names_[d.mutating] + ")";
    }
    return s;
  }

 private:
  constexpr int compile_dep(const node_spec& n, const dep_spec& d);
  constexpr void order_topologically();
  constexpr void infer_mutation(int i);

  std::vector<node_spec> specs_;
  std::vector<std::string> output_names_;
  std::vector<graph_node> nodes_;
  detail::string_table node_names_, buffer_names_, devices_;
  detail::interner<access, detail::access_hash> accesses_;
  detail::interner<dep, detail::dep_hash> deps_;
  std::vector<buffer_info> buffers_;
  std::vector<foreach_info> foreach_groups_;
  // Per node, ancestor_words_ words: bit d - 1 is set when the node d positions before is an ancestor.
  std::vector<std::uint64_t> ancestor_bits_;
  int ancestor_words_ = 0;
  bool finalized_ = false;
};

constexpr int graph::compile_dep(const node_spec& n, const dep_spec& d) {
  dep out;
  out.kind = d.kind;
  out.buffer = buffer_names_.intern(d.buffer);
  out.bytes = d.bytes;
  if (d.buffer.empty()) throw error("node " + n.name + ": a dep has an empty buffer name");
  if (d.kind == dep_kind::memory) {
    for (auto s : detail::elements(d.sizes))
      if (s < 0) throw error("node " + n.name + ": MemoryDep on " + d.buffer + " has a negative size");
    access a;
    a.sizes = d.sizes;
    if (d.index.empty()) {
      // An affine index given as integers: nothing to parse (the constexpr lowering's path).
      if (d.strides.size() != d.sizes.size())
        throw error("node " + n.name + ": MemoryDep on " + d.buffer + " has an empty index and " +
                    detail::to_decimal(static_cast<std::int64_t>(d.strides.size())) + " strides for " +
                    detail::to_decimal(static_cast<std::int64_t>(d.sizes.size())) + " sizes");
      a.evaluable = a.affine = true;
      a.offset = d.offset;
      a.strides = d.strides;
    } else {
      std::vector<std::string> vars = d.var_names;
      if (vars.empty())
        for (std::size_t i = 0; i < d.sizes.size(); ++i) vars.push_back(detail::var_name(i));
      if (vars.size() != d.sizes.size())
        throw error("node " + n.name + ": MemoryDep on " + d.buffer + " has " +
                    detail::to_decimal(static_cast<std::int64_t>(d.sizes.size())) + " sizes but " +
                    detail::to_decimal(static_cast<std::int64_t>(vars.size())) + " var_names");
      a = detail::text_access(detail::canonical_index(d.index, vars), d.sizes);
    }
    out.access = accesses_.intern(a);
  } else if (d.kind == dep_kind::weak) {
    if (d.mutating_buf.empty()) throw error("node " + n.name + ": WeakDep on " + d.buffer + " has no mutating_buf");
    out.mutating = buffer_names_.intern(d.mutating_buf);
  }
  return deps_.intern(out);
}

constexpr void graph::order_topologically() {
  // Writers by buffer name, over the specs as given.
  const std::size_t n = specs_.size();
  detail::string_table names;
  std::vector<int> writer;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = specs_[i];
    if (s.name.empty()) throw error("a node has an empty name");
    if (names.find(s.name) >= 0) throw error("node " + s.name + ": duplicate node name");
    names.intern(s.name);
  }
  detail::string_table bufs;
  auto written = [](const node_spec& s) {
    std::vector<std::string> out = s.buffers;
    if (out.empty())
      for (const auto& w : detail::elements(s.writes))
        if (!detail::contains(out, w.buffer)) out.push_back(w.buffer);
    return out;
  };
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& b : written(specs_[i])) {
      int id = bufs.intern(b);
      if (static_cast<std::size_t>(id) < writer.size()) {
        throw error("node " + specs_[i].name + ": buffer " + b + " is also written by node " +
                    specs_[static_cast<std::size_t>(writer[static_cast<std::size_t>(id)])].name);
      }
      writer.push_back(static_cast<int>(i));
    }
  std::vector<std::vector<int>> preds(n);
  bool sorted = true;
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& r : detail::elements(specs_[i].reads)) {
      int b = bufs.find(r.buffer);
      if (b < 0) continue;
      int w = writer[static_cast<std::size_t>(b)];
      if (w == static_cast<int>(i)) continue;
      preds[i].push_back(w);
      if (w > static_cast<int>(i)) sorted = false;
    }
  if (sorted) return;
  // Kahn's algorithm, smallest insertion index first, so a nearly sorted graph stays put.
  std::vector<std::vector<int>> succ(n);
  std::vector<int> indeg(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (int p : detail::elements(preds[i])) {
      succ[static_cast<std::size_t>(p)].push_back(static_cast<int>(i));
      ++indeg[i];
    }
  std::vector<int> heap, order;
  auto greater = [](int a, int b) { return a > b; };
  for (std::size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) heap.push_back(static_cast<int>(i));
  std::make_heap(heap.begin(), heap.end(), greater);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    int v = heap.back();
    heap.pop_back();
    order.push_back(v);
    for (int s : succ[static_cast<std::size_t>(v)])
      if (--indeg[static_cast<std::size_t>(s)] == 0) {
        heap.push_back(s);
        std::push_heap(heap.begin(), heap.end(), greater);
      }
  }
  if (order.size() != n) {
    for (std::size_t i = 0; i < n; ++i)
      if (indeg[i] > 0) throw error("node " + specs_[i].name + ": reads: dependency cycle through this node");
  }
  std::vector<node_spec> out;
  out.reserve(n);
  for (int v : detail::elements(order)) out.push_back(specs_[static_cast<std::size_t>(v)]);
  specs_ = std::move(out);
}

// Which buffer, if any, node i updates in place. Inductor's dumps show an in-place
// update as a StarDep read of the old buffer plus WeakDeps (mutating_buf = the node's
// own buffer) on every earlier reader of it.
constexpr void graph::infer_mutation(int i) {
  graph_node& nd = nodes_[static_cast<std::size_t>(i)];
  int weak_mutating = -1, weak_target = -1;
  std::vector<int> stars;
  for (int r : detail::elements(nd.reads)) {
    const dep& d = deps_[r];
    if (d.kind == dep_kind::star) stars.push_back(d.buffer);
    if (d.kind == dep_kind::weak && weak_mutating < 0 && detail::contains(nd.buffers, d.mutating)) {
      weak_mutating = d.mutating;
      weak_target = d.buffer;
    }
  }
  int updated = -1;
  if (weak_mutating >= 0) {
    int prev = buffers_[static_cast<std::size_t>(weak_target)].producer;
    if (prev >= 0)
      for (int s : detail::elements(stars))
        for (int r : nodes_[static_cast<std::size_t>(prev)].reads)
          if (updated < 0 && deps_[r].buffer == s) updated = s;
    if (updated < 0 && stars.size() == 1) updated = stars[0];
  } else if (stars.size() == 1 && (nd.kind == node_kind::pointwise || nd.kind == node_kind::reduction) &&
             buffers_[static_cast<std::size_t>(stars[0])].producer < 0) {
    // A generated kernel reading a whole graph input without a pattern only does so to
    // update it in place (no earlier reader, hence no WeakDeps).
    updated = stars[0];
  }
  if (updated < 0 || nd.buffers.empty()) return;
  int result = weak_mutating >= 0 ? weak_mutating : nd.buffers[0];
  nd.mutates = updated;
  int real = real_name(updated);
  buffers_[static_cast<std::size_t>(result)].real = real;
  buffers_[static_cast<std::size_t>(updated)].renamed = result;
  if (real != result) buffers_[static_cast<std::size_t>(real)].renamed = result;
}

constexpr void graph::finalize() {
  order_topologically();
  nodes_.clear();
  nodes_.reserve(specs_.size());
  node_names_ = {};
  buffer_names_ = {};
  devices_ = {};
  accesses_ = {};
  deps_ = {};
  buffers_.clear();
  foreach_groups_.clear();
  auto grow_buffers = [&] { buffers_.resize(static_cast<std::size_t>(buffer_names_.size())); };
  auto add_unique = [](std::vector<int>& v, int x) {
    if (!detail::contains(v, x)) v.push_back(x);
  };

  for (const auto& s : detail::elements(specs_)) {
    graph_node nd;
    nd.name = s.name;
    node_names_.intern(s.name);
    nd.kind = s.kind;
    nd.device = devices_.intern(s.device);
    nd.numel = s.numel;
    nd.rnumel = s.rnumel;
    if (s.numel < 0 || s.rnumel < 0) throw error("node " + s.name + ": group: negative numel or rnumel");
    if (s.unsplit_numel != 0 || s.unsplit_rnumel != 0) {
      if (s.kind != node_kind::reduction || s.unsplit_numel < 1 || s.unsplit_rnumel < 2)
        throw error("node " + s.name +
                    ": unsplit_numel/unsplit_rnumel: only a reduction can be a split one, with numel >= 1 and rnumel "
                    ">= 2 before the split");
      nd.unsplit_numel = s.unsplit_numel;
      nd.unsplit_rnumel = s.unsplit_rnumel;
    }
    if (!s.loop_sizes.empty() || !s.reduction_loop_sizes.empty()) {
      std::int64_t p = 1, q = 1;
      for (auto z : detail::elements(s.loop_sizes)) p *= z;
      for (auto z : detail::elements(s.reduction_loop_sizes)) q *= z;
      if (p != s.numel || q != s.rnumel)
        throw error("node " + s.name + ": loop_sizes/reduction_loop_sizes: their products must be numel and rnumel");
      nd.loop_sizes = s.loop_sizes;
      nd.reduction_loop_sizes = s.reduction_loop_sizes;
    } else {
      nd.loop_sizes.push_back(s.numel);
      if (s.rnumel != 1) nd.reduction_loop_sizes.push_back(s.rnumel);
    }
    nd.dtype = s.dtype;
    if (s.members.empty()) nd.members.push_back(s.name);  // not `?:`: g++ 12 mis-tracks the temporary in constexpr
    else nd.members = s.members;
    if (!s.foreach_group.empty()) {
      // Inductor groups only kernels it generates, and never nests foreach kernels.
      if (s.kind != node_kind::pointwise && s.kind != node_kind::reduction)
        throw error("node " + s.name + ": foreach group " + s.foreach_group +
                    ": a member must be a pointwise or reduction node, not " + to_string(s.kind));
      auto it = std::find_if(foreach_groups_.begin(), foreach_groups_.end(),
                             [&](const foreach_info& f) { return f.name == s.foreach_group; });
      if (it == foreach_groups_.end()) {
        foreach_groups_.push_back({s.foreach_group, {}});
        it = foreach_groups_.end() - 1;
      } else if (nd.device != nodes_[static_cast<std::size_t>(it->members.front())].device) {
        throw error("node " + s.name + ": foreach group " + s.foreach_group + " spans two devices");
      }
      nd.foreach_group = static_cast<int>(it - foreach_groups_.begin());
      it->members.push_back(static_cast<int>(nodes_.size()));
    }
    for (const auto& d : detail::elements(s.reads)) add_unique(nd.reads, compile_dep(s, d));
    for (const auto& d : detail::elements(s.writes)) add_unique(nd.writes, compile_dep(s, d));
    if (s.buffers.empty()) {
      for (int w : detail::elements(nd.writes)) add_unique(nd.buffers, deps_[w].buffer);
    } else {
      for (const auto& b : detail::elements(s.buffers)) add_unique(nd.buffers, buffer_names_.intern(b));
    }
    grow_buffers();
    int id = static_cast<int>(nodes_.size());
    for (int b : detail::elements(nd.buffers)) {
      auto& bi = buffers_[static_cast<std::size_t>(b)];
      bi.producer = id;
      bi.dtype = nd.dtype;
      bi.itemsize = fusedsl::itemsize(nd.dtype);
    }
    for (int w : detail::elements(nd.writes)) {
      auto& bi = buffers_[static_cast<std::size_t>(deps_[w].buffer)];
      bi.bytes = std::max(bi.bytes, deps_[w].bytes);
    }
    // Loop ranges: the longest MemoryDep sizes, split into pointwise and reduction parts.
    const std::vector<std::int64_t>* longest = nullptr;
    for (int r : detail::elements(nd.writes))
      if (deps_[r].kind == dep_kind::memory && (!longest || accesses_[deps_[r].access].sizes.size() > longest->size()))
        longest = &accesses_[deps_[r].access].sizes;
    for (int r : detail::elements(nd.reads))
      if (deps_[r].kind == dep_kind::memory && (!longest || accesses_[deps_[r].access].sizes.size() > longest->size()))
        longest = &accesses_[deps_[r].access].sizes;
    if (longest) {
      std::int64_t prod = 1;
      std::size_t k = 0;
      while (k < longest->size() && prod != nd.numel) prod *= (*longest)[k++];
      std::int64_t rest = 1;
      for (std::size_t j = k; j < longest->size(); ++j) rest *= (*longest)[j];
      if (prod == nd.numel && rest == nd.rnumel) {
        nd.ranges = *longest;
        nd.pointwise_ranges = k;
      }
    }
    if (nd.ranges.empty() && nd.kind != node_kind::extern_kernel && nd.kind != node_kind::nop) {
      nd.ranges.push_back(nd.numel);
      nd.pointwise_ranges = 1;
      if (nd.rnumel != 1) nd.ranges.push_back(nd.rnumel);
    }
    nodes_.push_back(std::move(nd));
  }
  if (!foreach_groups_.empty())
    for (const auto& nd : detail::elements(nodes_))
      if (nd.kind == node_kind::foreach)
        throw error("node " + nd.name + ": a foreach node cannot join a graph with foreach groups (give its members, " +
                    "each with node_spec::foreach_group)");
  for (std::size_t i = 0; i < nodes_.size(); ++i) infer_mutation(static_cast<int>(i));

  // Users, unmet deps and predecessors.
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    graph_node& nd = nodes_[i];
    for (int r : detail::elements(nd.reads)) {
      const dep& d = deps_[r];
      auto& users = buffers_[static_cast<std::size_t>(d.buffer)].users;
      bool weak = d.kind == dep_kind::weak;
      auto it =
          std::find_if(users.begin(), users.end(), [&](const buffer_user& u) { return u.node == static_cast<int>(i); });
      if (it == users.end()) users.push_back({static_cast<int>(i), weak});
      else it->weak = it->weak && weak;
      int p = buffers_[static_cast<std::size_t>(d.buffer)].producer;
      if (p < 0 || p == static_cast<int>(i)) continue;
      nd.unmet.push_back(r);
      add_unique(nd.preds, p);
      add_unique(nodes_[static_cast<std::size_t>(p)].users, static_cast<int>(i));
    }
    std::sort(nd.preds.begin(), nd.preds.end());
  }
  for (auto& nd : detail::elements(nodes_)) std::sort(nd.users.begin(), nd.users.end());
  // Ancestors within the window: each predecessor, and its own window shifted by its distance.
  const std::size_t words = std::min<std::size_t>(32, (nodes_.size() + 63) / 64);
  ancestor_words_ = static_cast<int>(words);
  ancestor_bits_.assign(nodes_.size() * words, 0);
  for (std::size_t v = 0; v < nodes_.size(); ++v) {
    std::uint64_t* out = ancestor_bits_.data() + v * words;
    for (int p : detail::elements(nodes_[v].preds)) {
      const std::size_t s = v - static_cast<std::size_t>(p), q = s / 64, r = s % 64;
      if (s > 64 * words) continue;
      out[(s - 1) / 64] |= std::uint64_t{1} << ((s - 1) % 64);
      const std::uint64_t* in = ancestor_bits_.data() + static_cast<std::size_t>(p) * words;
      for (std::size_t k = q; k < words; ++k)
        out[k] |= in[k - q] << r | (r != 0 && k > q ? in[k - q - 1] >> (64 - r) : 0);
    }
  }
  for (const auto& o : detail::elements(output_names_)) {
    int b = buffer_names_.intern(o);
    grow_buffers();
    buffers_[static_cast<std::size_t>(rename(b))].output = true;
  }
  // An updated graph input is an output: its final version must reach memory.
  for (int b = 0; b < buffer_names_.size(); ++b)
    if (buffers_[static_cast<std::size_t>(b)].producer < 0 && buffers_[static_cast<std::size_t>(b)].renamed >= 0)
      buffers_[static_cast<std::size_t>(rename(b))].output = true;
  std::vector<int> by_name(static_cast<std::size_t>(buffer_names_.size()));
  for (int b = 0; b < buffer_names_.size(); ++b) by_name[static_cast<std::size_t>(b)] = b;
  std::sort(by_name.begin(), by_name.end(), [&](int x, int y) { return buffer_names_[x] < buffer_names_[y]; });
  for (std::size_t r = 0; r < by_name.size(); ++r)
    buffers_[static_cast<std::size_t>(by_name[r])].name_rank = static_cast<int>(r);
  finalized_ = true;
}

constexpr std::vector<std::string> graph::eliminate_dead_nodes() {
  if (!finalized_) finalize();
  const int n = size();
  std::vector<char> removed(static_cast<std::size_t>(n), 0);
  // Live (non-weak) uses per buffer, from nodes not removed.
  std::vector<int> live(buffers_.size(), 0);
  for (std::size_t b = 0; b < buffers_.size(); ++b)
    for (const auto& u : detail::elements(buffers_[b].users))
      if (!u.weak) ++live[b];
  std::vector<std::string> names;
  for (int i = n - 1; i >= 0; --i) {
    const graph_node& nd = nodes_[static_cast<std::size_t>(i)];
    bool active = false;
    for (int b : detail::elements(nd.buffers))
      if (buffers_[static_cast<std::size_t>(b)].output || live[static_cast<std::size_t>(b)] > 0) active = true;
    if (active) continue;
    removed[static_cast<std::size_t>(i)] = 1;
    names.push_back(nd.name);
    std::vector<int> seen;
    for (int r : detail::elements(nd.reads)) {
      const dep& d = deps_[r];
      if (d.kind == dep_kind::weak || detail::contains(seen, d.buffer)) continue;
      seen.push_back(d.buffer);
      for (const auto& u : buffers_[static_cast<std::size_t>(d.buffer)].users)
        if (u.node == i && !u.weak) --live[static_cast<std::size_t>(d.buffer)];
    }
  }
  if (names.empty()) return names;
  std::vector<node_spec> kept;
  std::vector<std::string> dead_buffers;
  for (int i = 0; i < n; ++i) {
    if (removed[static_cast<std::size_t>(i)])
      for (int b : nodes_[static_cast<std::size_t>(i)].buffers) dead_buffers.push_back(buffer_names_[b]);
  }
  for (int i = 0; i < n; ++i) {
    if (removed[static_cast<std::size_t>(i)]) continue;
    node_spec s = specs_[static_cast<std::size_t>(i)];
    std::erase_if(s.reads, [&](const dep_spec& d) {
      return d.kind == dep_kind::weak && detail::contains(dead_buffers, d.buffer);
    });
    kept.push_back(s);
  }
  specs_ = std::move(kept);
  finalize();
  return names;
}

}  // namespace fusedsl
