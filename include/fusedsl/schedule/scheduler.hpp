/// @file scheduler.hpp
/// Inductor's fuse_nodes: rounds of candidate collection, scoring and greedy fusion,
/// with every can_fuse gate. Plain constexpr C++ (vectors, sorting, integer ids), so the
/// same code schedules graphs in constant evaluation and at run time.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fusedsl/core/error.hpp>
#include <fusedsl/graph/graph.hpp>
#include <fusedsl/graph/detail/elements.hpp>
#include <fusedsl/schedule/config.hpp>
#include <fusedsl/schedule/detail/sort.hpp>
#include <fusedsl/schedule/plan.hpp>
#include <fusedsl/schedule/reason.hpp>
#include <fusedsl/schedule/score.hpp>
#include <fusedsl/schedule/state.hpp>

namespace fusedsl {

namespace detail {
/// Open-addressing set of 64-bit keys (pairs of node ids), constexpr-friendly.
class pair_set {
 public:
  /// Inserts `k`; false when it was already present.
  constexpr bool insert(std::uint64_t k) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash_mix(0, k) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == empty) {
        slots_[i] = k;
        ++count_;
        return true;
      }
      if (slots_[i] == k) return false;
    }
  }

 private:
  static constexpr std::uint64_t empty = ~std::uint64_t{0};
  constexpr void grow() {
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, empty);
    count_ = 0;
    for (auto k : detail::elements(old))
      if (k != empty) insert(k);
  }
  std::vector<std::uint64_t> slots_;
  std::size_t count_ = 0;
};

/// Minimums over the suffixes of positions 0 .. n-1 whose values only decrease: a
/// segment tree, O(log n) per change and per query.
class suffix_min {
 public:
  /// `n` positions, none holding a value.
  constexpr explicit suffix_min(int n) : n_(static_cast<std::size_t>(n)), tree_(2 * n_, none) {}
  /// Lowers the value at `pos` to `value` (when it is lower).
  constexpr void lower(int pos, int value) {
    for (std::size_t i = static_cast<std::size_t>(pos) + n_; i > 0 && value < tree_[i]; i /= 2) tree_[i] = value;
  }
  /// The lowest value at positions `from` .. n-1; INT_MAX when there is none.
  constexpr int query(int from) const {
    int result = none;
    for (std::size_t l = static_cast<std::size_t>(from) + n_, r = 2 * n_; l < r; l /= 2, r /= 2) {
      if (l % 2 == 1) result = std::min(result, tree_[l++]);
      if (r % 2 == 1) result = std::min(result, tree_[--r]);
    }
    return result;
  }

 private:
  static constexpr int none = std::numeric_limits<int>::max();
  std::size_t n_;
  std::vector<int> tree_;
};

constexpr std::int64_t product(const std::vector<std::int64_t>& v, std::size_t from = 0,
                               std::size_t to = ~std::size_t{0}) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < v.size() && i < to; ++i) p *= v[i];
  return p;
}
}  // namespace detail

/// Bytes two nodes would stop moving if fused (Inductor's score_fusion_memory).
struct shared_memory {
  std::int64_t exact = 0;    ///< deps equal on both sides (same buffer, index and sizes)
  std::int64_t overlap = 0;  ///< same-buffer reads at different indices (split/cat patterns)
};

/// The fusion engine. `Policy` supplies the heuristics Inductor keeps in
/// `V.choices` and the backend's can_fuse (see inductor_policy); the scheduler
/// itself holds the legality rules (order, deps, cycles) that no policy may relax.
template <class Policy>
class scheduler {
 public:
  scheduler(const scheduler&) = delete;
  scheduler& operator=(const scheduler&) = delete;
  constexpr ~scheduler() { delete tmp_; }

