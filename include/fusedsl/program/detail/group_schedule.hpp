/// @file group_schedule.hpp
/// A program's plan in the form backends run it: the fused groups of
/// `fuse_nodes` as positions in the program's lowering, with the nodes whose
/// output never leaves its group. Computed once per program (at run time,
/// so that every compiler, nvcc included, can build it).
#pragma once
#include <algorithm>  // std::sort
#include <string>     // std::string
#include <vector>     // std::vector

#include <fusedsl/core/error.hpp>           // error
#include <fusedsl/graph/lowering.hpp>       // lower, graph_of
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

/// The group schedule of program `P`; with `fuse` false every node is a
/// group of its own (the unfused comparison run).
template <class P>
group_schedule make_group_schedule(bool fuse) {
  const lowering_detail::lowering lowered = lower<P>();
  const graph g = graph_of<P>();
  group_schedule result;
  for (const auto& n : lowered.nodes) {
    result.statement.push_back(n.statement);
    result.distinct.push_back(n.distinct);
    result.writes_target.push_back(n.writes_target);
  }
  const auto position = [&](const std::string& name) {
    for (std::size_t i = 0; i < lowered.nodes.size(); ++i)
      if (lowered.nodes[i].buffer == name) return static_cast<int>(i);
    throw error("fusedsl: internal: the plan names a node \"" + name + "\" that the lowering does not have");
  };
  const plan p = fuse_nodes(g);
  for (const fused_group& fg : p.groups) {
    std::vector<int> members;
    for (int id : fg.nodes) members.push_back(position(g.node(id).name));
    std::sort(members.begin(), members.end());  // lowering order is a topological order
    if (!fuse) {
      for (int m : members) result.groups.push_back({{m}, {false}});
      continue;
    }
    group_schedule::group sg{members, std::vector<bool>(members.size(), false)};
    for (int b : fg.kernel_local)
      for (std::size_t i = 0; i < members.size(); ++i)
        if (lowered.nodes[static_cast<std::size_t>(members[i])].buffer == p.buffer_names[static_cast<std::size_t>(b)])
          sg.kernel_local[i] = true;
    result.groups.push_back(sg);
  }
  return result;
}

}  // namespace fusedsl::detail
