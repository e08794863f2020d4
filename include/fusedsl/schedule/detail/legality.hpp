/// @file legality.hpp
/// Legality: every gate of Inductor's can_fuse in its order, the
/// producer/consumer rules (matching reads and writes, weak deps, intermediate
/// nodes), dependency and cycle checks, and the checks of the input.
#pragma once
#include <algorithm>  // std::equal, std::min
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <fusedsl/core/error.hpp>                       // error
#include <fusedsl/graph/detail/elements.hpp>            // detail::elements, detail::contains
#include <fusedsl/graph/detail/index_expr.hpp>          // detail::to_decimal
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler
#include <fusedsl/schedule/detail/sort.hpp>             // python_sort_descending

namespace fusedsl {

template <class Policy>
constexpr bool scheduler<Policy>::depends_on(int x, int y) const {
  const sched_node& X = node(x);
  const sched_node& Y = node(y);
  if (X.min_order >= Y.max_order) return false;
  int t = ++tmp_->visit;
  for (int m : detail::elements(X.members)) tmp_->node_mark[static_cast<std::size_t>(m)] = t;
  // Walk back from y's members; a node whose ancestor window reaches all of x's members
  // answers from the graph's bits instead of being walked further.
  const int window = g_.ancestor_window();
  std::vector<int>& stack = tmp_->stack;
  stack.assign(Y.members.begin(), Y.members.end());
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    if (tmp_->node_seen[static_cast<std::size_t>(v)] == t) continue;
    tmp_->node_seen[static_cast<std::size_t>(v)] = t;
    if (v - X.min_order <= window) {
      for (int m : detail::elements(X.members))
        if (m < v && g_.near_ancestor(m, v)) return true;
      continue;
    }
    for (int p : detail::elements(g_.node(v).preds)) {
      if (tmp_->node_mark[static_cast<std::size_t>(p)] == t) return true;
      if (p >= X.min_order) stack.push_back(p);
    }
  }
  return false;
}

