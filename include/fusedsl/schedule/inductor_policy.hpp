/// @file inductor_policy.hpp
/// The default fusion policy: Inductor's heuristics (torch/_inductor/choices.py) and
/// the SIMD backend's group rules (torch/_inductor/codegen/simd.py). Replace it by
/// passing another type with the same members to fuse_nodes.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include <fusedsl/graph/detail/elements.hpp>
#include <fusedsl/schedule/reason.hpp>
#include <fusedsl/schedule/score.hpp>
#include <fusedsl/schedule/state.hpp>

namespace fusedsl {

/// Inductor's choices + SIMD backend. Every member takes the scheduler `s` (for
/// node, dep and graph queries) and two scheduler node ids a (first) and b (second).
struct inductor_policy {
  /// choices.score_fusion: template fusions last for prologues, then same reduction-ness
  /// with shared data, bytes saved, buffer overlap, and closeness in the original order.
  template <class S>
  constexpr fusion_score score(const S& s, int a, int b) const {
    const sched_node& A = s.node(a);
    const sched_node& B = s.node(b);
    auto m = s.score_fusion_memory(a, b);
    fusion_score r;
    r.memory_score = m.exact;
    r.buffer_overlap_score = m.overlap;
    std::int64_t d1 = A.min_order - B.max_order, d2 = B.min_order - A.max_order;
    d1 = d1 < 0 ? -d1 : d1;
    d2 = d2 < 0 ? -d2 : d2;
    r.proximity_score = -(d1 > d2 ? d1 : d2);
    if (B.template_kernel) r.template_score = 0;
    else r.template_score = 1 + ((A.template_kernel == s.config().epilogue_fusion_first) && m.exact > 0 ? 1 : 0);
    r.type_score = A.reduction == B.reduction && m.exact > 0;
    return r;
  }

  /// Order of scores: true when x ranks below y.
  constexpr bool less(const fusion_score& x, const fusion_score& y) const { return fusion_score_less(x, y); }

  /// choices.can_fuse: heuristics for every pair (shared data, size, peak memory, I/O count).
  template <class S>
  constexpr why_no_fuse can_fuse(const S& s, int a, int b, std::int64_t shared) const {
    const sched_node& A = s.node(a);
    const sched_node& B = s.node(b);
    const auto& cfg = s.config();
    if (shared == 0 && (!cfg.aggressive_fusion || A.reduction || B.reduction)) return why_no_fuse::no_shared_data;
    if (!A.foreach && !B.foreach && static_cast<int>(A.members.size() + B.members.size()) > cfg.max_fusion_size)
      return why_no_fuse::exceeds_max_fusion;
    if (cfg.peak_memory_guard && s.can_fusion_increase_peak_memory(a, b)) return why_no_fuse::peak_memory;
    if (cfg.max_fusion_unique_io_buffers > 0 && s.too_many_io(a, b, cfg.max_fusion_unique_io_buffers))
      return why_no_fuse::too_many_io;
    return why_no_fuse::none;
  }

  /// choices.can_fuse_vertical: no extra heuristic.
  template <class S>
  constexpr why_no_fuse can_fuse_vertical(const S&, int, int, std::int64_t) const {
    return why_no_fuse::none;
  }

  /// choices.can_fuse_horizontal: mix-order reductions, or enough shared bytes and not too far apart.
  template <class S>
  constexpr why_no_fuse can_fuse_horizontal(const S& s, int a, int b, std::int64_t shared) const {
    if (s.mix_order_reductions(a, b)) return why_no_fuse::none;
    const sched_node& A = s.node(a);
    const sched_node& B = s.node(b);
    if (shared < s.config().score_fusion_memory_threshold) return why_no_fuse::score_threshold;
    std::int64_t d1 = A.min_order - B.max_order, d2 = B.min_order - A.max_order;
    d1 = d1 < 0 ? -d1 : d1;
    d2 = d2 < 0 ? -d2 : d2;
    if ((d1 > d2 ? d1 : d2) > s.config().max_proximity) return why_no_fuse::too_far;
    return why_no_fuse::none;
  }

  /// The backend's priority for a pair (lower is preferred): one level for the SIMD backend;
  /// the C++ backend's outer-loop fusions come after its other pairs.
  template <class S>
  constexpr int priority(const S& s, int a, int b) const {
    return s.cpp_rules(a, b) && s.cpp_outer_loop_fusion(a, b) ? 1 : 0;
  }

