/// @file loop_reordering.hpp
/// Loop reordering (Inductor's loop_ordering_after_fusion): permuting a
/// node's loops so that its accesses match another node's, and the shared data
/// that reordering would give.
#pragma once
#include <algorithm>  // std::sort
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <string>     // std::string
#include <vector>     // std::vector

#include <fusedsl/graph/detail/elements.hpp>            // detail::elements
#include <fusedsl/graph/detail/index_expr.hpp>          // detail::canonical_index, detail::var_name
#include <fusedsl/graph/graph.hpp>                      // detail::text_access
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler

namespace fusedsl {

template <class Policy>
constexpr int scheduler<Policy>::intern_dep(const dep& d) {
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

template <class Policy>
constexpr int scheduler<Policy>::intern_access(const access& a) {
  int id = g_.find_access(a);
  if (id >= 0) return id;
  id = extra_access_ids_.find(a);
  if (id < 0) {
    id = extra_access_ids_.intern(a);
    extra_access_.push_back(a);
  }
  return g_.access_count() + id;
}

template <class Policy>
constexpr std::vector<std::size_t> scheduler<Policy>::loop_order_to_match(const access& self, const access& other) {
  // Strides as Inductor's stride hints read them, affine or not (ModularIndexing too).
  auto fits = [](const access& a) {
    if (!a.evaluable || a.indirect) return false;
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

namespace detail {

/// A non-affine access with its loops in `order` (loop j of the result is loop order[j]
/// of `a`), the loop sizes then being `sizes`: the variables of its text renamed.
constexpr access permuted_text_access(const access& a, const std::vector<std::size_t>& order,
                                      const std::vector<std::int64_t>& sizes) {
  std::vector<std::string> old_names;
  std::size_t keep = 0;
  for (std::size_t j = 0; j < order.size(); ++j) {
    old_names.push_back(detail::var_name(order[j]));
    if (order[j] < a.sizes.size()) keep = j + 1;
  }
  return text_access(canonical_index(a.text, old_names),
                     std::vector<std::int64_t>(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(keep)));
}

}  // namespace detail

template <class Policy>
constexpr bool scheduler<Policy>::reorder_loops(int s, int self_dep, int other_dep) {
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
  const std::size_t nv = order.size();
  // A MemoryDep given as text is rewritten by renaming its variables; one over more
  // variables than the node has, or with names we marked as not variables, is not.
  for (int m : detail::elements(S.members))
    for (const auto* list : {&node(m).reads, &node(m).writes})
      for (int d : detail::elements(*list)) {
        if (get_dep(d).kind != dep_kind::memory) continue;
        const access& a = get_access(get_dep(d).access);
        if (!a.affine && (a.sizes.size() > nv || a.text.find('?') != std::string::npos)) return false;
      }
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
    auto rewrite = [&](sched_node::id_list& list) {
      for (int& d : list) {
        dep dd = get_dep(d);
        if (dd.kind != dep_kind::memory) continue;
        const access& a = get_access(dd.access);
        if (!a.affine) {
          dd.access = intern_access(detail::permuted_text_access(a, order, fresh));
          d = intern_dep(dd);
          continue;
        }
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

template <class Policy>
constexpr std::int64_t scheduler<Policy>::shared_data_after_reordering_loop(int a, int b) {
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
  std::vector<int>& common = tmp_->common;
  common.clear();
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
      same = (la.affine && ra.affine) ? same_merged_form(ld.access, rd.access, true) : l == r;
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
    if (la.affine && ra.affine && same_merged_form(ld.access, rd.access, false)) return ld.bytes;
    return -1;
  }
  bool done = false;
  if (!A.reduction) done = reorder_loops(a, best_l, best_r);
  else if (!B.reduction) done = reorder_loops(b, best_r, best_l);
  if (!done) return -1;
  shared_memory m = score_fusion_memory(a, b);
  return m.exact + m.overlap;
}

}  // namespace fusedsl
