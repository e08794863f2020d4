/// @file program_plan.hpp
/// Scheduling a program: its plan, kernel count and explanation, available in
/// constant evaluation: `static_assert(fx::kernel_count(softmax) == 1);`
#pragma once
#include <string>  // std::string

#include <fusedsl/lower/lowering.hpp>       // graph_of
#include <fusedsl/schedule/explain.hpp>     // explain
#include <fusedsl/schedule/fuse_nodes.hpp>  // fuse_nodes, kernel_count

namespace fusedsl {

/// The fusion plan of `prog` (Inductor's rules; the same code at compile
/// time and at run time).
template <class... S>
constexpr plan plan_of(const program<S...>& prog, const fuse_config& cfg = {}) {
  return fuse_nodes(graph_of(prog), cfg);
}

/// How many kernels `prog` runs as.
template <class... S>
constexpr int kernel_count(const program<S...>& prog) {
  return kernel_count(graph_of(prog));
}

/// Every fusion decision of `prog`'s plan and its groups, as text.
template <class... S>
std::string explain(const program<S...>& prog) {
  return explain(plan_of(prog));
}

}  // namespace fusedsl