  /// SIMDScheduling.can_fuse: (numel, rnumel) group rules and tiling compatibility
  /// (the scheduler judges pairs with a foreach node, as ForeachKernelSchedulerNode does);
  /// CppScheduling's rules for the C++ backend's pairs.
  template <class S>
  constexpr why_no_fuse backend_can_fuse(const S& s, int a, int b) const {
    if (s.cpp_rules(a, b)) return s.cpp_backend_can_fuse(a, b, s.depends_on(a, b));
    const sched_node& A = s.node(a);
    const sched_node& B = s.node(b);
    if (A.reduction && B.reduction)
      return (A.numel == B.numel && A.rnumel == B.rnumel) || s.mix_order_reductions(a, b)
                 ? why_no_fuse::none
                 : why_no_fuse::reduce_mismatch;
    if (!A.reduction && !B.reduction) {
      if (!(A.numel == B.numel && A.rnumel == B.rnumel)) {
        if (!B.template_kernel) return why_no_fuse::nonreduce_mismatch;
        // A prologue must match the group of the template's existing prologue nodes.
        for (int m : detail::elements(B.members)) {
          const sched_node& M = s.node(m);
          if (M.template_kernel) break;
          if (M.numel != A.numel || M.rnumel != A.rnumel) return why_no_fuse::nonreduce_mismatch;
        }
      }
      if (A.template_kernel || B.template_kernel) return why_no_fuse::none;
      if (s.config().tiling_prevents_pointwise_fusion) {
        // Equal groups here, so each side's tiling is its own (cached) tiling.
        const auto& t1 = own_tiling(s, a);
        const auto& t2 = own_tiling(s, b);
        if (t1.size() > 2 || t2.size() > 2) {
          std::vector<int> both(A.members.begin(), A.members.end());
          both.insert(both.end(), B.members.begin(), B.members.end());
          auto t3 = select_tiling(s, both, A.numel, A.rnumel);
          bool ok = t1.size() > 2 ? (t2.size() > 2 ? (t1 == t2 && t2 == t3) : t1 == t3) : t2 == t3;
          if (!ok) return why_no_fuse::tiling_mismatch;
        }
      }
      return why_no_fuse::none;
    }
    // One pointwise side p, one reduction side r (Inductor swaps to put the pointwise first).
    const bool a_pointwise = !A.reduction;
    const sched_node& P = a_pointwise ? A : B;
    const sched_node& R = a_pointwise ? B : A;
    if (P.numel == R.numel * R.rnumel) {
      std::vector<std::int64_t> groups{R.numel, R.rnumel};
      for (int m : detail::elements(P.members))
        if (!is_compatible(groups, s.ranges(m), s.pointwise_ranges(m), 1)) return why_no_fuse::rnumel_incompatible;
      if (s.config().tiling_prevents_reduction_fusion && !P.template_kernel) {
        const auto& t = own_tiling(s, a_pointwise ? a : b);
        // t == {P.numel, 1} or {R.numel, R.rnumel, 1}, compared without building the two vectors.
        bool valid = (t.size() == 2 && t[0] == P.numel && t[1] == 1) ||
                     (t.size() == 3 && t[0] == R.numel && t[1] == R.rnumel && t[2] == 1);
        if (!valid) return why_no_fuse::invalid_reduction_tiling;
      }
      return why_no_fuse::none;
    }
    return P.numel == R.numel ? why_no_fuse::none : why_no_fuse::numel_incompatible;
  }

  /// The tiling a pointwise scheduler node would get on its own, cached per node.
  template <class S>
  static constexpr const std::vector<std::int64_t>& own_tiling(const S& s, int n) {
    return s.memo(n, [&] { return select_tiling(s, s.node(n).members, s.node(n).numel, 1); });
  }

  /// SIMDKernel.is_compatible: can the loop `ranges` (pointwise part first) be split
  /// across `groups` without a loop straddling two groups unevenly?
  static constexpr bool is_compatible(const std::vector<std::int64_t>& groups, const std::vector<std::int64_t>& ranges,
                                      std::size_t pointwise, std::int64_t reduction_numel) {
    // The loop lengths are `ranges`, plus `reduction_numel` for a pointwise node that
    // fills the groups with it; walked in place rather than copied into a vector.
    bool extra = false;
    if (pointwise == ranges.size()) {
      std::int64_t pg = 1, pl = 1;
      for (auto g : detail::elements(groups)) pg *= g;
      for (auto l : detail::elements(ranges)) pl *= l;
      extra = pg == pl * reduction_numel;
    }
    // The groups still to fill, walked without a copy: a loop only ever divides the
    // current group and the one after it, so those two are kept apart (1 past the end).
    const std::size_t n = groups.size();
    std::size_t cur = 0;
    std::int64_t here = n > 0 ? groups[0] : 1, next = n > 1 ? groups[1] : 1;
    const auto fits = [&](std::int64_t size) {
      if (size == 1) return true;
      while (cur < n && here == 1) {
        ++cur;
        here = next;
        next = cur + 1 < n ? groups[cur + 1] : 1;
      }
      if (cur >= n) return false;
      if (cur + 1 < n && size > here) {
        if (here == 0 || size % here != 0) return false;
        std::int64_t size2 = size / here;
        here = 1;
        if (next % size2 != 0) return false;
        next /= size2;
      } else {
        if (here % size != 0) return false;
        here /= size;
      }
      return true;
    };
    for (auto size : detail::elements(ranges))
      if (!fits(size)) return false;
    if (extra && !fits(reduction_numel)) return false;
    if (here != 1 || next != 1) return false;
    for (std::size_t k = cur + 2; k < n; ++k)
      if (groups[k] != 1) return false;
    return true;
  }

