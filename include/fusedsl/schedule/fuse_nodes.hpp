/// @file fuse_nodes.hpp
/// Entry points: schedule a graph (fuse_nodes), check one pair (check_fusion),
/// and count kernels. All constexpr.
#pragma once
#include <string_view>
#include <vector>

#include <fusedsl/core/error.hpp>
#include <fusedsl/graph/graph.hpp>
#include <fusedsl/schedule/config.hpp>
#include <fusedsl/schedule/inductor_policy.hpp>
#include <fusedsl/schedule/plan.hpp>
#include <fusedsl/schedule/scheduler.hpp>

namespace fusedsl {

/// Fuses the nodes of a finalized graph as Inductor's Scheduler.fuse_nodes does and
/// returns the plan (kernels in order, materialized buffers, decision log).
template <class Policy = inductor_policy>
constexpr plan fuse_nodes(const graph& g, const fuse_config& cfg = {}, Policy policy = {}) {
  scheduler<Policy> s(g, cfg, std::move(policy));
  return s.run();
}

/// Number of kernels fuse_nodes makes of `g`.
template <class Policy = inductor_policy>
constexpr int kernel_count(const graph& g, const fuse_config& cfg = {}, Policy policy = {}) {
  fuse_config c = cfg;
  c.record_log = false;
  return fuse_nodes(g, c, std::move(policy)).group_count();
}

/// Runs every can_fuse gate (and the cycle check) on two unfused nodes of `g`, by name (a
/// node, or a foreach group as one node); `why_no_fuse::none` means Inductor would
/// consider the pair fusable.
template <class Policy = inductor_policy>
constexpr why_no_fuse check_fusion(const graph& g, std::string_view node1, std::string_view node2,
                                   const fuse_config& cfg = {}, Policy policy = {}) {
  scheduler<Policy> s(g, cfg, std::move(policy));
  int a = s.node_named(node1), b = s.node_named(node2);
  if (a < 0) throw error("check_fusion: node1: no node or foreach group named " + std::string(node1));
  if (b < 0) throw error("check_fusion: node2: no node or foreach group named " + std::string(node2));
  s.start_round();
  why_no_fuse r = s.can_fuse(a, b);
  if (r == why_no_fuse::none && s.will_fusion_create_cycle(a, b)) r = why_no_fuse::cycle;
  return r;
}

}  // namespace fusedsl
