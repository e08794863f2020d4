/// @file state.hpp
/// Nodes as the scheduler sees them while fusing: plain nodes and fused groups.
#pragma once
#include <cstdint>
#include <vector>

#include <fusedsl/graph/node.hpp>
#include <fusedsl/schedule/detail/small_vector.hpp>  // small_vector

namespace fusedsl {

/// A scheduler node during fusion: one graph node, or a fused group of them
/// (Inductor's SchedulerNode / FusedSchedulerNode). Deps are ids into the scheduler's tables.
struct sched_node {
  /// Ids (graph nodes, deps, buffers), the first few in place: most plain nodes need no heap.
  using id_list = detail::small_vector<int, 4>;
  id_list members;          ///< graph node ids, in fused order (get_nodes())
  id_list reads;            ///< deps read, in order (for groups: union minus writes)
  id_list writes;           ///< deps written, in order
  id_list unmet;            ///< read deps on buffers written by some node
  id_list buffers;          ///< buffer ids written
  std::vector<int> snodes;  ///< a foreach node's subnodes (scheduler ids, Inductor's snodes); else empty
  bool reduction = false, template_kernel = false, foreach = false, extern_kernel = false, nop = false;
  bool mutation = false;  ///< some member updates a buffer in place
  /// A foreach node finds the subnode reading a producer's buffer (Inductor's read_to_node,
  /// which stays empty in a foreach node made by fusing a foreach node with a plain one).
  bool reads_indexed = true;
  int device = 0;
  std::int64_t numel = 1, rnumel = 1;  ///< the group Inductor compares (first reduction member's)
  int min_order = 0, max_order = 0;    ///< span of the members in the original order
  /// A mix-order reduction (FusedMixOrderReductions): the scheduler nodes of its part with
  /// contiguous loads (the row reductions) and of its other part, and the numel it compares
  /// a reduction's shared bytes with; -1 and 0 for other nodes.
  int mix_contiguous = -1, mix_other = -1;
  std::int64_t mix_numel = 0;
  /// An outer-loop fused node of the C++ backend (OuterLoopFusedSchedulerNode): its parts,
  /// which share their first `outer_depth` loops; empty and 0 for other nodes.
  std::vector<int> outer_nodes;
  int outer_depth = 0;
  int group_of = -1;  ///< the graph node whose group this node has (numel, rnumel, loop sizes)

  /// A FusedSchedulerNode (more than one member).
  constexpr bool fused() const { return members.size() > 1; }
  /// A FusedMixOrderReductions node.
  constexpr bool mix_order() const { return mix_contiguous >= 0; }
  /// Never fused with anything (extern and nop nodes that are not templates).
  constexpr bool unfusable() const { return (extern_kernel || nop) && !template_kernel; }
};

}  // namespace fusedsl
