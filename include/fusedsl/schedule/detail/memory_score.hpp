/// @file memory_score.hpp
/// Inductor's memory score: the bytes two nodes would stop moving if fused
/// (score_fusion_memory, with same-buffer overlap), the peak-memory guard and the
/// count of distinct buffers a fused node would read and write.
#pragma once
#include <algorithm>  // std::max, std::min
#include <cstdint>    // std::int64_t
#include <vector>     // std::vector

#include <fusedsl/graph/detail/elements.hpp>            // detail::elements, detail::contains
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler

namespace fusedsl {

template <class Policy>
constexpr shared_memory scheduler<Policy>::score_fusion_memory(int a, int b, bool allow_mix_order) const {
  const sched_node& A = node(a);
  const sched_node& B = node(b);
  shared_memory r;
  if (allow_mix_order && mix_order_reductions(a, b)) {
    // Inductor scores a mix-order pair by the elements of the tensor, not by bytes.
    auto [numel, rnumel] = unsplit_group(a);
    r.exact = numel * rnumel;
    return r;
  }
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
  // The buffer-overlap term (same buffers read at other indices) is not in 2.11's Inductor.
  // Later ones skip it where one side has over 4x the deps of the other (their shortcut
  // that counts only exactly shared deps).
  const std::size_t na = A.reads.size() + A.writes.size(), nb = B.reads.size() + B.writes.size();
  const bool lopsided = 4 * std::min(na, nb) < std::max(na, nb);
  if (r.exact == 0 && !A.reduction && !B.reduction && cfg_.torch > torch_version{2, 11} && !lopsided)
    r.overlap = overlap_score(A, B);
  return r;
}

template <class Policy>
constexpr bool scheduler<Policy>::can_fusion_increase_peak_memory(int a, int b) const {
  // The (device, dtype, elements) of the buffers that only `s` reads, once each.
  auto single_use = [&](const sched_node& s, std::vector<peak_key>& keys) {
    keys.clear();
    for (int r : detail::elements(s.reads)) {
      int buf = get_dep(r).buffer;
      const buffer_info& bi = g_.buffer(buf);
      if (bi.producer < 0) continue;
      if (bi.users.size() + (bi.output ? 1 : 0) != 1) continue;
      const graph_node& p = g_.node(bi.producer);
      peak_key k{p.device, bi.dtype, bi.bytes / bi.itemsize};
      if (!detail::contains(keys, k)) keys.push_back(k);
    }
  };
  auto has_single_use = [&](const sched_node& s) {
    for (int r : detail::elements(s.reads)) {
      const buffer_info& bi = g_.buffer(get_dep(r).buffer);
      if (bi.producer >= 0 && bi.users.size() + (bi.output ? 1 : 0) == 1) return true;
    }
    return false;
  };
  if (!has_single_use(node(a)) || !has_single_use(node(b))) return false;
  std::vector<peak_key>&ka = tmp_->keys_a, &kb = tmp_->keys_b;
  single_use(node(a), ka);
  single_use(node(b), kb);
  std::int64_t overhead = 0;
  for (const peak_key& k : detail::elements(ka))
    if (detail::contains(kb, k)) overhead += k.elems;
  if (overhead == 0) return false;
  shared_memory m = score_fusion_memory(a, b);
  return overhead > 32 * (m.exact + m.overlap);
}

template <class Policy>
constexpr bool scheduler<Policy>::too_many_io(int a, int b, int limit) const {
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

template <class Policy>
constexpr void scheduler<Policy>::mark_once(std::vector<int>& out, int d) const {
  if (tmp_->dep_seen[static_cast<std::size_t>(d)] == tmp_->stamp) return;
  tmp_->dep_seen[static_cast<std::size_t>(d)] = tmp_->stamp;
  out.push_back(d);
}

template <class Policy>
constexpr bool scheduler<Policy>::read_outside(int buf, const sched_node& A, const sched_node& B) const {
  const buffer_info& bi = g_.buffer(buf);
  if (bi.output) return true;
  for (const auto& u : detail::elements(bi.users)) {
    bool inside = detail::contains(A.members, u.node) || detail::contains(B.members, u.node);
    if (!inside) return true;
  }
  return false;
}

template <class Policy>
constexpr std::int64_t scheduler<Policy>::overlap_score(const sched_node& A, const sched_node& B) const {
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

}  // namespace fusedsl