  /// SIMDScheduling.select_tiling for pointwise kernels: the best-scored 2-D split of
  /// the loops suggested by non-contiguous accesses that all nodes can use, else 1-D.
  /// Returned as Inductor's tiling values: {numel, rnumel} or {y, x, rnumel}.
  /// `nodes`: graph node ids (a std::vector or a sched_node::id_list).
  template <class S, class Ids>
  static constexpr std::vector<std::int64_t> select_tiling(const S& s, const Ids& nodes, std::int64_t numel,
                                                           std::int64_t rnumel) {
    std::vector<std::int64_t> fallback{numel, rnumel};
    if (rnumel != 1) return fallback;  // reductions are not tiled (config.triton.tile_reductions)
    // The 2-D candidates {y, x, 1} with their summed scores, in first-seen order. The 1-D
    // candidate {numel, 1} is Inductor's too, seen first with score 0 once a node has loops
    // to split; it is not stored, being the fallback, and is tried where it would rank.
    struct candidate {
      std::int64_t y, x, score;
    };
    std::vector<candidate> tilings;
    std::vector<int> seen_names;
    bool seen_none = false;
    auto add = [&](std::int64_t y, std::int64_t x, std::int64_t score) {
      for (candidate& c : tilings)
        if (c.y == y && c.x == x) {
          c.score += score;
          return;
        }
      tilings.push_back({y, x, score});
    };
    for (int m : detail::elements(nodes)) {
      const sched_node& M = s.node(m);
      if (M.extern_kernel || M.nop || M.template_kernel || M.foreach) continue;
      const auto& ranges = s.ranges(m);
      std::size_t pw = s.pointwise_ranges(m);
      if (pw <= 1 && ranges.size() - pw <= 1) continue;
      // ranges[0, pw) are the pointwise loops; strides past an access's own variables are 0.
      std::int64_t total = 1;
      for (auto r : detail::elements(ranges)) total *= r;
      seen_none = true;
      for (const auto* list : {&M.reads, &M.writes})
        for (int d : detail::elements(*list)) {
          const dep& dd = s.get_dep(d);
          if (dd.kind != dep_kind::memory) continue;
          const access& ac = s.get_access(dd.access);
          if (!ac.evaluable) continue;
          const auto stride = [&](std::size_t i) { return i < ac.strides.size() ? ac.strides[i] : std::int64_t{0}; };
          std::size_t split = 0;
          while (split < pw && stride(split) != 1) ++split;
          if (split == pw) continue;
          ++split;
          if (split == pw) continue;
          bool all_zero = true;
          for (std::size_t i = split; i < pw; ++i) all_zero = all_zero && stride(i) == 0;
          if (all_zero) continue;
          std::int64_t g0 = 1, g1 = 1, score = 1;
          for (std::size_t i = 0; i < split; ++i) g0 *= ranges[i];
          for (std::size_t i = split; i < pw; ++i) g1 *= ranges[i];
          for (std::size_t i = 0; i < pw; ++i)
            if (stride(i) != 0) score *= ranges[i];
          bool is_write = false;
          for (int w : detail::elements(M.writes)) is_write = is_write || s.get_dep(w).buffer == dd.buffer;
          if (is_write) score *= 2;
          if (g0 >= 32 && g0 % 32 == 0) score *= 2;
          if (g1 >= 32 && g1 % 32 == 0) score *= 2;
          if (score < total) continue;
          bool seen = false;
          for (int n : detail::elements(seen_names)) seen = seen || n == dd.buffer;
          if (seen) continue;
          seen_names.push_back(dd.buffer);
          add(g0, g1, score);
        }
    }
    // Counter.most_common(): by score, ties in first-seen order.
    std::vector<std::size_t> order(tilings.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (std::size_t i = 1; i < order.size(); ++i)
      for (std::size_t j = i; j > 0 && tilings[order[j]].score > tilings[order[j - 1]].score; --j)
        std::swap(order[j], order[j - 1]);
    auto fits_all = [&](const std::vector<std::int64_t>& t) {
      for (int m : detail::elements(nodes)) {
        const sched_node& M = s.node(m);
        if (M.extern_kernel || M.nop || M.foreach) continue;
        if (!is_compatible(t, s.ranges(m), s.pointwise_ranges(m), rnumel)) return false;
      }
      return true;
    };
    bool none_tried = !seen_none;
    for (std::size_t i : order) {
      // The 1-D candidate ranks before the other candidates scored 0 (it was seen first).
      if (!none_tried && tilings[i].score <= 0) {
        none_tried = true;
        if (fits_all(fallback)) return fallback;
      }
      std::vector<std::int64_t> t{tilings[i].y, tilings[i].x, 1};
      if (fits_all(t)) return t;
    }
    // The 1-D candidate last, or none: compatible or not, the answer is the fallback.
    return fallback;
  }
};

}  // namespace fusedsl
