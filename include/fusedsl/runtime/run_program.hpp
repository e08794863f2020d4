/// @file run_program.hpp
/// The skeleton of every backend's `run`: the call's tensors bound to the
/// program's placeholders and checked (device, element type, rank), each
/// statement's shapes checked, the plan chosen (fused groups, or one node
/// per group), and the call's state made; then the backend runs the groups.
#pragma once
#include <vector>  // std::vector

#include <fusedsl/core/hana.hpp>                     // hana::for_each
#include <fusedsl/plan/group_schedule.hpp>           // group_schedule, make_group_schedule
#include <fusedsl/program/detail/bound_leaves.hpp>   // bind_leaves
#include <fusedsl/program/detail/run_statement.hpp>  // prepare_statement
#include <fusedsl/runtime/describe_nodes.hpp>        // call_state, buffer_home
#include <fusedsl/tensor/device.hpp>                 // device

namespace fusedsl::detail {

/// The plan a call of `P` follows: its fused groups, or one node per group
/// when `fuse` is false (`fx::cpu_unfused`, `fx::cuda_unfused`). Unpacked
/// once per program.
template <class P>
const group_schedule& plan_for(bool fuse) {
  static const group_schedule fused = make_group_schedule<P>(true);
  static const group_schedule unfused = make_group_schedule<P>(false);
  return fuse ? fused : unfused;
}

/// Runs `prog` with `bindings` on device `where`: binds and checks the
/// tensors, checks each statement, then calls `run_groups(call)` with the
/// call's state (`call_state<P>`), which runs the plan's groups in order.
template <class P, class RunGroups, class... Bindings>
void run_program(const P& prog, device where, bool fuse, RunGroups&& run_groups, const Bindings&... bindings) {
  bound_leaves<P> leaves = bind_leaves(prog, where, bindings...);
  hana::for_each(prog.statements, [&](const auto& s) { prepare_statement<P>(s, leaves, where); });
  const group_schedule& plan = plan_for<P>(fuse);
  call_state<P> call{prog, leaves, plan, std::vector<node_runtime>(plan.statement.size()),
                     std::vector<buffer_home>(plan.statement.size())};
  run_groups(call);
}

}  // namespace fusedsl::detail