  /// Prepares to schedule `g` (which must be finalized).
  /// Bad input throws from the member initializers, before the scratch space is allocated.
  constexpr scheduler(const graph& g, fuse_config cfg, Policy policy)
      : g_(checked_graph(g)), cfg_(checked_config(cfg)), policy_(std::move(policy)), spans_(g.size()) {
    const int n = g.size();
    sched_.reserve(static_cast<std::size_t>(2 * n + 1));
    ranges_.reserve(static_cast<std::size_t>(n));
    loop_orders_.reserve(static_cast<std::size_t>(n));
    fused_of_.reserve(static_cast<std::size_t>(n));
    alive_.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const graph_node& nd = g.node(i);
      sched_node s;
      s.members = {i};
      s.reads = nd.reads;
      s.writes = nd.writes;
      s.unmet = nd.unmet;
      s.buffers = nd.buffers;
      s.reduction = nd.kind == node_kind::reduction;
      s.template_kernel = nd.kind == node_kind::template_kernel;
      s.foreach = nd.kind == node_kind::foreach;
      s.extern_kernel = nd.kind == node_kind::extern_kernel;
      s.nop = nd.kind == node_kind::nop;
      s.mutation = nd.mutates >= 0;
      s.device = nd.device;
      s.numel = nd.numel;
      s.rnumel = nd.rnumel;
      s.min_order = s.max_order = i;
      sched_.push_back(std::move(s));
      ranges_.push_back(nd.ranges);
      loop_orders_.emplace_back();
      fused_of_.push_back(i);
      alive_.push_back(i);
    }
    tmp_->dep_mark.assign(static_cast<std::size_t>(g.dep_count()), 0);
    tmp_->dep_seen.assign(static_cast<std::size_t>(g.dep_count()), 0);
    tmp_->buf_mark.assign(static_cast<std::size_t>(g.buffer_count()), 0);
    tmp_->node_mark.assign(static_cast<std::size_t>(n), 0);
    tmp_->node_seen.assign(static_cast<std::size_t>(2 * n), 0);
    // Buffer names ranked alphabetically: the topological sort visits deps by name.
    std::vector<int> byname(static_cast<std::size_t>(g.buffer_count()));
    for (int b = 0; b < g.buffer_count(); ++b) byname[static_cast<std::size_t>(b)] = b;
    std::sort(byname.begin(), byname.end(), [&](int x, int y) { return g.buffer_name(x) < g.buffer_name(y); });
    name_rank_.assign(byname.size(), 0);
    for (std::size_t r = 0; r < byname.size(); ++r)
      name_rank_[static_cast<std::size_t>(byname[r])] = static_cast<int>(r);
  }

  /// Runs fuse_nodes: up to max_rounds rounds of fuse_nodes_once until the node count
  /// stops changing or reaches 1, then the loop-reordering round; returns the plan.
  constexpr plan run() {
    plan p;
    for (int round = 0; round < cfg_.max_rounds; ++round) {
      std::size_t before = alive_.size();
      fuse_nodes_once(false, p);
      if (alive_.size() == before || alive_.size() == 1) break;
    }
    if (cfg_.loop_ordering_after_fusion) fuse_nodes_once(true, p);
    finish(p);
    return p;
  }

  // ------------------------------------------------------------------ queries

  /// The graph being scheduled.
  constexpr const graph& source() const { return g_; }
  /// The settings.
  constexpr const fuse_config& config() const { return cfg_; }
  /// Scheduler node `s` (plain nodes have the ids of their graph node).
  constexpr const sched_node& node(int s) const { return sched_[static_cast<std::size_t>(s)]; }
  /// Current top-level node containing graph node `i` (Inductor's name_to_fused_node).
  constexpr int fused_of(int i) const { return fused_of_[static_cast<std::size_t>(i)]; }
  /// Current top-level nodes, in order.
  constexpr const std::vector<int>& nodes() const { return alive_; }
  /// Dep by id (graph deps, then deps created by loop reordering).
  constexpr const dep& get_dep(int id) const {
    return id < g_.dep_count() ? g_.get_dep(id) : extra_deps_[id - g_.dep_count()];
  }
  /// Access by id.
  constexpr const access& get_access(int id) const {
    return id < g_.access_count() ? g_.get_access(id) : extra_access_[id - g_.access_count()];
  }
  /// Loop ranges of graph node `i` (pointwise then reduction; permuted by loop reordering).
  constexpr const std::vector<std::int64_t>& ranges(int i) const { return ranges_[static_cast<std::size_t>(i)]; }
  /// How many of ranges(i) are pointwise.
  constexpr std::size_t pointwise_ranges(int i) const { return g_.node(i).pointwise_ranges; }

  /// Bytes saved by fusing a and b: exactly shared deps, else same-buffer read overlap.
  constexpr shared_memory score_fusion_memory(int a, int b) const {
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    shared_memory r;
    if (A.template_kernel || B.template_kernel) {
      // Template outputs reach epilogues through views, so buffers are matched by name.
      auto all = [&](const sched_node& s) {
        std::vector<int> v;
        ++tmp_->stamp;
        for (const auto* list : {&s.reads, &s.writes})
          for (int d : detail::elements(*list)) mark_once(v, d);
        return v;
      };
      std::vector<int> da = all(A), db = all(B);
      for (int x : detail::elements(da))
        for (int y : detail::elements(db)) {
          const dep& p = get_dep(x);
          const dep& q = get_dep(y);
          if (x == y || (p.kind != dep_kind::weak && q.kind != dep_kind::weak && p.buffer == q.buffer))
            r.exact += std::max(p.bytes, q.bytes);
        }
      return r;
    }
    ++tmp_->stamp;
    for (const auto* list : {&B.reads, &B.writes})
      for (int d : detail::elements(*list)) tmp_->dep_mark[static_cast<std::size_t>(d)] = tmp_->stamp;
    int other = tmp_->stamp;
    ++tmp_->stamp;
    for (const auto* list : {&A.reads, &A.writes})
      for (int d : detail::elements(*list)) {
        if (tmp_->dep_seen[static_cast<std::size_t>(d)] == tmp_->stamp) continue;
        tmp_->dep_seen[static_cast<std::size_t>(d)] = tmp_->stamp;
        if (tmp_->dep_mark[static_cast<std::size_t>(d)] == other) r.exact += get_dep(d).bytes;
      }
    if (r.exact == 0 && !A.reduction && !B.reduction) r.overlap = overlap_score(A, B);
    return r;
  }

  /// Inductor's peak-memory guard: true when the single-use inputs the two nodes
  /// would stop sharing (by buffer shape) outweigh 32x the bytes the fusion saves.
  constexpr bool can_fusion_increase_peak_memory(int a, int b) const {
    struct key {
      int device, dtype;
      std::int64_t elems;
      constexpr bool operator==(const key&) const = default;
    };
    auto single_use = [&](const sched_node& s) {
      std::vector<key> keys;
      for (int r : detail::elements(s.reads)) {
        int buf = get_dep(r).buffer;
        const buffer_info& bi = g_.buffer(buf);
        if (bi.producer < 0) continue;
        if (bi.users.size() + (bi.output ? 1 : 0) != 1) continue;
        const graph_node& p = g_.node(bi.producer);
        key k{p.device, bi.dtype, bi.bytes / bi.itemsize};
        if (!detail::contains(keys, k)) keys.push_back(k);
      }
      return keys;
    };
    auto has_single_use = [&](const sched_node& s) {
      for (int r : detail::elements(s.reads)) {
        const buffer_info& bi = g_.buffer(get_dep(r).buffer);
        if (bi.producer >= 0 && bi.users.size() + (bi.output ? 1 : 0) == 1) return true;
      }
      return false;
    };
    if (!has_single_use(node(a)) || !has_single_use(node(b))) return false;
    std::vector<key> ka = single_use(node(a)), kb = single_use(node(b));
    std::int64_t overhead = 0;
    for (const key& k : detail::elements(ka))
      if (detail::contains(kb, k)) overhead += k.elems;
    if (overhead == 0) return false;
    shared_memory m = score_fusion_memory(a, b);
    return overhead > 32 * (m.exact + m.overlap);
  }

  /// True when the fused node would read and write more than `limit` distinct buffers.
  constexpr bool too_many_io(int a, int b, int limit) const {
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    std::vector<int> names;
    auto add = [&](int buf) {
      if (!detail::contains(names, buf)) names.push_back(buf);
    };
    std::vector<int> a_writes;
    for (int w : detail::elements(A.writes)) a_writes.push_back(get_dep(w).buffer);
    for (const sched_node* s : {&A, &B})
      for (int r : detail::elements(s->reads)) {
        int buf = get_dep(r).buffer;
        if (s == &B && detail::contains(a_writes, buf)) continue;
        add(buf);
      }
    for (const sched_node* s : {&A, &B})
      for (int w : detail::elements(s->writes)) {
        int buf = get_dep(w).buffer;
        if (s == &A && !read_outside(buf, A, B)) continue;
        add(buf);
      }
    return static_cast<int>(names.size()) > limit;
  }

  /// True when some graph node of `x` is an ancestor of some graph node of `y`.
  constexpr bool depends_on(int x, int y) const {
    const sched_node& X = node(x);
    const sched_node& Y = node(y);
    if (X.min_order >= Y.max_order) return false;
    int t = ++tmp_->visit;
    for (int m : detail::elements(X.members)) tmp_->node_mark[static_cast<std::size_t>(m)] = t;
    std::vector<int>& stack = tmp_->stack;
    stack.clear();
    for (int m : detail::elements(Y.members))
      for (int p : detail::elements(g_.node(m).preds)) stack.push_back(p);
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      if (tmp_->node_seen[static_cast<std::size_t>(v)] == t) continue;
      tmp_->node_seen[static_cast<std::size_t>(v)] = t;
      if (tmp_->node_mark[static_cast<std::size_t>(v)] == t) return true;
      if (v < X.min_order) continue;
      for (int p : detail::elements(g_.node(v).preds)) stack.push_back(p);
    }
    return false;
  }

  /// True when fusing a and b would close a cycle through another fused node: some
  /// path leaves a or b, enters a fused node, and comes back (will_fusion_create_cycle).
  constexpr bool will_fusion_create_cycle(int a, int b) const {
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    // Positions below `floor` cannot be on such a path. Graph edges only lead to higher
    // positions, so a path that goes below the pair's lowest position and comes back must
    // jump up inside fused nodes with members on both sides, chained; `floor` is the
    // lowest position such a chain reaches: lowered to the lowest min_order of the fused
    // nodes whose max_order reaches it, until none does.
    // Pruning at the pair's lowest position instead misses cycles through a fused node
    // whose members all come before the pair (found by tests/fuzz, seeds 10, 29, 43).
    int floor = std::min(A.min_order, B.min_order);
    for (int low = spans_.query(floor); low < floor; low = spans_.query(floor)) floor = low;
    int t = ++tmp_->visit;
    for (const sched_node* s : {&A, &B})
      for (int m : detail::elements(s->members)) tmp_->node_mark[static_cast<std::size_t>(m)] = t;
    const std::size_t n = static_cast<std::size_t>(g_.size());
    // Walk ancestors backwards; a state is (graph node, passed through a fused node).
    std::vector<std::pair<int, bool>>& stack = tmp_->walk;
    stack.clear();
    for (const sched_node* s : {&A, &B})
      for (int m : detail::elements(s->members))
        for (int p : detail::elements(g_.node(m).preds)) stack.push_back({p, false});
    tmp_->group_seen.resize(sched_.size(), 0);
    while (!stack.empty()) {
      auto [v, through] = stack.back();
      stack.pop_back();
      if (tmp_->node_mark[static_cast<std::size_t>(v)] == t) {
        if (through) return true;
        continue;
      }
      std::size_t slot = static_cast<std::size_t>(v) + (through ? n : 0);
      if (tmp_->node_seen[slot] == t) continue;
      tmp_->node_seen[slot] = t;
      int gid = fused_of_[static_cast<std::size_t>(v)];
      const sched_node& G = node(gid);
      if (G.fused()) {
        if (tmp_->group_seen[static_cast<std::size_t>(gid)] == t || G.max_order < floor) continue;
        tmp_->group_seen[static_cast<std::size_t>(gid)] = t;
        for (int m : detail::elements(G.members))
          for (int p : detail::elements(g_.node(m).preds)) stack.push_back({p, true});
      } else {
        if (v < floor) continue;
        for (int p : detail::elements(g_.node(v).preds)) stack.push_back({p, through});
      }
    }
    return false;
  }

  /// Every gate of Inductor's Scheduler.can_fuse in its order; `none` when a and b may fuse.
  /// In the loop-reordering round a node's loops may be permuted to match (as Inductor does).
  constexpr why_no_fuse can_fuse(int a, int b, bool reorder_round = false) {
    if (a == b) return why_no_fuse::same_node;
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    if (A.nop && !A.template_kernel) return why_no_fuse::node1_nop;
    if (A.extern_kernel && !A.template_kernel) return why_no_fuse::node1_extern;
    if ((B.extern_kernel || B.nop) && !B.template_kernel) return why_no_fuse::node2_extern_or_nop;
    if (depends_on(b, a)) return why_no_fuse::order;
    if (B.template_kernel) {
      if (!cfg_.prologue_fusion) return why_no_fuse::prologue_off;
      if (A.reduction || A.template_kernel) return why_no_fuse::prologue_not_pointwise;
      if (!cfg_.template_prologue_inputs) return why_no_fuse::prologue_inputs;
    }
    if (A.template_kernel && (B.mutation || B.reduction || !cfg_.epilogue_fusion))
      return why_no_fuse::template_epilogue;
    if (A.device != B.device) return why_no_fuse::device_mismatch;
    shared_memory m = score_fusion_memory(a, b);
    std::int64_t shared = m.exact + m.overlap;
    if (reorder_round && cfg_.loop_ordering_after_fusion && shared < cfg_.score_fusion_memory_threshold) {
      std::int64_t s = shared_data_after_reordering_loop(a, b);
      if (s >= 0) shared = s;
    }
    if (auto r = policy_.can_fuse(*this, a, b, shared); r != why_no_fuse::none) return r;
    if (depends_on(a, b)) {
      if (auto r = can_fuse_vertical(a, b); r != why_no_fuse::none) return r;
      if (auto r = policy_.can_fuse_vertical(*this, a, b, shared); r != why_no_fuse::none) return r;
    } else {
      if (auto r = policy_.can_fuse_horizontal(*this, a, b, shared); r != why_no_fuse::none) return r;
    }
    return policy_.backend_can_fuse(*this, a, b);
  }

  /// Producer/consumer legality: every read of b from a matches a's write exactly,
  /// and nothing b still needs is computed from a by a third node.
  constexpr why_no_fuse can_fuse_vertical(int a, int b) const {
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    // Deps of b not yet satisfied, with their (renamed) buffer; matched ones become -1.
    auto& remaining = tmp_->remaining;
    remaining.clear();
    for (int d : detail::elements(B.unmet)) {
      const dep& dd = get_dep(d);
      if (dd.kind == dep_kind::weak && fusable_weak_dep(d, a, b)) continue;
      remaining.push_back({g_.rename(dd.buffer), d});
    }
    for (int w : detail::elements(A.writes)) {
      const dep& wd = get_dep(w);
      if (wd.kind != dep_kind::memory) continue;
      int key = g_.rename(wd.buffer);
      // Inductor removes matches from the per-buffer list it is iterating over, which
      // skips the element after each match; reproduced so the same deps stay unmatched.
      bool skip = false;
      for (auto& e : detail::elements(remaining)) {
        if (e.first != key || e.second < 0) continue;
        if (skip) {
          skip = false;
          continue;
        }
        if (fusable_read_and_write(e.second, w)) {
          e.second = -1;
          skip = true;
        }
      }
    }
    auto& names = tmp_->names;
    names.clear();
    for (const auto& e : detail::elements(remaining)) {
      if (e.second < 0) continue;
      int buf = get_dep(e.second).buffer;
      if (!detail::contains(names, buf)) names.push_back(buf);
    }
    for (int buf : detail::elements(names))
      if (detail::contains(A.buffers, buf)) return why_no_fuse::memory_deps_mismatch;
    auto& groups = tmp_->groups;
    groups.clear();
    for (int buf : detail::elements(names)) {
      int op = g_.buffer(buf).producer;
      if (op < 0) continue;
      int gid = fused_of(op);
      if (detail::contains(groups, gid)) continue;
      groups.push_back(gid);
      if (depends_on(a, gid)) return why_no_fuse::intermediate_nodes;
    }
    return why_no_fuse::none;
  }

  /// A WeakDep of b on a can be ignored when the fused kernel updates in place exactly
  /// what a reads: same index, one reader (Inductor's fusable_weak_dep).
  constexpr bool fusable_weak_dep(int weak, int a, int b) const {
    const dep& w = get_dep(weak);
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    if (!detail::contains(A.buffers, w.buffer)) return false;
    int write = -1, count = 0;
    for (int d : detail::elements(B.writes))
      if (get_dep(d).buffer == w.mutating) {
        write = d;
        ++count;
      }
    if (count != 1) return false;
    const dep& wr = get_dep(write);
    if (wr.kind != dep_kind::memory) return false;
    const access& wa = get_access(wr.access);
    if (wa.indirect || !uses_all_vars(wa)) return false;
    int real = g_.real_name(w.mutating);
    for (int r : detail::elements(A.reads)) {
      const dep& rd = get_dep(r);
      // Every version of the updated storage counts: a chain of in-place updates
      // (x -> b2 -> b4) shares one buffer, so a read of b2 sees what the update of b2 writes.
      if (g_.real_name(rd.buffer) != real) continue;
      if (rd.kind != dep_kind::memory) return false;
      const access& ra = get_access(rd.access);
      if (ra.indirect || !(ra == wa)) return false;
    }
    return true;
  }

  /// A read of b matches a's write: same (renamed) buffer and index, and the read's
  /// sizes start with the write's (broadcasting drops trailing loops).
  constexpr bool fusable_read_and_write(int read, int write) const {
    const dep& r = get_dep(read);
    const dep& w = get_dep(write);
    if (r.kind != dep_kind::memory || w.kind != dep_kind::memory) return false;
    if (g_.rename(r.buffer) != w.buffer) return false;
    const access& ra = get_access(r.access);
    const access& wa = get_access(w.access);
    if (ra.indirect || wa.indirect) return false;
    if (cfg_.loop_ordering_after_fusion && ra.sizes.size() != wa.sizes.size() && ra.affine && wa.affine) {
      // Loops were not merged when the nodes were built: compare merged forms.
      auto nr = normalized(ra), nw = normalized(wa);
      return nr.offset == nw.offset && nr.strides == nw.strides && nr.sizes.size() >= nw.sizes.size() &&
             std::equal(nw.sizes.begin(), nw.sizes.end(), nr.sizes.begin());
    }
    return same_index(ra, wa) && ra.sizes.size() >= wa.sizes.size() &&
           std::equal(wa.sizes.begin(), wa.sizes.end(), ra.sizes.begin());
  }

  /// A per-node cache for policies: `compute()` once per scheduler node until the
  /// node's loops are reordered (e.g. the SIMD backend's tiling of the node alone).
  template <class F>
  constexpr const std::vector<std::int64_t>& memo(int s, F compute) const {
    auto i = static_cast<std::size_t>(s);
    if (tmp_->memo.size() <= i) {
      tmp_->memo.resize(sched_.size());
      tmp_->memo_valid.resize(sched_.size(), 0);
    }
    if (!tmp_->memo_valid[i]) {
      tmp_->memo[i] = compute();
      tmp_->memo_valid[i] = 1;
    }
    return tmp_->memo[i];
  }

  /// Throws fusedsl::error for settings no schedule can honour (counts below their minimum,
  /// a ratio outside [0, 1]), naming the field, what it must be and what it was.
  static constexpr const fuse_config& checked_config(const fuse_config& c) {
    auto at_least = [](const char* field, std::int64_t value, std::int64_t minimum) {
      if (value < minimum)
        throw error(std::string("fuse_nodes: fuse_config.") + field + ": must be at least " +
                    detail::to_decimal(minimum) + ", got " + detail::to_decimal(value));
    };
    at_least("max_rounds", c.max_rounds, 0);
    at_least("max_fusion_size", c.max_fusion_size, 1);
    at_least("max_fusion_buffer_group_pairwise_attempts", c.max_fusion_buffer_group_pairwise_attempts, 1);
    at_least("max_proximity", c.max_proximity, 0);
    at_least("max_fusion_unique_io_buffers", c.max_fusion_unique_io_buffers, 0);
    if (!(c.min_overlap_ratio >= 0.0 && c.min_overlap_ratio <= 1.0))
      throw error("fuse_nodes: fuse_config.min_overlap_ratio: must be between 0 and 1");
    return c;
  }
  /// `g`, or fusedsl::error when it is not finalized.
  static constexpr const graph& checked_graph(const graph& g) {
    if (!g.finalized()) throw error("fuse_nodes: graph: call finalize() before scheduling");
    return g;
  }

  /// What every round does before it looks at pairs: drop the WeakDeps made redundant
  /// (so that check_fusion judges a pair as the first round of fuse_nodes does).
  constexpr void start_round() {
    for (int s : detail::elements(alive_)) prune_redundant_deps(s);
  }

 private:
  // ------------------------------------------------------------ helpers

  constexpr void mark_once(std::vector<int>& out, int d) const {
    if (tmp_->dep_seen[static_cast<std::size_t>(d)] == tmp_->stamp) return;
    tmp_->dep_seen[static_cast<std::size_t>(d)] = tmp_->stamp;
    out.push_back(d);
  }

  static constexpr bool uses_all_vars(const access& a) {
    if (a.affine) {  // sympy drops zero terms, so a variable appears exactly when its stride is not 0
      for (std::size_t i = 0; i < a.sizes.size(); ++i)
        if (i >= a.strides.size() || a.strides[i] == 0) return false;
      return true;
    }
    for (std::size_t i = 0; i < a.sizes.size(); ++i) {
      std::string v = detail::var_name(i);
      bool found = false;
      for (std::size_t p = a.text.find(v); p != std::string::npos && !found; p = a.text.find(v, p + 1)) {
        bool left = p == 0 || !detail::is_ident_char(a.text[p - 1]);
        bool right = p + v.size() >= a.text.size() || !detail::is_ident_char(a.text[p + v.size()]);
        found = left && right;
      }
      if (!found) return false;
    }
    return true;
  }

  // Index equality as sympy sees it: by value for affine formulas, by text otherwise.
  static constexpr bool same_index(const access& x, const access& y) {
    if (x.affine != y.affine) return false;
    if (!x.affine) return x.text == y.text;
    if (x.offset != y.offset) return false;
    std::size_t n = std::max(x.strides.size(), y.strides.size());
    for (std::size_t i = 0; i < n; ++i) {
      std::int64_t p = i < x.strides.size() ? x.strides[i] : 0;
      std::int64_t q = i < y.strides.size() ? y.strides[i] : 0;
      if (p != q) return false;
    }
    return true;
  }

  // Merged loops without trailing loops the index does not use (MemoryDep.normalize()).
  static constexpr detail::merged_loops normalized(const access& a) {
    auto m = detail::merge_loops(a.sizes, a.strides, a.offset);
    while (!m.strides.empty() && m.strides.back() == 0) {
      m.strides.pop_back();
      m.sizes.pop_back();
    }
    return m;
  }

  // Loops sorted by decreasing stride, then merged (MemoryDep.normalize_with_stride_order()).
  static constexpr detail::merged_loops stride_ordered(const access& a) {
    std::vector<std::size_t> order(a.sizes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::vector<std::int64_t> st(a.sizes.size(), 0);
    for (std::size_t i = 0; i < st.size() && i < a.strides.size(); ++i) st[i] = a.strides[i];
    detail::python_sort_descending(order, [&](std::size_t x, std::size_t y) { return st[x] < st[y]; });
    std::vector<std::int64_t> sizes, strides;
    for (auto i : detail::elements(order)) {
      sizes.push_back(a.sizes[i]);
      strides.push_back(st[i]);
    }
    return detail::merge_loops(sizes, strides, a.offset);
  }

  constexpr bool read_outside(int buf, const sched_node& A, const sched_node& B) const {
    const buffer_info& bi = g_.buffer(buf);
    if (bi.output) return true;
    for (const auto& u : detail::elements(bi.users)) {
      bool inside = detail::contains(A.members, u.node) || detail::contains(B.members, u.node);
      if (!inside) return true;
    }
    return false;
  }

  // Same-buffer reads at different indices (Inductor's buffer-overlap score).
  constexpr std::int64_t overlap_score(const sched_node& A, const sched_node& B) const {
    auto size = [&](int d) {
      std::int64_t s = get_dep(d).bytes;
      return s > 0 ? s : std::int64_t{10};
    };
    int t = ++tmp_->stamp;
    for (int r : detail::elements(B.reads)) tmp_->buf_mark[static_cast<std::size_t>(get_dep(r).buffer)] = t;
    int common = ++tmp_->stamp;
    bool any = false;
    for (int r : detail::elements(A.reads)) {
      auto& m = tmp_->buf_mark[static_cast<std::size_t>(get_dep(r).buffer)];
      if (m == t || m == common) {
        m = common;
        any = true;
      }
    }
    if (!any) return 0;
    std::int64_t total1 = 0, total2 = 0, c1 = 0, c2 = 0;
    for (int r : detail::elements(A.reads)) {
      total1 += size(r);
      if (tmp_->buf_mark[static_cast<std::size_t>(get_dep(r).buffer)] == common) c1 += size(r);
    }
    for (int r : detail::elements(B.reads)) {
      total2 += size(r);
      if (tmp_->buf_mark[static_cast<std::size_t>(get_dep(r).buffer)] == common) c2 += size(r);
    }
    std::int64_t total = std::max(total1, total2);
    if (total == 0) return 0;
    std::int64_t c = std::max(c1, c2);
    return static_cast<double>(c) / static_cast<double>(total) >= cfg_.min_overlap_ratio ? c : 0;
  }

  constexpr int intern_dep(const dep& d) {
    int id = g_.find_dep(d);
    if (id >= 0) return id;
    id = extra_dep_ids_.find(d);
    if (id < 0) {
      id = extra_dep_ids_.intern(d);
      extra_deps_.push_back(d);
      tmp_->dep_mark.push_back(0);
      tmp_->dep_seen.push_back(0);
    }
    return g_.dep_count() + id;
  }
  constexpr int intern_access(const access& a) {
    int id = g_.find_access(a);
    if (id >= 0) return id;
    id = extra_access_ids_.find(a);
    if (id < 0) {
      id = extra_access_ids_.intern(a);
      extra_access_.push_back(a);
    }
    return g_.access_count() + id;
  }

  // The loop order of `self` that gives it the strides of `other` (decide_loop_order_to_match).
  static constexpr std::vector<std::size_t> loop_order_to_match(const access& self, const access& other) {
    auto fits = [](const access& a) {
      if (!a.affine) return false;
      for (std::size_t i = 0; i < a.sizes.size(); ++i)
        if (a.sizes[i] <= 1 || i >= a.strides.size() || a.strides[i] == 0) return false;
      for (std::size_t i = 0; i < a.strides.size(); ++i)
        for (std::size_t j = i + 1; j < a.strides.size(); ++j)
          if (a.strides[i] == a.strides[j]) return false;
      return true;
    };
    if (!fits(self) || !fits(other)) return {};
    std::vector<std::size_t> order;
    for (auto s : detail::elements(other.strides)) {
      auto it = std::find(self.strides.begin(), self.strides.end(), s);
      if (it == self.strides.end()) return {};
      order.push_back(static_cast<std::size_t>(it - self.strides.begin()));
    }
    return order;
  }

  // Permutes the loops of every graph node of s so that `self_dep` reads like `other_dep`.
  constexpr bool reorder_loops(int s, int self_dep, int other_dep) {
    const sched_node& S = node(s);
    if (S.template_kernel) return false;
    const std::vector<std::int64_t>* sizes = nullptr;
    for (int m : detail::elements(S.members)) {
      const sched_node& M = node(m);
      if (M.extern_kernel || M.nop || M.foreach || M.reduction) return false;
      if (sizes && *sizes != ranges(m)) return false;
      sizes = &ranges(m);
    }
    const access& sa = get_access(get_dep(self_dep).access);
    const access& oa = get_access(get_dep(other_dep).access);
    if (!sizes || sizes->size() != sa.sizes.size() || sa.sizes.size() != oa.sizes.size()) return false;
    auto order = loop_order_to_match(sa, oa);
    if (order.empty()) return false;
    // Every MemoryDep of the members must be affine for us to rewrite it.
    for (int m : detail::elements(S.members))
      for (const auto* list : {&node(m).reads, &node(m).writes})
        for (int d : detail::elements(*list))
          if (get_dep(d).kind == dep_kind::memory && !get_access(get_dep(d).access).affine) return false;
    const std::size_t nv = order.size();
    for (int m : detail::elements(S.members)) {
      std::vector<std::int64_t> old = ranges(m), fresh(nv);
      for (std::size_t j = 0; j < nv; ++j) fresh[j] = old[order[j]];
      ranges_[static_cast<std::size_t>(m)] = fresh;
      // Compose with earlier reorders, so the plan can say which graph loop each kernel loop is.
      std::vector<int>& lo = loop_orders_[static_cast<std::size_t>(m)];
      if (lo.empty())
        for (std::size_t j = 0; j < nv; ++j) lo.push_back(static_cast<int>(j));
      std::vector<int> composed(nv);
      for (std::size_t j = 0; j < nv; ++j) composed[j] = lo[order[j]];
      lo = composed;
      auto rewrite = [&](std::vector<int>& list) {
        for (int& d : list) {
          dep dd = get_dep(d);
          if (dd.kind != dep_kind::memory) continue;
          const access& a = get_access(dd.access);
          access na;
          na.affine = na.evaluable = true;
          na.offset = a.offset;
          std::vector<std::int64_t> st(nv, 0);
          for (std::size_t j = 0; j < nv; ++j) st[j] = order[j] < a.strides.size() ? a.strides[order[j]] : 0;
          std::size_t keep = nv;
          while (keep > 0 && st[keep - 1] == 0) --keep;
          na.strides.assign(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(keep));
          na.sizes.assign(fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(keep));
          dd.access = intern_access(na);
          d = intern_dep(dd);
        }
      };
      sched_node& M = sched_[static_cast<std::size_t>(m)];
      rewrite(M.reads);
      rewrite(M.writes);
      M.unmet.clear();
      for (int r : detail::elements(M.reads))
        if (g_.buffer(get_dep(r).buffer).producer >= 0) M.unmet.push_back(r);
    }
    if (node(s).fused()) refresh_group(s);
    tmp_->memo_valid.assign(tmp_->memo_valid.size(), 0);
    return true;
  }

  // Loop reordering (shared_data_after_reordering_loop): -1 when nothing was reordered.
  constexpr std::int64_t shared_data_after_reordering_loop(int a, int b) {
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    if (A.template_kernel || B.template_kernel) return -1;
    auto last_dep = [&](const sched_node& s, int buf) {
      int found = -1;
      for (const auto* list : {&s.reads, &s.writes})
        for (int d : detail::elements(*list))
          if (get_dep(d).buffer == buf) found = d;
      return found;
    };
    std::vector<int> common;
    for (const auto* list : {&A.reads, &A.writes})
      for (int d : detail::elements(*list)) {
        int buf = get_dep(d).buffer;
        if (last_dep(B, buf) >= 0 && !detail::contains(common, buf)) common.push_back(buf);
      }
    if (common.empty()) return -1;
    int best_l = -1, best_r = -1;
    std::int64_t best = -1;
    for (int buf : detail::elements(common)) {
      int l = last_dep(A, buf), r = last_dep(B, buf);
      const dep& ld = get_dep(l);
      const dep& rd = get_dep(r);
      bool same;
      if (ld.kind == dep_kind::memory && rd.kind == dep_kind::memory) {
        const access& la = get_access(ld.access);
        const access& ra = get_access(rd.access);
        same = (la.affine && ra.affine) ? stride_ordered(la) == stride_ordered(ra) : l == r;
      } else {
        same = l == r;
      }
      if (!same) continue;
      std::int64_t numel = ld.kind == dep_kind::memory ? detail::product(get_access(ld.access).sizes) : ld.bytes;
      if (numel > best) {
        best = numel;
        best_l = l;
        best_r = r;
      }
    }
    if (best_l < 0) return -1;
    const dep& ld = get_dep(best_l);
    const dep& rd = get_dep(best_r);
    if (ld.kind != dep_kind::memory || rd.kind != dep_kind::memory) return -1;
    const access& la = get_access(ld.access);
    const access& ra = get_access(rd.access);
    if (la.sizes.size() != ra.sizes.size()) {
      if (la.affine && ra.affine && normalized(la) == normalized(ra)) return ld.bytes;
      return -1;
    }
    bool done = false;
    if (!A.reduction) done = reorder_loops(a, best_l, best_r);
    else if (!B.reduction) done = reorder_loops(b, best_r, best_l);
    if (!done) return -1;
    shared_memory m = score_fusion_memory(a, b);
    return m.exact + m.overlap;
  }

  // Recomputes a fused node's deps from its members (refresh_group_node_dependencies).
  constexpr void refresh_group(int s) {
    sched_node& S = sched_[static_cast<std::size_t>(s)];
    const std::vector<int>& members = S.members;
    S.writes.clear();
    S.reads.clear();
    S.unmet.clear();
    int w = ++tmp_->stamp;
    for (int m : detail::elements(members))
      for (int d : detail::elements(node(m).writes))
        if (tmp_->dep_mark[static_cast<std::size_t>(d)] != w) {
          tmp_->dep_mark[static_cast<std::size_t>(d)] = w;
          S.writes.push_back(d);
        }
    int r = ++tmp_->stamp;
    for (int m : detail::elements(members))
      for (int d : detail::elements(node(m).reads))
        if (tmp_->dep_mark[static_cast<std::size_t>(d)] != w && tmp_->dep_seen[static_cast<std::size_t>(d)] != r) {
          tmp_->dep_seen[static_cast<std::size_t>(d)] = r;
          S.reads.push_back(d);
        }
    int own = ++tmp_->stamp;
    for (int b : detail::elements(S.buffers)) tmp_->buf_mark[static_cast<std::size_t>(b)] = own;
    int u = ++tmp_->stamp;
    for (int m : detail::elements(members))
      for (int d : detail::elements(node(m).unmet))
        if (tmp_->dep_mark[static_cast<std::size_t>(d)] != w &&
            tmp_->buf_mark[static_cast<std::size_t>(get_dep(d).buffer)] != own &&
            tmp_->dep_seen[static_cast<std::size_t>(d)] != u) {
          tmp_->dep_seen[static_cast<std::size_t>(d)] = u;
          S.unmet.push_back(d);
        }
  }

  // FusedSchedulerNode(node1.get_nodes() + node2.get_nodes()).
  constexpr int fuse(int a, int b) {
    sched_node f;
    const sched_node& A = node(a);
    const sched_node& B = node(b);
    f.members = A.members;
    f.members.insert(f.members.end(), B.members.begin(), B.members.end());
    f.buffers = A.buffers;
    f.buffers.insert(f.buffers.end(), B.buffers.begin(), B.buffers.end());
    f.min_order = std::min(A.min_order, B.min_order);
    f.max_order = std::max(A.max_order, B.max_order);
    int group_from = -1;
    for (int m : detail::elements(f.members)) {
      const sched_node& M = node(m);
      f.reduction = f.reduction || M.reduction;
      f.template_kernel = f.template_kernel || M.template_kernel;
      f.foreach = f.foreach || M.foreach;
      f.mutation = f.mutation || M.mutation;
      if (group_from < 0 && M.reduction) group_from = m;
    }
    if (group_from < 0) group_from = f.members.front();
    f.device = node(group_from).device;
    f.numel = node(group_from).numel;
    f.rnumel = node(group_from).rnumel;
    int id = static_cast<int>(sched_.size());
    spans_.lower(f.max_order, f.min_order);
    sched_.push_back(std::move(f));
    refresh_group(id);
    for (int m : sched_.back().members) fused_of_[static_cast<std::size_t>(m)] = id;
    return id;
  }

  // Drops WeakDeps made redundant by fusion (_prune_redundant_deps).
  constexpr void prune_redundant_deps(int s) {
    sched_node& S = sched_[static_cast<std::size_t>(s)];
    bool any_weak = false;
    for (int d : detail::elements(S.unmet)) any_weak = any_weak || get_dep(d).kind == dep_kind::weak;
    if (!any_weak) return;
    std::vector<std::pair<int, int>> counts;
    for (int d : detail::elements(S.unmet)) {
      const dep& dd = get_dep(d);
      if (dd.kind == dep_kind::weak) continue;
      int gid = fused_of(g_.buffer(dd.buffer).producer);
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& e) { return e.first == gid; });
      if (it == counts.end()) counts.push_back({gid, 1});
      else ++it->second;
    }
    std::vector<int> prune;
    for (int d : detail::elements(S.unmet)) {
      const dep& dd = get_dep(d);
      if (dd.kind != dep_kind::weak) continue;
      int gid = fused_of(g_.buffer(dd.buffer).producer);
      bool counted =
          std::find_if(counts.begin(), counts.end(), [&](const auto& e) { return e.first == gid; }) != counts.end();
      if ((counted && fusable_weak_dep(d, gid, s)) || gid == s) prune.push_back(d);
    }
    if (prune.empty()) return;
    sched_node& T = sched_[static_cast<std::size_t>(s)];
    auto pruned = [&](int d) { return detail::contains(prune, d); };
    std::erase_if(T.reads, pruned);
    // set_read_writes: unmet becomes every read of a buffer some node writes.
    T.unmet.clear();
    for (int r : detail::elements(T.reads))
      if (g_.buffer(get_dep(r).buffer).producer >= 0) T.unmet.push_back(r);
  }

  constexpr std::vector<std::pair<int, int>> get_possible_fusions(bool reorder_round, round_log* log,
                                                                  std::size_t& examined) {
    std::vector<std::pair<int, int>> found;
    detail::pair_set seen;
    auto check_all_pairs = [&](std::span<const int> list) {
      const std::size_t window = static_cast<std::size_t>(cfg_.max_fusion_buffer_group_pairwise_attempts);
      for (std::size_t i = 0; i < list.size(); ++i)
        for (std::size_t j = i + 1; j < list.size() && j <= i + window; ++j) {
          int n1 = list[i], n2 = list[j];
          if (!seen.insert((static_cast<std::uint64_t>(n1) << 32) | static_cast<std::uint32_t>(n2))) continue;
          ++examined;
          why_no_fuse r = can_fuse(n1, n2, reorder_round);
          if (r == why_no_fuse::none) {
            found.push_back({n1, n2});
            continue;
          }
          const sched_node& N2 = node(n2);
          if ((N2.template_kernel || N2.foreach) && can_fuse(n2, n1, reorder_round) == why_no_fuse::none) {
            found.push_back({n2, n1});
            continue;
          }
          if (log && cfg_.record_rejected)
            log->rejected.push_back(
                {index_in_round_[static_cast<std::size_t>(n1)], index_in_round_[static_cast<std::size_t>(n2)], r});
        }
    };
    // Buckets of nodes by every buffer they use, in order of first use. Built flat
    // (uses in node order, then a stable counting sort) to avoid a vector per buffer.
    auto& uses = tmp_->uses;    // (buffer, node) in traversal order
    auto& count = tmp_->count;  // per buffer
    uses.clear();
    count.assign(static_cast<std::size_t>(g_.buffer_count()), 0);
    std::vector<int> bucket_order;
    for (int s : detail::elements(alive_)) {
      const sched_node& S = node(s);
      if (S.unfusable()) continue;
      int t = ++tmp_->stamp;
      // used_buffer_names(): each member's reads then writes, in member order.
      for (int m : detail::elements(S.members))
        for (const auto* list : {&node(m).reads, &node(m).writes})
          for (int d : detail::elements(*list)) {
            int buf = get_dep(d).buffer;
            if (tmp_->buf_mark[static_cast<std::size_t>(buf)] == t) continue;
            tmp_->buf_mark[static_cast<std::size_t>(buf)] = t;
            if (count[static_cast<std::size_t>(buf)]++ == 0) bucket_order.push_back(buf);
            uses.push_back({buf, s});
          }
    }
    std::vector<int> bucket_start(static_cast<std::size_t>(g_.buffer_count()) + 1, 0), filled(uses.size());
    {
      int at = 0;
      for (int buf : detail::elements(bucket_order)) {
        bucket_start[static_cast<std::size_t>(buf)] = at;
        at += count[static_cast<std::size_t>(buf)];
        count[static_cast<std::size_t>(buf)] = bucket_start[static_cast<std::size_t>(buf)];
      }
      for (const auto& u : detail::elements(uses))
        filled[static_cast<std::size_t>(count[static_cast<std::size_t>(u.first)]++)] = u.second;
    }
    for (int buf : detail::elements(bucket_order)) {
      std::size_t b = static_cast<std::size_t>(buf);
      // After the fill, count[b] is one past the bucket's last node.
      check_all_pairs(std::span<const int>(filled.data() + bucket_start[b], filled.data() + count[b]));
    }
    if (cfg_.aggressive_fusion) {
      struct group_key {
        int device;
        std::int64_t numel, rnumel;
        constexpr bool operator==(const group_key&) const = default;
      };
      std::vector<group_key> keys;
      std::vector<std::vector<int>> lists;
      for (int s : detail::elements(alive_)) {
        const sched_node& S = node(s);
        if (S.extern_kernel) continue;
        group_key k{S.device, S.numel, S.rnumel};
        auto it = std::find(keys.begin(), keys.end(), k);
        if (it == keys.end()) {
          keys.push_back(k);
          lists.push_back({s});
        } else {
          lists[static_cast<std::size_t>(it - keys.begin())].push_back(s);
        }
      }
      for (const auto& l : detail::elements(lists)) check_all_pairs(l);
    }
    // Keep only the pairs of the backend's best (lowest) priority.
    if (!found.empty()) {
      std::vector<int> prio;
      int best = 0;
      for (std::size_t i = 0; i < found.size(); ++i) {
        prio.push_back(policy_.priority(*this, found[i].first, found[i].second));
        if (i == 0 || prio.back() < best) best = prio.back();
      }
      std::vector<std::pair<int, int>> kept;
      for (std::size_t i = 0; i < found.size(); ++i)
        if (prio[i] == best) kept.push_back(found[i]);
      found = std::move(kept);
    }
    return found;
  }

  constexpr void fuse_nodes_once(bool reorder_round, plan& p) {
    start_round();
    round_log log;
    log.reorder_round = reorder_round;
    index_in_round_.assign(sched_.size(), -1);
    for (std::size_t i = 0; i < alive_.size(); ++i) {
      index_in_round_[static_cast<std::size_t>(alive_[i])] = static_cast<int>(i);
      if (cfg_.record_log) {
        log.member_start.push_back(static_cast<int>(log.member_nodes.size()));
        const auto& m = node(alive_[i]).members;
        log.member_nodes.insert(log.member_nodes.end(), m.begin(), m.end());
      }
    }
    if (cfg_.record_log) log.member_start.push_back(static_cast<int>(log.member_nodes.size()));
    std::size_t examined = 0;
    auto pairs = get_possible_fusions(reorder_round, cfg_.record_log ? &log : nullptr, examined);
    // Candidates with their score and first graph node, sorted best first (in place,
    // so the greedy pass below walks memory in order).
    struct candidate {
      int n1, n2, first1, first2;
      fusion_score score;
    };
    std::vector<candidate> cands;
    cands.reserve(pairs.size());
    for (const auto& pr : detail::elements(pairs))
      cands.push_back({pr.first, pr.second, node(pr.first).members.front(), node(pr.second).members.front(),
                       policy_.score(*this, pr.first, pr.second)});
    detail::python_sort_descending(cands, [&](const candidate& x, const candidate& y) {
      return policy_.less(x.score, y.score);
    });

    for (const candidate& cd : cands) {
      int n1 = cd.n1, n2 = cd.n2;
      int a = fused_of(cd.first1);
      int b = fused_of(cd.first2);
      why_no_fuse r = can_fuse(a, b, reorder_round);
      if (r == why_no_fuse::none && will_fusion_create_cycle(a, b)) r = why_no_fuse::cycle;
      if (cfg_.record_log) {
        fusion_candidate c;
        c.node1 = index_in_round_[static_cast<std::size_t>(n1)];
        c.node2 = index_in_round_[static_cast<std::size_t>(n2)];
        c.score = cd.score;
        c.outcome = r;
        if (a != n1 || b != n2) {
          c.remapped = true;
          c.tried1 = node(a).members;
          c.tried2 = node(b).members;
        }
        log.candidates.push_back(std::move(c));
      }
      if (r != why_no_fuse::none) continue;
      int f = fuse(a, b);
      dead_.resize(sched_.size(), 0);
      dead_[static_cast<std::size_t>(a)] = dead_[static_cast<std::size_t>(b)] = 1;
      alive_.push_back(f);
    }
    std::erase_if(alive_, [&](int s) {
      return static_cast<std::size_t>(s) < dead_.size() && dead_[static_cast<std::size_t>(s)];
    });
    topological_sort();
    log.pairs_examined = examined;
    log.nodes_after = static_cast<int>(alive_.size());
    p.pairs_examined += examined;
    if (cfg_.record_log) p.rounds.push_back(std::move(log));
  }

  // sorted(nodes, key=min_order), then a depth-first topological sort visiting each
  // node's unmet deps by buffer name (topological_sort_schedule).
  constexpr void topological_sort() {
    std::sort(alive_.begin(), alive_.end(), [&](int x, int y) { return node(x).min_order < node(y).min_order; });
    const std::size_t n = alive_.size();
    owner_.assign(static_cast<std::size_t>(g_.buffer_count()), -1);
    for (std::size_t i = 0; i < n; ++i)
      for (int b : detail::elements(node(alive_[i]).buffers)) owner_[static_cast<std::size_t>(b)] = static_cast<int>(i);
    // Each node's producers, visited in order of the dep's buffer name.
    std::vector<int> start(n + 1, 0), producers;
    std::vector<std::pair<int, int>> deps;  // (name rank, producer position)
    for (std::size_t i = 0; i < n; ++i) {
      start[i] = static_cast<int>(producers.size());
      deps.clear();
      for (int d : detail::elements(node(alive_[i]).unmet)) {
        int buf = get_dep(d).buffer;
        int o = owner_[static_cast<std::size_t>(buf)];
        if (o >= 0) deps.push_back({name_rank_[static_cast<std::size_t>(buf)], o});
      }
      if (deps.size() > 1) detail::python_sort(deps, [](const auto& x, const auto& y) { return x.first < y.first; });
      for (const auto& d : detail::elements(deps)) producers.push_back(d.second);
    }
    start[n] = static_cast<int>(producers.size());
    std::vector<char> seen(n, 0);
    std::vector<int> result;
    result.reserve(n);
    std::vector<std::pair<int, int>> stack;  // (position, next producer)
    for (std::size_t root = 0; root < n; ++root) {
      if (seen[root]) continue;
      seen[root] = 1;
      stack.push_back({static_cast<int>(root), start[root]});
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next == start[static_cast<std::size_t>(v) + 1]) {
          result.push_back(alive_[static_cast<std::size_t>(v)]);
          stack.pop_back();
          continue;
        }
        int o = producers[static_cast<std::size_t>(next++)];
        if (!seen[static_cast<std::size_t>(o)]) {
          seen[static_cast<std::size_t>(o)] = 1;
          stack.push_back({o, start[static_cast<std::size_t>(o)]});
        }
      }
    }
    alive_ = std::move(result);
  }

  constexpr void finish(plan& p) const {
    p.node_names.reserve(static_cast<std::size_t>(g_.size()));
    for (int i = 0; i < g_.size(); ++i) {
      p.node_names.push_back(g_.node(i).name);
      p.node_kinds.push_back(g_.node(i).kind);
      p.pred_start.push_back(static_cast<int>(p.preds.size()));
      p.preds.insert(p.preds.end(), g_.node(i).preds.begin(), g_.node(i).preds.end());
    }
    p.pred_start.push_back(static_cast<int>(p.preds.size()));
    for (int b = 0; b < g_.buffer_count(); ++b) p.buffer_names.push_back(g_.buffer_name(b));
    p.loop_orders = loop_orders_;
    for (int s : detail::elements(alive_)) {
      const sched_node& S = node(s);
      fused_group grp;
      grp.nodes = S.members;
      for (int m : detail::elements(S.members))
        for (const auto& nm : detail::elements(g_.node(m).members)) grp.names.push_back(nm);
      for (int m : detail::elements(S.members))
        for (int b : detail::elements(g_.node(m).buffers)) {
          const buffer_info& bi = g_.buffer(b);
          bool outside = bi.output;
          for (const auto& u : detail::elements(bi.users))
            if (!u.weak && fused_of(u.node) != s) outside = true;
          (outside ? grp.materialized : grp.kernel_local).push_back(b);
        }
      p.groups.push_back(std::move(grp));
    }
  }

  const graph& g_;
  fuse_config cfg_;
  Policy policy_;
  std::vector<sched_node> sched_;
  std::vector<std::vector<std::int64_t>> ranges_;
  std::vector<std::vector<int>> loop_orders_;  // per graph node, see plan::loop_orders
  std::vector<int> fused_of_, alive_, name_rank_, owner_, index_in_round_;
  std::vector<char> dead_;
  // Per max_order, the lowest min_order of the fused nodes made so far (for
  // will_fusion_create_cycle). A fused node that is fused again stays in: the node it
  // became spans it, so it never lowers the floor below what that node does.
  detail::suffix_min spans_;
  std::vector<dep> extra_deps_;
  std::vector<access> extra_access_;
  detail::interner<dep, detail::dep_hash> extra_dep_ids_;
  detail::interner<access, detail::access_hash> extra_access_ids_;
  // Scratch marks for the const queries. Held through a pointer rather than as
  // `mutable` members, which GCC 12 refuses to read in constant evaluation.
  struct scratch {
    std::vector<int> dep_mark, dep_seen, buf_mark, node_mark, node_seen, group_seen;
    int stamp = 0, visit = 0;
    std::vector<int> stack;                       // depends_on
    std::vector<std::pair<int, bool>> walk;       // will_fusion_create_cycle
    std::vector<std::vector<std::int64_t>> memo;  // policy memo per scheduler node
    std::vector<char> memo_valid;
    std::vector<std::pair<int, int>> remaining;  // can_fuse_vertical
    std::vector<std::pair<int, int>> uses;       // get_possible_fusions: (buffer, node)
    std::vector<int> count;                      // get_possible_fusions: per buffer
    std::vector<int> names, groups;              // can_fuse_vertical
  };
  scratch* tmp_ = new scratch{};
};

}  // namespace fusedsl
