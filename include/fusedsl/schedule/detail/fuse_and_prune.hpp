/// @file fuse_and_prune.hpp
/// Fusing two scheduler nodes into one, refreshing its groups, and pruning
/// the weak deps that fusion made redundant; the per-node memo of policies.
#pragma once
#include <algorithm>  // std::min, std::max
#include <utility>    // std::move
#include <vector>     // std::vector

#include <fusedsl/graph/detail/elements.hpp>            // detail::elements, detail::contains
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler

namespace fusedsl {

template <class Policy>
template <class F>
constexpr const std::vector<std::int64_t>& scheduler<Policy>::memo(int s, F compute) const {
  auto i = static_cast<std::size_t>(s);
  // Sized for every node there is, so that a later lookup moves no entry before a node is made.
  if (tmp_->memo.size() < sched_.size()) {
    tmp_->memo.resize(sched_.size());
    tmp_->memo_valid.resize(sched_.size(), 0);
  }
  if (!tmp_->memo_valid[i]) {
    tmp_->memo[i] = compute();
    tmp_->memo_valid[i] = 1;
  }
  return tmp_->memo[i];
}

template <class Policy>
constexpr void scheduler<Policy>::refresh_group(int s) {
  sched_node& S = sched_[static_cast<std::size_t>(s)];
  const sched_node::id_list& members = S.members;
  S.writes.clear();
  S.reads.clear();
  S.unmet.clear();
  // Room for every member's deps at once, rather than growing step by step.
  std::size_t writes = 0, reads = 0, unmet = 0;
  for (int m : detail::elements(members)) {
    writes += node(m).writes.size();
    reads += node(m).reads.size();
    unmet += node(m).unmet.size();
  }
  S.writes.reserve(writes);
  S.reads.reserve(reads);
  S.unmet.reserve(unmet);
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

template <class Policy>
constexpr int scheduler<Policy>::make_group(const std::vector<int>& parts) {
  sched_node f;
  f.min_order = node(parts.front()).min_order;
  f.max_order = node(parts.front()).max_order;
  std::size_t members = 0, buffers = 0;
  for (int p : detail::elements(parts)) {
    members += node(p).members.size();
    buffers += node(p).buffers.size();
  }
  f.members.reserve(members);
  f.buffers.reserve(buffers);
  for (int p : detail::elements(parts)) {
    const sched_node& P = node(p);
    f.members.append(P.members.begin(), P.members.end());
    f.buffers.append(P.buffers.begin(), P.buffers.end());
    f.min_order = std::min(f.min_order, P.min_order);
    f.max_order = std::max(f.max_order, P.max_order);
  }
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
  f.group_of = node(group_from).group_of;
  f.device = node(group_from).device;
  f.numel = node(group_from).numel;
  f.rnumel = node(group_from).rnumel;
  int id = static_cast<int>(sched_.size());
  sched_.push_back(std::move(f));
  refresh_group(id);
  return id;
}

template <class Policy>
constexpr int scheduler<Policy>::make_foreach(const std::vector<int>& parts, bool reads_indexed) {
  int id = make_group(parts);
  sched_node& F = sched_[static_cast<std::size_t>(id)];
  F.snodes = parts;
  F.foreach = true;
  F.reads_indexed = reads_indexed;
  // Inductor's group for a foreach node is symbolic (combo_kernel): no sizes to compare.
  F.numel = F.rnumel = 0;
  return id;
}

template <class Policy>
constexpr int scheduler<Policy>::fuse(int a, int b) {
  // Copies: making subnodes grows sched_, which moves a's and b's nodes.
  const std::vector<int> sa = node(a).snodes, sb = node(b).snodes;
  int id = -1;
  if (!sa.empty() && !sb.empty()) {  // zipped, subnode by subnode
    std::vector<int> parts;
    for (std::size_t i = 0; i < sa.size(); ++i) parts.push_back(make_group({sa[i], sb[i]}));
    id = make_foreach(parts, true);
  } else if (!sa.empty() || !sb.empty()) {  // b joins the subnode it reads from, or a the one reading it
    const bool producer = !sa.empty();
    std::vector<int> parts = producer ? sa : sb;
    const int sub = producer ? producer_subnode(a, b) : consumer_subnode(b, a);
    for (int& p : parts)
      if (p == sub) p = producer ? make_group({sub, b}) : make_group({a, sub});
    id = make_foreach(parts, false);
  } else if (cpp_rules(a, b) && cpp_why_fuse(a, b) != cpp_reason::compatible_ranges && cpp_outer_loop_fusion(a, b)) {
    id = make_outer_loop(a, b);
  } else if (mix_order_reductions(a, b)) {
    id = make_mix(a, b);
  } else if (node(a).mix_order()) {
    id = mix_fuse_with(a, b);
  } else {
    id = make_group({a, b});
  }
  const sched_node& f = node(id);
  spans_.lower(f.max_order, f.min_order);
  for (int m : f.members) fused_of_[static_cast<std::size_t>(m)] = id;
  return id;
}

template <class Policy>
constexpr void scheduler<Policy>::prune_redundant_deps(int s) {
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
  T.reads.erase_if(pruned);
  // set_read_writes: unmet becomes every read of a buffer some node writes.
  T.unmet.clear();
  for (int r : detail::elements(T.reads))
    if (g_.buffer(get_dep(r).buffer).producer >= 0) T.unmet.push_back(r);
}

}  // namespace fusedsl
