/// @file group_schedule.hpp
/// A program's plan in the form backends run it: the fused groups of
/// `fuse_nodes` as positions in the program's lowering, with the nodes whose
/// output never leaves its group. The plan is computed while compiling
/// (`packed_schedule`), so that the scheduler is evaluated by the compiler and
/// never compiled to code; a call only unpacks a few integer arrays.
#pragma once
#include <algorithm>  // std::sort
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include <fusedsl/core/error.hpp>           // error
#include <fusedsl/lower/lowering.hpp>       // lower, build_graph
#include <fusedsl/schedule/fuse_nodes.hpp>  // fuse_nodes

namespace fusedsl::detail {

/// The plan of a program as backends run it: groups of lowered
/// node positions, and which of their outputs stay inside the group.
struct group_schedule {
  struct group {
    std::vector<int> nodes;          ///< positions in the lowering, in execution order
    std::vector<bool> kernel_local;  ///< per node of the group
  };
  std::vector<group> groups;
  std::vector<int> statement, distinct;  ///< per lowered node
  std::vector<bool> writes_target;
};

/// Number of nodes in the lowering of program `P`.
template <class P>
inline constexpr std::size_t lowered_node_count = lower<P>().nodes.size();

/// The fused plan of a program with `N` lowered nodes as integers, fit for
/// a constexpr variable: groups one after the other in `order`.
template <std::size_t N>
struct packed_schedule {
  std::array<int, N> statement{}, distinct{};  ///< per lowered node
  std::array<bool, N> writes_target{};         ///< per lowered node
  std::array<int, N> order{};                  ///< node positions, group by group, each in execution order
  std::array<bool, N> kernel_local{};          ///< per entry of `order`
  std::array<int, N> group_end{};              ///< per group: one past its last entry in `order`
  int group_count = 0;
};

/// Schedules program `P` (Inductor's rules, no decision log) and packs the plan.
template <class P>
constexpr packed_schedule<lowered_node_count<P>> pack_schedule() {
  const lowering_detail::lowering lowered = lower<P>();
  const graph g = lowering_detail::build_graph(lowered);  // the graph of this lowering: one lowering, not two
  packed_schedule<lowered_node_count<P>> result;
  for (std::size_t i = 0; i < lowered.nodes.size(); ++i) {
    result.statement[i] = lowered.nodes[i].statement;
    result.distinct[i] = lowered.nodes[i].distinct;
    result.writes_target[i] = lowered.nodes[i].writes_target;
  }
  const auto position = [&](const std::string& name) {
    for (std::size_t i = 0; i < lowered.nodes.size(); ++i)
      if (lowered.nodes[i].buffer == name) return static_cast<int>(i);
    throw error("fusedsl: internal: the plan names a node \"" + name + "\" that the lowering does not have");
  };
  fuse_config cfg;
  cfg.record_log = false;
  const plan p = fuse_nodes(g, cfg);
  std::size_t next = 0;
  for (const fused_group& fg : p.groups) {
    std::vector<int> members;
    for (int id : fg.nodes) members.push_back(position(g.node(id).name));
    std::sort(members.begin(), members.end());  // lowering order is a topological order
    for (int m : members) {
      result.order[next] = m;
      for (int b : fg.kernel_local)
        if (lowered.nodes[static_cast<std::size_t>(m)].buffer == p.buffer_names[static_cast<std::size_t>(b)])
          result.kernel_local[next] = true;
      ++next;
    }
    result.group_end[static_cast<std::size_t>(result.group_count++)] = static_cast<int>(next);
  }
  return result;
}

/// The packed plan of program `P`, computed once while compiling.
template <class P>
inline constexpr packed_schedule<lowered_node_count<P>> packed_schedule_of = pack_schedule<P>();

/// The group schedule of program `P`; with `fuse` false every node is a
/// group of its own, in the same order (the unfused comparison run).
template <class P>
group_schedule make_group_schedule(bool fuse) {
  const auto& packed = packed_schedule_of<P>;
  group_schedule result;
  result.statement.assign(packed.statement.begin(), packed.statement.end());
  result.distinct.assign(packed.distinct.begin(), packed.distinct.end());
  result.writes_target.assign(packed.writes_target.begin(), packed.writes_target.end());
  std::size_t begin = 0;
  for (int k = 0; k < packed.group_count; ++k) {
    const auto end = static_cast<std::size_t>(packed.group_end[static_cast<std::size_t>(k)]);
    if (!fuse) {
      for (std::size_t i = begin; i < end; ++i) result.groups.push_back({{packed.order[i]}, {false}});
    } else {
      group_schedule::group g;
      for (std::size_t i = begin; i < end; ++i) {
        g.nodes.push_back(packed.order[i]);
        g.kernel_local.push_back(packed.kernel_local[i]);
      }
      result.groups.push_back(std::move(g));
    }
    begin = end;
  }
  return result;
}

}  // namespace fusedsl::detail
