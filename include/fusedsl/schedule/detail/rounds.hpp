/// @file rounds.hpp
/// The round driver: construction, fuse_nodes' rounds (candidate pairs by
/// shared buffers, scoring, greedy fusion in score order), the topological sort
/// and the plan.
#pragma once
#include <algorithm>  // std::all_of
#include <cstddef>    // std::size_t
#include <utility>    // std::pair, std::move
#include <vector>     // std::vector

#include <fusedsl/graph/detail/elements.hpp>            // detail::elements, detail::contains
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler
#include <fusedsl/schedule/detail/sort.hpp>             // python_sort

namespace fusedsl {

template <class Policy>
constexpr scheduler<Policy>::scheduler(const graph& g, fuse_config cfg, Policy policy)
    : g_(checked_graph(g)), cfg_(checked_config(cfg)), policy_(std::move(policy)), spans_(g.size()) {
  static_assert(fusion_policy<Policy, policy_view<scheduler>>,
                "fusedsl: a fusion policy needs the members of inductor_policy: score, less, priority, can_fuse, "
                "can_fuse_vertical, can_fuse_horizontal and backend_can_fuse");
  const int n = g.size();
  for (int d = 0; d < g.device_count(); ++d) {
    const std::string& name = g.device_name(d);
    cpu_device_.push_back(name.starts_with("cpu"));
    gpu_device_.push_back(name.starts_with("cuda") || name.starts_with("xpu"));
  }
  sched_.reserve(static_cast<std::size_t>(2 * n + 1));
  ranges_.reserve(static_cast<std::size_t>(n));
  loop_orders_.reserve(static_cast<std::size_t>(n));
  fused_of_.reserve(static_cast<std::size_t>(n));
  alive_.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const graph_node& nd = g.node(i);
    sched_node& s = sched_.emplace_back();  // filled in place: no move of its lists
    s.members.push_back(i);
    s.reads.assign(nd.reads.begin(), nd.reads.end());
    s.writes.assign(nd.writes.begin(), nd.writes.end());
    s.unmet.assign(nd.unmet.begin(), nd.unmet.end());
    s.buffers.assign(nd.buffers.begin(), nd.buffers.end());
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
    s.group_of = i;
    ranges_.emplace_back();
    loop_orders_.emplace_back();
    fused_of_.push_back(i);
    alive_.push_back(i);
  }
  tmp_->dep_mark.assign(static_cast<std::size_t>(g.dep_count()), 0);
  tmp_->dep_seen.assign(static_cast<std::size_t>(g.dep_count()), 0);
  tmp_->buf_mark.assign(static_cast<std::size_t>(g.buffer_count()), 0);
  tmp_->node_mark.assign(static_cast<std::size_t>(n), 0);
  tmp_->node_seen.assign(static_cast<std::size_t>(2 * n), 0);
  // Inductor's create_foreach_nodes: each foreach group becomes one node over its members,
  // placed after the other nodes, and the list is sorted topologically as it stands.
  if (g.foreach_groups().empty()) return;
  for (const foreach_info& fe : detail::elements(g.foreach_groups())) {
    int f = make_foreach(fe.members, true);
    spans_.lower(node(f).max_order, node(f).min_order);
    for (int m : detail::elements(fe.members)) fused_of_[static_cast<std::size_t>(m)] = f;
    alive_.push_back(f);
  }
  std::erase_if(alive_, [&](int s) { return s < n && fused_of(s) != s; });
  topological_sort(true);
}

template <class Policy>
constexpr plan scheduler<Policy>::run() {
  plan p;
  bool fused_last = true;  // the last round fused some pair
  std::size_t examined_last = 0;
  for (int round = 0; round < cfg_.max_rounds; ++round) {
    const std::size_t before = alive_.size(), examined_before = p.pairs_examined;
    fuse_nodes_once(false, p);
    examined_last = p.pairs_examined - examined_before;
    fused_last = alive_.size() != before;
    if (!fused_last || alive_.size() == 1) break;
  }
  if (cfg_.loop_ordering_after_fusion) {
    // A round that fused nothing decides the reordering round too when no node's loops
    // may be reordered (every node on the C++ backend): the same pairs, the same
    // outcomes. Its log is repeated, not computed again.
    const bool may_reorder = !std::all_of(alive_.begin(), alive_.end(), [&](int s) { return cpp_rules(s, s); });
    if (fused_last || may_reorder) {
      fuse_nodes_once(true, p);
    } else {
      p.pairs_examined += examined_last;
      if (cfg_.record_log) {
        round_log repeated = p.rounds.back();
        repeated.reorder_round = true;
        p.rounds.push_back(std::move(repeated));
      }
    }
  }
  finish(p);
  return p;
}

template <class Policy>
constexpr void scheduler<Policy>::start_round() {
  for (int s : detail::elements(alive_)) prune_redundant_deps(s);
}

