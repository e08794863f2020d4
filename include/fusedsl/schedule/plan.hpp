/// @file plan.hpp
/// The result of fuse_nodes: ordered fused groups, what each must materialize, and the log.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <fusedsl/graph/node.hpp>
#include <fusedsl/schedule/reason.hpp>
#include <fusedsl/schedule/score.hpp>

namespace fusedsl {

/// One kernel of the plan.
struct fused_group {
  std::vector<int> nodes;          ///< graph node ids, in the order they were fused
  std::vector<std::string> names;  ///< member names (what Inductor reports)
  std::vector<int> materialized;   ///< buffer ids written to memory: outputs or read outside the group
  std::vector<int> kernel_local;   ///< buffer ids all of whose readers are inside the group
};

/// One candidate pair of one round, in score order, and what became of it.
struct fusion_candidate {
  int node1 = -1, node2 = -1;               ///< indices into the round's node list (round_log::members)
  fusion_score score;                       ///< as computed when the candidates were collected
  why_no_fuse outcome = why_no_fuse::none;  ///< none: fused
  bool remapped = false;                    ///< a side had been fused earlier this round; tried as below
  std::vector<int> tried1, tried2;          ///< graph node ids of the two sides as tried (when remapped)
};

/// A pair refused while candidates were collected (kept when fuse_config::record_rejected).
struct rejected_pair {
  int node1 = -1, node2 = -1;  ///< indices into the round's node list
  why_no_fuse reason = why_no_fuse::none;
};

/// One round of fuse_nodes_once.
struct round_log {
  bool reorder_round = false;                ///< the extra loop-reordering round
  std::vector<int> member_nodes;             ///< graph node ids of the round's nodes, one node after another
  std::vector<int> member_start;             ///< where each node starts in member_nodes (plus an end mark)
  std::vector<fusion_candidate> candidates;  ///< in score order, best first
  std::vector<rejected_pair> rejected;       ///< refused pairs, in the order examined
  std::size_t pairs_examined = 0;            ///< pairs given to can_fuse while collecting
  int nodes_after = 0;                       ///< node count after the round

  /// Number of nodes at the start of the round.
  constexpr int node_count() const { return member_start.empty() ? 0 : static_cast<int>(member_start.size()) - 1; }
  /// Graph node ids of the round's node `i`, in fused order.
  constexpr std::span<const int> members(int i) const {
    auto b = static_cast<std::size_t>(member_start[static_cast<std::size_t>(i)]);
    auto e = static_cast<std::size_t>(member_start[static_cast<std::size_t>(i) + 1]);
    return std::span<const int>(member_nodes.data() + b, e - b);
  }
};

/// A schedule: kernels in execution order, plus how the scheduler got there.
struct plan {
  std::vector<fused_group> groups;        ///< kernels in order
  std::vector<round_log> rounds;          ///< decision log (when fuse_config::record_log)
  std::vector<std::string> node_names;    ///< graph node names, by id
  std::vector<std::string> buffer_names;  ///< graph buffer names, by id
  std::vector<node_kind> node_kinds;      ///< graph node kinds, by id
  std::vector<int> pred_start, preds;     ///< graph edges: preds[pred_start[i] .. pred_start[i+1]) feed node i
  /// Per graph node, the loop order the loop-reordering round chose: kernel loop j is the
  /// node's loop loop_orders[i][j] (of graph_node::ranges). Empty: the node's own order.
  /// A backend must iterate a reordered node this way for its tiles to line up with its group's.
  std::vector<std::vector<int>> loop_orders;
  std::size_t pairs_examined = 0;  ///< over all rounds

  /// Number of kernels.
  constexpr int group_count() const { return static_cast<int>(groups.size()); }
};

}  // namespace fusedsl