template <class Policy>
constexpr bool scheduler<Policy>::will_fusion_create_cycle(int a, int b) const {
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

template <class Policy>
constexpr why_no_fuse scheduler<Policy>::can_fuse(int a, int b, bool reorder_round, bool allow_mix_order) {
  if (a == b) return why_no_fuse::same_node;
  const sched_node& A = node(a);
  const sched_node& B = node(b);
  // A mix-order node judges a pair by its parts, before any other gate; nothing precedes one.
  if (A.mix_order()) return mix_can_fuse_with(a, b);
  if (B.mix_order()) return why_no_fuse::mix_order_second;
  if (A.nop && !A.template_kernel) return why_no_fuse::node1_nop;
  if (A.extern_kernel && !A.template_kernel) return why_no_fuse::node1_extern;
  if ((B.extern_kernel || B.nop) && !B.template_kernel) return why_no_fuse::node2_extern_or_nop;
  if (depends_on(b, a)) return why_no_fuse::order;
  if (B.template_kernel) {
    if (!cfg_.prologue_fusion) return why_no_fuse::prologue_off;
    if (A.reduction || A.template_kernel) return why_no_fuse::prologue_not_pointwise;
    if (!cfg_.template_prologue_inputs) return why_no_fuse::prologue_inputs;
  }
  if (A.template_kernel && (B.mutation || B.reduction || !cfg_.epilogue_fusion)) return why_no_fuse::template_epilogue;
  if (A.device != B.device) return why_no_fuse::device_mismatch;
  shared_memory m = score_fusion_memory(a, b, allow_mix_order);
  std::int64_t shared = m.exact + m.overlap;
  // Inductor reorders no loops of CPU nodes (the C++ backend merged them when it built the nodes).
  if (reorder_round && cfg_.loop_ordering_after_fusion && shared < cfg_.score_fusion_memory_threshold &&
      !cpp_rules(a, b)) {
    std::int64_t s = shared_data_after_reordering_loop(a, b);
    if (s >= 0) shared = s;
  }
  if (auto r = policy_.can_fuse(view(), a, b, shared); r != why_no_fuse::none) return r;
  if (depends_on(a, b)) {
    if (auto r = can_fuse_vertical(a, b); r != why_no_fuse::none) return r;
    if (auto r = policy_.can_fuse_vertical(view(), a, b, shared); r != why_no_fuse::none) return r;
  } else {
    if (auto r = policy_.can_fuse_horizontal(view(), a, b, shared); r != why_no_fuse::none) return r;
  }
  return A.foreach || B.foreach ? foreach_can_fuse(a, b) : policy_.backend_can_fuse(view(), a, b);
}

template <class Policy>
constexpr why_no_fuse scheduler<Policy>::foreach_can_fuse(int a, int b) {
  const sched_node& A = node(a);
  const sched_node& B = node(b);
  if (A.foreach && B.foreach) {
    // The number of subnodes; a foreach node given without them counts its member names.
    auto length = [&](const sched_node& n) {
      if (!n.snodes.empty()) return n.snodes.size();
      std::size_t k = 0;
      for (int m : detail::elements(n.members))
        if (node(m).foreach) k += g_.node(m).members.size();
      return k;
    };
    if (length(A) != length(B)) return why_no_fuse::foreach_length;
    // Copies: can_fuse may reorder loops, which never adds nodes, but keep the lists stable.
    const std::vector<int> sa = A.snodes, sb = B.snodes;
    for (std::size_t i = 0; i < sa.size() && i < sb.size(); ++i)
      if (auto r = can_fuse(sa[i], sb[i]); r != why_no_fuse::none) return r;
    return why_no_fuse::none;
  }
  if ((A.foreach ? B : A).reduction) return why_no_fuse::foreach_reduction;
  const int sub = A.foreach ? producer_subnode(a, b) : consumer_subnode(b, a);
  if (sub < 0) return why_no_fuse::foreach_no_dep;
  if (sub == a || sub == b) return why_no_fuse::none;  // a foreach node without subnodes: judged whole
  return A.foreach ? can_fuse(sub, b) : can_fuse(a, sub);
}

template <class Policy>
constexpr int scheduler<Policy>::subnode_of(int f, int i) const {
  const sched_node& F = node(f);
  if (F.snodes.empty()) return detail::contains(F.members, i) ? f : -1;
  for (int s : detail::elements(F.snodes))
    if (detail::contains(node(s).members, i)) return s;
  return -1;
}

template <class Policy>
constexpr int scheduler<Policy>::producer_subnode(int f, int consumer) const {
  int found = -1;
  for (int r : detail::elements(node(consumer).reads)) {
    int p = g_.buffer(get_dep(r).buffer).producer;
    int sub = p < 0 ? -1 : subnode_of(f, p);
    if (sub < 0 || sub == found) continue;
    if (found >= 0) return -1;  // reads from two subnodes
    found = sub;
  }
  return found;
}

template <class Policy>
constexpr int scheduler<Policy>::consumer_subnode(int f, int producer) const {
  const sched_node& F = node(f);
  if (!F.reads_indexed) return -1;
  const std::vector<int> whole{f};
  const std::vector<int>& subs = F.snodes.empty() ? whole : F.snodes;
  for (int buf : detail::elements(node(producer).buffers))
    for (std::size_t i = subs.size(); i-- > 0;)
      for (int r : detail::elements(node(subs[i]).reads))
        if (get_dep(r).buffer == buf) return subs[i];
  return -1;
}

template <class Policy>
constexpr why_no_fuse scheduler<Policy>::can_fuse_vertical(int a, int b) const {
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

template <class Policy>
constexpr bool scheduler<Policy>::fusable_weak_dep(int weak, int a, int b) const {
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
  // A foreach node's subnodes read concurrently: at most one of them may read the old value.
  const std::vector<int> whole{a};
  int readers = 0;
  for (int s : detail::elements(A.snodes.empty() ? whole : A.snodes)) {
    bool reads = false;
    for (int r : detail::elements(node(s).reads)) {
      const dep& rd = get_dep(r);
      // Every version of the updated storage counts: a chain of in-place updates
      // (x -> b2 -> b4) shares one buffer, so a read of b2 sees what the update of b2 writes.
      if (g_.real_name(rd.buffer) != real) continue;
      if (rd.kind != dep_kind::memory) return false;
      const access& ra = get_access(rd.access);
      if (ra.indirect || !(ra == wa)) return false;
      reads = true;
    }
    readers += reads ? 1 : 0;
  }
  return readers <= 1;
}

template <class Policy>
constexpr bool scheduler<Policy>::fusable_read_and_write(int read, int write) const {
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

template <class Policy>
constexpr const fuse_config& scheduler<Policy>::checked_config(const fuse_config& c) {
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
  if (!(c.min_overlap_ratio >= 0.0))
    throw error("fuse_nodes: fuse_config.min_overlap_ratio: must be at least 0 (above 1 turns the overlap score off)");
  return c;
}

template <class Policy>
constexpr const graph& scheduler<Policy>::checked_graph(const graph& g) {
  if (!g.finalized()) throw error("fuse_nodes: graph: call finalize() before scheduling");
  return g;
}

template <class Policy>
constexpr bool scheduler<Policy>::uses_all_vars(const access& a) {
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

template <class Policy>
constexpr bool scheduler<Policy>::same_index(const access& x, const access& y) {
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

template <class Policy>
constexpr detail::merged_loops scheduler<Policy>::normalized(const access& a) {
  auto m = detail::merge_loops(a.sizes, a.strides, a.offset);
  while (!m.strides.empty() && m.strides.back() == 0) {
    m.strides.pop_back();
    m.sizes.pop_back();
  }
  return m;
}

template <class Policy>
constexpr detail::merged_loops scheduler<Policy>::merged_form(const access& a, bool stride_order) {
  // (No ?: between the two forms: GCC 12 frees a vector of the result in constant evaluation.)
  if (stride_order) return stride_ordered(a);
  return normalized(a);
}

template <class Policy>
constexpr int scheduler<Policy>::merged_form_slot(int id, bool stride_order) const {
  if (id >= g_.access_count()) return -1;
  auto& memo = stride_order ? tmp_->stride_ordered : tmp_->normalized;
  if (memo.slot.empty()) memo.slot.assign(static_cast<std::size_t>(g_.access_count()), -1);
  int& slot = memo.slot[static_cast<std::size_t>(id)];
  if (slot < 0) {
    slot = static_cast<int>(memo.loops.size());
    memo.loops.push_back(merged_form(get_access(id), stride_order));
  }
  return slot;
}

template <class Policy>
constexpr bool scheduler<Policy>::same_merged_form(int a, int b, bool stride_order) const {
  // Both slots first: computing the second may grow the memo.
  const int sa = merged_form_slot(a, stride_order), sb = merged_form_slot(b, stride_order);
  const auto& loops = (stride_order ? tmp_->stride_ordered : tmp_->normalized).loops;
  detail::merged_loops fa, fb;  // forms of accesses interned while scheduling
  if (sa < 0) fa = merged_form(get_access(a), stride_order);
  if (sb < 0) fb = merged_form(get_access(b), stride_order);
  return (sa >= 0 ? loops[static_cast<std::size_t>(sa)] : fa) == (sb >= 0 ? loops[static_cast<std::size_t>(sb)] : fb);
}

template <class Policy>
constexpr detail::merged_loops scheduler<Policy>::stride_ordered(const access& a) {
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

}  // namespace fusedsl