template <class Policy>
constexpr std::vector<std::pair<int, int>> scheduler<Policy>::get_possible_fusions(bool reorder_round, round_log* log,
                                                                                   std::size_t& examined) {
  // Inductor walks its lists (the nodes of each buffer, in order of the buffers' first use;
  // then, with aggressive fusion, the nodes of each group) pair by pair, each node with the
  // next `window` ones, and skips pairs seen before. The same pairs are found here node by
  // node, with the partners marked per node instead of a set of all pairs (which outgrows
  // the caches on large graphs), and then put in the order Inductor examines them: by list,
  // then by position in it. Examined in that order since can_fuse may reorder loops.
  auto& lists = tmp_->lists;    // per list: (start in `filled`, size), in Inductor's order
  auto& filled = tmp_->filled;  // the lists' nodes, list after list
  auto& uses = tmp_->uses;      // (list, node) in traversal order
  lists.clear();
  filled.clear();
  uses.clear();
  auto& bucket_of = tmp_->bucket_of;  // per buffer: its list, or -1
  bucket_of.assign(static_cast<std::size_t>(g_.buffer_count()), -1);
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
          int& b = bucket_of[static_cast<std::size_t>(buf)];
          if (b < 0) {
            b = static_cast<int>(lists.size());
            lists.push_back({0, 0});
          }
          ++lists[static_cast<std::size_t>(b)].second;
          uses.push_back({b, s});
        }
  }
  int at = 0;
  for (auto& [start, size] : lists) {
    start = at;
    at += size;
    size = 0;  // counts the nodes filled in below
  }
  filled.resize(uses.size());
  for (const auto& [b, s] : detail::elements(uses)) {
    auto& [start, size] = lists[static_cast<std::size_t>(b)];
    filled[static_cast<std::size_t>(start + size++)] = s;
  }
  if (cfg_.aggressive_fusion) {
    struct group_key {
      int device;
      std::int64_t numel, rnumel;
      constexpr bool operator==(const group_key&) const = default;
    };
    std::vector<group_key> keys;
    std::vector<std::vector<int>> groups;
    for (int s : detail::elements(alive_)) {
      const sched_node& S = node(s);
      if (S.extern_kernel) continue;
      group_key k{S.device, S.numel, S.rnumel};
      auto it = std::find(keys.begin(), keys.end(), k);
      if (it == keys.end()) {
        keys.push_back(k);
        groups.push_back({s});
      } else {
        groups[static_cast<std::size_t>(it - keys.begin())].push_back(s);
      }
    }
    for (const auto& grp : detail::elements(groups)) {
      lists.push_back({static_cast<int>(filled.size()), static_cast<int>(grp.size())});
      filled.insert(filled.end(), grp.begin(), grp.end());
    }
  }
  // Each node's places (list, position), node after node in traversal order, each node's
  // in list order: a counting sort of the lists' entries by node.
  auto& place_start = tmp_->place_start;  // per scheduler node: its first place
  auto& places = tmp_->places;
  place_start.assign(sched_.size() + 1, 0);
  for (int s : detail::elements(filled)) ++place_start[static_cast<std::size_t>(s)];
  {
    int sum = 0;
    for (int s : detail::elements(alive_)) {
      int c = place_start[static_cast<std::size_t>(s)];
      place_start[static_cast<std::size_t>(s)] = sum;
      sum += c;
    }
  }
  places.resize(filled.size());
  for (std::size_t l = 0; l < lists.size(); ++l) {
    const auto [start, size] = lists[l];
    for (int i = 0; i < size; ++i) {
      int& next = place_start[static_cast<std::size_t>(filled[static_cast<std::size_t>(start + i)])];
      places[static_cast<std::size_t>(next++)] = {static_cast<int>(l), i};
    }
  }
  // place_start[s] now marks the end of s's places; they start where the previous node's end.
  // Pairs by first node; each partner once per node, in the first list that pairs them.
  auto& pairs = tmp_->pairs;  // (list, (node1, node2))
  pairs.clear();
  auto& partner_seen = tmp_->partner_seen;
  partner_seen.resize(sched_.size(), 0);
  const int window = cfg_.max_fusion_buffer_group_pairwise_attempts;
  int from = 0;
  for (int s : detail::elements(alive_)) {
    const int to = place_start[static_cast<std::size_t>(s)];
    const int t = ++tmp_->stamp;
    for (int k = from; k < to; ++k) {
      const auto [l, i] = places[static_cast<std::size_t>(k)];
      const auto [start, size] = lists[static_cast<std::size_t>(l)];
      for (int j = i + 1; j < size && j <= i + window; ++j) {
        int n2 = filled[static_cast<std::size_t>(start + j)];
        if (partner_seen[static_cast<std::size_t>(n2)] == t) continue;
        partner_seen[static_cast<std::size_t>(n2)] = t;
        pairs.push_back({l, {s, n2}});
      }
    }
    from = to;
  }
  // Into Inductor's order: a stable counting sort by list keeps each list's pairs by the
  // first node's position (the traversal order), then the second's.
  auto& by_list = tmp_->by_list;
  by_list.assign(lists.size() + 1, 0);
  for (const auto& pr : detail::elements(pairs)) ++by_list[static_cast<std::size_t>(pr.first) + 1];
  for (std::size_t l = 1; l < by_list.size(); ++l) by_list[l] += by_list[l - 1];
  auto& ordered = tmp_->ordered;
  ordered.resize(pairs.size());
  for (const auto& pr : detail::elements(pairs))
    ordered[static_cast<std::size_t>(by_list[static_cast<std::size_t>(pr.first)]++)] = pr.second;

  std::vector<std::pair<int, int>> found;
  for (const auto& [n1, n2] : detail::elements(ordered)) {
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
  // Keep only the pairs of the backend's best (lowest) priority.
  if (!found.empty()) {
    std::vector<int> prio;
    int best = 0;
    for (std::size_t i = 0; i < found.size(); ++i) {
      prio.push_back(policy_.priority(view(), found[i].first, found[i].second));
      if (i == 0 || prio.back() < best) best = prio.back();
    }
    std::vector<std::pair<int, int>> kept;
    for (std::size_t i = 0; i < found.size(); ++i)
      if (prio[i] == best) kept.push_back(found[i]);
    found = std::move(kept);
  }
  return found;
}

