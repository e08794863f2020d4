/// @file fusion_policy.hpp
/// The fusion policy: the heuristics Inductor keeps in `V.choices` and the
/// backend's can_fuse rules, replaceable by the user (fuse_nodes' `Policy`).
/// A policy sees the scheduler through `policy_view`: the graph, the settings,
/// the scheduler nodes and the measures Inductor's heuristics use, nothing that
/// changes the schedule. The legality rules (order, deps, cycles) stay in the
/// scheduler, where no policy can relax them.
#pragma once
#include <concepts>  // std::same_as, std::convertible_to
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int64_t
#include <vector>    // std::vector

#include <fusedsl/graph/graph.hpp>      // graph, dep, access
#include <fusedsl/schedule/config.hpp>  // fuse_config
#include <fusedsl/schedule/reason.hpp>  // why_no_fuse
#include <fusedsl/schedule/state.hpp>   // sched_node

namespace fusedsl {

/// Bytes two nodes would stop moving if fused (Inductor's score_fusion_memory).
struct shared_memory {
  std::int64_t exact = 0;    ///< deps equal on both sides (same buffer, index and sizes)
  std::int64_t overlap = 0;  ///< same-buffer reads at different indices (split/cat patterns)
};

/// What a fusion policy sees of the scheduler `Scheduler` while it schedules.
template <class Scheduler>
class policy_view {
 public:
  constexpr explicit policy_view(const Scheduler& s) : s_(s) {}
  /// The graph being scheduled.
  constexpr const graph& source() const { return s_.source(); }
  /// The settings.
  constexpr const fuse_config& config() const { return s_.config(); }
  /// Scheduler node `s` (plain nodes have the ids of their graph node).
  constexpr const sched_node& node(int s) const { return s_.node(s); }
  /// Dep by id (graph deps, then deps created by loop reordering).
  constexpr const dep& get_dep(int id) const { return s_.get_dep(id); }
  /// Access by id.
  constexpr const access& get_access(int id) const { return s_.get_access(id); }
  /// Loop ranges of graph node `i` (pointwise then reduction; permuted by loop reordering).
  constexpr const std::vector<std::int64_t>& ranges(int i) const { return s_.ranges(i); }
  /// How many of ranges(i) are pointwise.
  constexpr std::size_t pointwise_ranges(int i) const { return s_.pointwise_ranges(i); }
  /// Bytes saved by fusing a and b: exactly shared deps, else same-buffer read overlap.
  constexpr shared_memory score_fusion_memory(int a, int b) const { return s_.score_fusion_memory(a, b); }
  /// True when some graph node of a is an ancestor of some graph node of b (b would fuse vertically).
  constexpr bool depends_on(int a, int b) const { return s_.depends_on(a, b); }
  /// True when the pair is judged by Inductor's C++ backend (CPU nodes, fuse_config::cpp_backend).
  constexpr bool cpp_rules(int a, int b) const { return s_.cpp_rules(a, b); }
  /// The C++ backend's can_fuse_vertical or can_fuse_horizontal, as a reason.
  constexpr why_no_fuse cpp_backend_can_fuse(int a, int b, bool vertical) const {
    return s_.cpp_backend_can_fuse(a, b, vertical);
  }
  /// The C++ backend's outer-loop fusion of a and b (its pairs of priority 1).
  constexpr bool cpp_outer_loop_fusion(int a, int b) const { return s_.cpp_outer_loop_fusion(a, b); }
  /// True when a and b are mix-order reductions one Triton kernel computes together.
  constexpr bool mix_order_reductions(int a, int b) const { return s_.mix_order_reductions(a, b); }
  /// Inductor's peak-memory guard (see the scheduler's memory score).
  constexpr bool can_fusion_increase_peak_memory(int a, int b) const {
    return s_.can_fusion_increase_peak_memory(a, b);
  }
  /// True when the fused node would read and write more than `limit` distinct buffers.
  constexpr bool too_many_io(int a, int b, int limit) const { return s_.too_many_io(a, b, limit); }
  /// A per-node cache: `compute()` once per scheduler node until its loops are reordered.
  /// The reference stays valid until the scheduler makes a node (fuses two).
  template <class F>
  constexpr const std::vector<std::int64_t>& memo(int s, F compute) const {
    return s_.memo(s, compute);
  }

 private:
  const Scheduler& s_;
};

/// A fusion policy for views `View`: scores a candidate pair, orders scores,
/// gives a pair's priority among duplicates, and may refuse a pair with a
/// reason (every pair, vertical, horizontal, the backend's rules).
template <class P, class View>
concept fusion_policy = requires(const P& p, const View& v, int a, int b, std::int64_t shared) {
  { p.can_fuse(v, a, b, shared) } -> std::same_as<why_no_fuse>;
  { p.can_fuse_vertical(v, a, b, shared) } -> std::same_as<why_no_fuse>;
  { p.can_fuse_horizontal(v, a, b, shared) } -> std::same_as<why_no_fuse>;
  { p.backend_can_fuse(v, a, b) } -> std::same_as<why_no_fuse>;
  { p.priority(v, a, b) } -> std::convertible_to<int>;
  { p.less(p.score(v, a, b), p.score(v, a, b)) } -> std::convertible_to<bool>;
};

}  // namespace fusedsl
