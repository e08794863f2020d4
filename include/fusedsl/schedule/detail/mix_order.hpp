/// @file mix_order.hpp
/// Mix-order reductions (Inductor's MixOrderReduction and FusedMixOrderReductions,
/// Triton backend): a reduction along the rows of a tensor and one along its columns,
/// computed by one kernel that reads the tensor once. Which pairs qualify, and how such
/// a node takes further nodes into one of its two parts.
#pragma once
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <utility>  // std::pair

#include <fusedsl/graph/detail/elements.hpp>            // detail::elements
#include <fusedsl/schedule/detail/containers.hpp>       // detail::product
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler

namespace fusedsl {

template <class Policy>
constexpr std::pair<std::int64_t, std::int64_t> scheduler<Policy>::unsplit_group(int s) const {
  const sched_node& S = node(s);
  // Split only when every reduction member is a split one; the members of one node agree.
  const graph_node* split = nullptr;
  for (int m : detail::elements(S.members)) {
    const graph_node& M = g_.node(m);
    if (M.kind != node_kind::reduction) continue;
    if (M.unsplit_numel == 0) return {S.numel, S.rnumel};
    if (!split) split = &M;
  }
  if (!split) return {S.numel, S.rnumel};
  return {split->unsplit_numel, split->unsplit_rnumel};
}

template <class Policy>
constexpr bool scheduler<Policy>::contiguous_loads(int s) const {
  for (int m : detail::elements(node(s).members)) {
    const std::vector<std::int64_t>& loops = ranges(m);
    const std::int64_t elements = detail::product(loops);
    for (int r : detail::elements(node(m).reads)) {
      const dep& d = get_dep(r);
      if (d.kind != dep_kind::memory) continue;
      const access& a = get_access(d.access);
      if (a.indirect || !a.evaluable) return false;
      // The access's last variable is the node's last loop when it has all the loops, or
      // their merged form (as many elements); with fewer, it leaves out the trailing loops.
      const bool last_loop = a.sizes.size() == loops.size() || detail::product(a.sizes) == elements;
      const std::int64_t stride =
          last_loop && !a.strides.empty() && a.strides.size() == a.sizes.size() ? a.strides.back() : std::int64_t{0};
      if (stride != 0 && stride != 1) return false;
    }
  }
  return true;
}

template <class Policy>
constexpr bool scheduler<Policy>::full_access(int buf, int s) const {
  const sched_node& S = node(s);
  for (int r : detail::elements(S.reads)) {
    const dep& d = get_dep(r);
    if (d.buffer != buf || d.kind != dep_kind::memory) continue;
    // The loops of the node, or of its first member for a fused node (Inductor's var_ranges).
    const std::vector<std::int64_t>& loops = ranges(S.members.front());
    const access& a = get_access(d.access);
    if (a.sizes.size() == loops.size() && uses_all_vars(a)) return true;
    return detail::product(a.sizes) == detail::product(loops);
  }
  return false;
}

template <class Policy>
constexpr bool scheduler<Policy>::mix_order_reductions(int a, int b) const {
  if (!cfg_.mix_order_reduction) return false;
  const sched_node& A = node(a);
  const sched_node& B = node(b);
  if (!A.reduction || !B.reduction || A.foreach || B.foreach || A.template_kernel || B.template_kernel) return false;
  if (!gpu_device_[static_cast<std::size_t>(A.device)] || !gpu_device_[static_cast<std::size_t>(B.device)])
    return false;
  auto [n1, r1] = unsplit_group(a);
  auto [n2, r2] = unsplit_group(b);
  if ((n1 == n2 && r1 == r2) || n1 != r2 || r1 != n2) return false;
  if (depends_on(a, b) || depends_on(b, a)) return false;
  bool common = false;
  for (int r : detail::elements(A.reads)) {
    int buf = get_dep(r).buffer;
    bool both = false;
    for (int q : detail::elements(B.reads)) both = both || get_dep(q).buffer == buf;
    if (both && full_access(buf, a) && full_access(buf, b)) {
      common = true;
      break;
    }
  }
  if (!common) return false;
  int rows = contiguous_loads(a) ? a : contiguous_loads(b) ? b : -1;
  if (rows < 0) return false;
  // Large enough not to live in L2, more rows than columns (each row one persistent
  // reduction, the column sums split across rows), rows short enough to stay persistent.
  // The dump says neither the reduction hints (INNER or DEFAULT needed on the row side)
  // nor the reduction types (sum or prod on the other): taken as allowed.
  auto [nrow, ncol] = unsplit_group(rows);
  constexpr std::int64_t min_elements = std::int64_t{5} << 20;
  if (ncol < 1 || nrow < (min_elements + ncol - 1) / ncol) return false;
  return nrow / 2 >= ncol && nrow >= 4096 && ncol <= 16384;
}

template <class Policy>
constexpr int scheduler<Policy>::make_mix(int a, int b) {
  const int rows = contiguous_loads(a) ? a : b;
  const int other = rows == a ? b : a;
  auto [numel, rnumel] = unsplit_group(rows);
  int id = make_group({rows, other});
  sched_node& f = sched_[static_cast<std::size_t>(id)];
  f.mix_contiguous = rows;
  f.mix_other = other;
  f.mix_numel = numel * rnumel;
  return id;
}

template <class Policy>
constexpr why_no_fuse scheduler<Policy>::mix_part_can_fuse(int f, int part, int other, int other1, int other2) {
  if (auto r = can_fuse(part, other, false, false); r != why_no_fuse::none) return r;
  if (contiguous_loads(part) && !contiguous_loads(other)) return why_no_fuse::mix_order_contiguity;
  for (int x : {other1, other2})
    if (x >= 0 && (depends_on(x, part) || depends_on(x, other) || depends_on(part, x) || depends_on(other, x)))
      return why_no_fuse::mix_order_ancestor;
  if (node(other).reduction) {
    shared_memory m = score_fusion_memory(part, other);
    if (m.exact + m.overlap < node(f).mix_numel) return why_no_fuse::mix_order_score;
  }
  return why_no_fuse::none;
}

template <class Policy>
constexpr why_no_fuse scheduler<Policy>::mix_can_fuse_with(int f, int other) {
  const int rows = node(f).mix_contiguous, cols = node(f).mix_other;
  if (node(other).mix_order()) {
    const int other_rows = node(other).mix_contiguous, other_cols = node(other).mix_other;
    if (auto r = mix_part_can_fuse(f, rows, other_rows, cols, other_cols); r != why_no_fuse::none) return r;
    return mix_part_can_fuse(f, cols, other_cols, -1, -1);
  }
  why_no_fuse r = mix_part_can_fuse(f, rows, other, cols, -1);
  if (r == why_no_fuse::none || mix_part_can_fuse(f, cols, other, rows, -1) == why_no_fuse::none)
    return why_no_fuse::none;
  return r;
}

template <class Policy>
constexpr int scheduler<Policy>::mix_fuse_with(int f, int other) {
  const int rows = node(f).mix_contiguous, cols = node(f).mix_other;
  if (node(other).mix_order()) {
    const int other_rows = node(other).mix_contiguous, other_cols = node(other).mix_other;
    const int x = fuse(rows, other_rows);
    return make_mix(x, fuse(cols, other_cols));
  }
  if (mix_part_can_fuse(f, rows, other, cols, -1) == why_no_fuse::none) return make_mix(fuse(rows, other), cols);
  return make_mix(rows, fuse(cols, other));
}

}  // namespace fusedsl