template <class Policy>
constexpr void scheduler<Policy>::fuse_nodes_once(bool reorder_round, plan& p) {
  start_round();
  round_log log;
  log.reorder_round = reorder_round;
  index_in_round_.assign(sched_.size(), -1);
  if (cfg_.record_log) {
    log.member_start.reserve(alive_.size() + 1);
    log.member_nodes.reserve(static_cast<std::size_t>(g_.size()));
  }
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
                     policy_.score(view(), pr.first, pr.second)});
  detail::python_sort_descending(cands, [&](const candidate& x, const candidate& y) {
    return policy_.less(x.score, y.score);
  });
  if (cfg_.record_log) log.candidates.reserve(cands.size());

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
        c.tried1.assign(node(a).members.begin(), node(a).members.end());
        c.tried2.assign(node(b).members.begin(), node(b).members.end());
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

template <class Policy>
constexpr void scheduler<Policy>::sort_by_min_order() {
  // Each graph node is a member of exactly one live node, so live nodes' min_orders are
  // distinct positions of the graph: each live node goes to its min_order's place.
  std::vector<int>& at = tmp_->at_order;
  at.assign(static_cast<std::size_t>(g_.size()), -1);
  for (int s : detail::elements(alive_)) at[static_cast<std::size_t>(node(s).min_order)] = s;
  std::size_t k = 0;
  for (int s : detail::elements(at))
    if (s >= 0) alive_[k++] = s;
}

template <class Policy>
constexpr void scheduler<Policy>::topological_sort(bool keep_order) {
  if (!keep_order) sort_by_min_order();
  const std::size_t n = alive_.size();
  owner_.assign(static_cast<std::size_t>(g_.buffer_count()), -1);
  for (std::size_t i = 0; i < n; ++i)
    for (int b : detail::elements(node(alive_[i]).buffers)) owner_[static_cast<std::size_t>(b)] = static_cast<int>(i);
  // Each node's producers, visited in order of the dep's buffer name.
  std::vector<int>&start = tmp_->start, &producers = tmp_->producers;
  start.assign(n + 1, 0);
  producers.clear();
  std::vector<std::pair<int, int>>& deps = tmp_->deps;  // (name rank, producer position)
  for (std::size_t i = 0; i < n; ++i) {
    start[i] = static_cast<int>(producers.size());
    deps.clear();
    for (int d : detail::elements(node(alive_[i]).unmet)) {
      int buf = get_dep(d).buffer;
      int o = owner_[static_cast<std::size_t>(buf)];
      if (o >= 0) deps.push_back({g_.buffer(buf).name_rank, o});
    }
    if (deps.size() > 1) detail::python_sort(deps, [](const auto& x, const auto& y) { return x.first < y.first; });
    for (const auto& d : detail::elements(deps)) producers.push_back(d.second);
  }
  start[n] = static_cast<int>(producers.size());
  std::vector<char>& seen = tmp_->seen;
  seen.assign(n, 0);
  std::vector<int>& result = tmp_->result;
  result.clear();
  std::vector<std::pair<int, int>>& stack = tmp_->order_stack;  // (position, next producer)
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
  std::swap(alive_, result);
}

template <class Policy>
constexpr void scheduler<Policy>::finish(plan& p) const {
  const auto n = static_cast<std::size_t>(g_.size());
  p.node_names.reserve(n);
  p.node_kinds.reserve(n);
  p.pred_start.reserve(n + 1);
  p.buffer_names.reserve(static_cast<std::size_t>(g_.buffer_count()));
  p.groups.reserve(alive_.size());
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
    grp.nodes.assign(S.members.begin(), S.members.end());
    std::size_t names = 0;
    for (int m : detail::elements(S.members)) names += g_.node(m).members.size();
    grp.names.reserve(names);
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

}  // namespace fusedsl
