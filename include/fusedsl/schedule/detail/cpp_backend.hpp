/// @file cpp_backend.hpp
/// The rules of Inductor's C++ backend for CPU nodes (CppScheduling): a pair fuses
/// as one loop nest when its groups (loop sizes after Inductor merged the loops) are
/// the same, a pointwise node's loops are a reduction's, or two pointwise nodes cover
/// the same elements; a node and one that depends on it otherwise fuse around their
/// shared outer loops (OuterLoopFusedSchedulerNode), after every other pair.
#pragma once
#include <algorithm>  // std::equal, std::min
#include <cstddef>    // std::ptrdiff_t
#include <cstdint>    // std::int64_t
#include <utility>    // std::move
#include <vector>     // std::vector

#include <fusedsl/graph/detail/elements.hpp>            // detail::elements, detail::contains
#include <fusedsl/schedule/detail/containers.hpp>       // detail::product
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler

namespace fusedsl {

template <class Policy>
constexpr bool scheduler<Policy>::cpp_rules(int a, int b) const {
  (void)b;  // Inductor takes the backend of node1's device (a device mismatch is refused before)
  return cfg_.cpp_backend && cpu_device_[static_cast<std::size_t>(node(a).device)];
}

template <class Policy>
constexpr const graph_node& scheduler<Policy>::cpp_group(int s) const {
  return g_.node(node(s).group_of);
}

template <class Policy>
constexpr typename scheduler<Policy>::cpp_reason scheduler<Policy>::cpp_why_fuse(int a, int b) const {
  const auto &v1 = cpp_group(a).loop_sizes, &r1 = cpp_group(a).reduction_loop_sizes;
  const auto &v2 = cpp_group(b).loop_sizes, &r2 = cpp_group(b).reduction_loop_sizes;
  if (v1 == v2 && r1 == r2) return cpp_reason::same_vars_reduce;
  // A pointwise node over a reduction's loops, pointwise then reduction ones.
  if (r1.empty() && v1.size() == v2.size() + r2.size() && std::equal(v2.begin(), v2.end(), v1.begin()) &&
      std::equal(r2.begin(), r2.end(), v1.begin() + static_cast<std::ptrdiff_t>(v2.size())))
    return cpp_reason::compatible_reduction;
  // Two pointwise nodes over the same elements, one of them with its loops merged into one:
  // it is rebuilt with the other's loops. Inductor compares the two buffers' sizes, which a
  // dump does not give; their element counts are taken for them.
  if (!r1.empty() || !r2.empty() || (v1.size() != 1 && v2.size() != 1)) return cpp_reason::none;
  if (detail::product(v1) != detail::product(v2)) return cpp_reason::none;
  const int rebuilt = v1.size() < v2.size() ? a : b, kept = rebuilt == a ? b : a;
  if (node(rebuilt).fused() || node(rebuilt).template_kernel) return cpp_reason::none;
  // The kept node's members must all have one size (a fused node's snodes).
  for (int m : detail::elements(node(kept).members))
    if (node(m).numel != node(kept).numel) return cpp_reason::none;
  return cpp_reason::compatible_ranges;
}

template <class Policy>
constexpr bool scheduler<Policy>::cpp_one_loop_nest(int a, int b) const {
  const sched_node& A = node(a);
  const sched_node& B = node(b);
  if (!A.outer_nodes.empty() || !B.outer_nodes.empty() || A.extern_kernel || B.extern_kernel) return false;
  return cpp_why_fuse(a, b) != cpp_reason::none;
}

template <class Policy>
constexpr int scheduler<Policy>::cpp_outer_loop_depth(int a, int b) const {
  const sched_node& A = node(a);
  const sched_node& B = node(b);
  if (A.foreach || B.foreach || A.unfusable() || B.unfusable()) return 0;
  const int x = A.outer_nodes.empty() ? a : A.outer_nodes.back();
  const int y = B.outer_nodes.empty() ? b : B.outer_nodes.front();
  const auto &v1 = cpp_group(x).loop_sizes, &r1 = cpp_group(x).reduction_loop_sizes;
  const auto &v2 = cpp_group(y).loop_sizes, &r2 = cpp_group(y).reduction_loop_sizes;
  if (v1.empty() && v2.empty() && !r1.empty() && !r2.empty()) return 0;  // two full reductions
  if (!A.outer_nodes.empty() && !B.outer_nodes.empty()) return A.outer_depth == B.outer_depth ? A.outer_depth : 0;
  const std::size_t d = std::min(v1.size(), v2.size());
  if (d < 1 || !std::equal(v1.begin(), v1.begin() + static_cast<std::ptrdiff_t>(d), v2.begin())) return 0;
  const int depth = static_cast<int>(d);
  if (!A.outer_nodes.empty()) return A.outer_depth == depth ? depth : 0;
  if (!B.outer_nodes.empty()) return B.outer_depth == depth ? depth : 0;
  return depth;
}

template <class Policy>
constexpr bool scheduler<Policy>::cpp_outer_loop_fusion(int a, int b) const {
  const sched_node& A = node(a);
  if (A.template_kernel || node(b).template_kernel || !depends_on(a, b)) return false;
  if (cpp_one_loop_nest(a, b) && !A.reduction) return false;  // one loop nest instead
  return cpp_outer_loop_depth(a, b) >= 1;
}

template <class Policy>
constexpr why_no_fuse scheduler<Policy>::cpp_backend_can_fuse(int a, int b, bool vertical) const {
  const sched_node& A = node(a);
  const sched_node& B = node(b);
  if (!vertical) {
    if (A.template_kernel || B.template_kernel) return why_no_fuse::cpp_template;
    if (static_cast<int>(A.members.size() + B.members.size()) > cfg_.cpp_max_horizontal_fusion_size)
      return why_no_fuse::cpp_horizontal_size;
    return cpp_one_loop_nest(a, b) ? why_no_fuse::none : why_no_fuse::cpp_loops;
  }
  if (B.template_kernel) return why_no_fuse::cpp_template;  // no prologues on the CPU
  if (A.template_kernel) {
    // An epilogue reads the template's output at one index at most, and writes at that index.
    int index = -1;
    for (int r : detail::elements(B.reads)) {
      const dep& d = get_dep(r);
      if (d.kind != dep_kind::memory || !detail::contains(A.buffers, d.buffer)) continue;
      if (index >= 0 && !same_index(get_access(index), get_access(d.access))) return why_no_fuse::cpp_template;
      index = d.access;
    }
    if (index >= 0)
      for (int w : detail::elements(B.writes))
        if (get_dep(w).kind != dep_kind::memory || !same_index(get_access(get_dep(w).access), get_access(index)))
          return why_no_fuse::cpp_template;
    return B.reduction ? why_no_fuse::cpp_template : why_no_fuse::none;
  }
  if ((cpp_one_loop_nest(a, b) && !A.reduction) || cpp_outer_loop_fusion(a, b)) return why_no_fuse::none;
  return why_no_fuse::cpp_loops;
}

template <class Policy>
constexpr int scheduler<Policy>::make_outer_loop(int a, int b) {
  const int depth = cpp_outer_loop_depth(a, b);
  std::vector<int> parts = node(a).outer_nodes.empty() ? std::vector<int>{a} : node(a).outer_nodes;
  if (node(b).outer_nodes.empty()) parts.push_back(b);
  else parts.insert(parts.end(), node(b).outer_nodes.begin(), node(b).outer_nodes.end());
  int id = make_group(parts);
  sched_node& f = sched_[static_cast<std::size_t>(id)];
  f.outer_nodes = std::move(parts);
  f.outer_depth = depth;
  return id;
}

}  // namespace fusedsl
