/// @file describe_nodes.hpp
/// What every backend does on the host before it launches a group: each
/// node of the group described for this call (its iteration space, where
/// its output goes, where each of its leaves is read), from the program's
/// bound tensors and the homes of the buffers between nodes. Backend
/// neutral: a backend decides the homes (memory or a scratch slot of its
/// kernel) and runs the loops.
#pragma once
#include <cstddef>      // std::size_t
#include <type_traits>  // std::remove_cvref_t
#include <vector>       // std::vector

#include <fusedsl/core/hana.hpp>                         // hana::at_c, hana::unpack
#include <fusedsl/expr/evaluate.hpp>                     // detail::operand_first_slot
#include <fusedsl/expr/traverse.hpp>                     // type_index, distinct_nodes
#include <fusedsl/program/detail/bound_leaves.hpp>       // bound_leaves, describe_leaf
#include <fusedsl/plan/group_schedule.hpp>               // group_schedule
#include <fusedsl/runtime/nodes.hpp>                     // node_runtime, address, node_expression
#include <fusedsl/program/detail/run_statement.hpp>      // fit_rank
#include <fusedsl/program/detail/statement_context.hpp>  // shape_context

namespace fusedsl::detail {

/// A buffer of the call for one node's output: memory or a scratch slot.
struct buffer_home {
  void* data = nullptr;
  int scratch = -1;
  std::int64_t per_outer = 0;
  shape sizes, strides;  ///< the buffer's shape and (memory or tile-relative) strides
};

/// What one call knows about its nodes while it runs.
template <class P>
struct call_state {
  const P& prog;
  bound_leaves<P>& leaves;
  const group_schedule& plan;
  std::vector<node_runtime> nodes;  ///< per lowered node
  std::vector<buffer_home> homes;   ///< per lowered node, decided by the backend

  /// Position of node (s, k) in the lowering.
  int position(int s, int k) const {
    for (std::size_t i = 0; i < plan.statement.size(); ++i)
      if (plan.statement[i] == s && plan.distinct[i] == k && (k >= 0 || plan.writes_target[i]))
        return static_cast<int>(i);
    for (std::size_t i = 0; i < plan.statement.size(); ++i)  // the value node of s is its target writer
      if (plan.statement[i] == s && plan.writes_target[i]) return static_cast<int>(i);
    return -1;
  }
};

/// The expression a node's loop evaluates: a statement's whole value
/// (K < 0), or a distinct node's operand.
template <int K, class N>
constexpr const auto& loop_expression_of(const N& node) {
  if constexpr (K < 0) return node;
  else return loop_expression(node);
}

/// False for reductions that drop their reduced axes.
template <class N>
inline constexpr bool keeps_reduced_axes = true;
template <class Op, class Axes, bool Keep, class Arg>
inline constexpr bool keeps_reduced_axes<reduce<Op, Axes, Keep, Arg>> = Keep;

/// Fills `n` for node (S, K): its space, its output's home, its leaves.
template <std::size_t S, int K, class P>
void describe(call_state<P>& call, node_runtime& n) {
  const auto& node = node_expression<S, K>(call.prog);
  using N = std::remove_cvref_t<decltype(node)>;
  using Target = typename std::remove_cvref_t<decltype(hana::at_c<S>(call.prog.statements))>::target_type;
  const shape_context<P> shapes{call.leaves};
  const auto& target = call.leaves.template slot<Target>().view;
  // A statement's own node (K < 0) is pointwise over the target, its value
  // inlined (or, when the value is a node of its own, read from that node).
  const auto& expr = loop_expression_of<K>(node);
  n.statement = S;
  n.distinct = K;
  n.reduction = K >= 0 && (is_reduction_node<N> || is_scan_node<N>);
  n.scan = K >= 0 && is_scan_node<N>;
  if constexpr (K >= 0 && (is_reduction_node<N> || is_scan_node<N>)) {
    n.space = shapes.shape_of(node.arg);
    n.reduced_mask = reduced_axes_mask<N>(n.space.rank());
    if constexpr (is_scan_node<N>) n.out_sizes = n.space;
    else n.out_sizes = reduced_shape<N>(n.space);
    n.outer = 1, n.inner = 1;
    for (int d = 0; d < n.space.rank(); ++d) (n.reduced_mask & (1u << d) ? n.inner : n.outer) *= n.space[d];
  } else {
    n.space = K < 0 ? target.sizes() : shapes.shape_of(expr);
    n.reduced_mask = 0;
    n.out_sizes = n.space;
    n.outer = n.space.numel();
    n.inner = 1;
  }
  // The output over the space: the buffer's strides, 0 on reduced axes
  // (none for a scan, whose output has every element of its space).
  const buffer_home& home = call.homes[static_cast<std::size_t>(call.position(S, K))];
  const unsigned collapsed = n.scan ? 0u : n.reduced_mask;
  shape keep = n.space;
  for (int d = 0; d < keep.rank(); ++d)
    if (collapsed & (1u << d)) keep[d] = 1;
  if (n.writes_target) {
    if (fit_rank(n.out_sizes, target.rank()) != target.sizes())
      throw error("fusedsl: the statement writing " + describe_leaf<Target>() + " computes a reduction of shape " +
                  to_string(n.out_sizes) + " but the target has shape " + to_string(target.sizes()) +
                  ": a reduction can only be assigned to a target of its own shape (reduce into an fx::local first)");
    // The target's strides over the value's axes, then over the space (a
    // reduction's dropped axes are not in its value).
    const shape value_strides = broadcast_strides(target.sizes(), target.strides(), n.out_sizes);
    constexpr bool keeps_axes = K < 0 || keeps_reduced_axes<N>;
    n.out.strides = shape{};
    for (int d = 0, v = 0; d < n.space.rank(); ++d) {
      const bool reduced = collapsed & (1u << d);
      n.out.strides.push_back(reduced ? 0 : value_strides[v]);
      if (!reduced || keeps_axes) ++v;
    }
    n.out.data = static_cast<void*>(target.data());
  } else {
    n.out = {home.data, home.scratch, broadcast_strides(keep, contiguous_strides(keep), n.space), home.per_outer};
  }
  // The leaves, in evaluate's slot order.
  n.leaves.assign(leaf_slots<std::remove_cvref_t<decltype(expr)>>(), address{});
  collect<S, 0>(call, expr, n);
}

/// The address of leaf `e` over `n.space` into `n.leaves[First]`, and the
/// leaves below it for inlined nodes. `trailing`: innermost axes of the
/// space that `e` lacks (it is inside index_select's indices, which stand
/// along the select's axis): its leaves read 0 strides along them.
template <std::size_t S, std::size_t First, class P, class E>
void collect(call_state<P>& call, const E& e, node_runtime& n, int trailing = 0) {
  if constexpr (is_inlined<E>) {
    hana::unpack(hana::make_range(hana::size_c<0>, hana::size_c<E::op::arity>), [&](auto... i) {
      (collect<S, operand_first_slot<E, First, decltype(i)::value>()>(
           call, hana::at(e.args, i), n, trailing + (decltype(i)::value == 1 ? index_trailing_axes<E> : 0)),
       ...);
    });
  } else if constexpr (!is_constant_node<E>) {
    address& a = n.leaves[First];
    const shape space = leading_axes(n.space, trailing);
    if constexpr (makes_node<E>) {
      using V = std::remove_cvref_t<decltype(hana::at_c<S>(call.prog.statements).value)>;
      constexpr int k = static_cast<int>(type_index<E>(distinct_nodes<V>()));
      const buffer_home& home = call.homes[static_cast<std::size_t>(call.position(S, k))];
      a = {home.data, home.scratch, broadcast_strides(home.sizes, home.strides, space), home.per_outer};
    } else if constexpr (is_index_node<E>) {
      // No memory: the offset in a virtual tensor with index_strides (1 along
      // the axis, 0 elsewhere; row-major for the flat position) is the
      // position itself; the loops compute it as they compute offsets, and
      // merging axes keeps it. The space has the axis: prepare_statement
      // checks statements' targets, other spaces are operands' shapes, in
      // which the leaf's rank counts.
      a = {nullptr, -1, index_strides(E::axis, space), 0};
    } else if constexpr (is_gathered_leaf<E>) {
      // x's offset at the element with the gathered axis at 0; the index adds
      // its position (a base offset like any operand's: merging axes keeps it).
      const auto& v = call.leaves.template slot<typename E::source_type>().view;
      a = {const_cast<void*>(static_cast<const void*>(v.data())),
           -1,
           broadcast_strides(E::own(v.sizes(), 1), E::own(v.strides(), 0), space),
           0,
           v.strides()[E::axis],
           v.sizes()[E::axis]};
    } else if constexpr (requires { e.view; }) {
      a = {const_cast<void*>(static_cast<const void*>(e.view.data())), -1,
           broadcast_strides(e.view.sizes(), e.view.strides(), space), 0};
    } else if constexpr (requires { E::role_of; }) {
      const auto& v = call.leaves.template slot<E>().view;
      a = {const_cast<void*>(static_cast<const void*>(v.data())), -1, broadcast_strides(v.sizes(), v.strides(), space),
           0};
    } else {  // a param: one value, stride 0 everywhere
      a = {static_cast<void*>(&call.leaves.template slot<E>().value), -1, shape{}, 0};
      for (int d = 0; d < space.rank(); ++d) a.strides.push_back(0);
    }
    a.strides = with_trailing_zeros(a.strides, trailing);
  }
}

/// Number of statements of program `P`.
template <class P>
inline constexpr std::size_t statement_count = decltype(hana::length(std::declval<P>().statements))::value;

/// Number of distinct nodes (reductions, realized values) of statement `S` of `P`.
template <class P, std::size_t S>
inline constexpr int distinct_count = decltype(hana::length(
    distinct_nodes<std::remove_cvref_t<decltype(hana::at_c<S>(std::declval<P>().statements).value)>>()))::value;

/// Bytes per element of node (S, K)'s value as a buffer between loops.
template <class P, std::size_t S, int K>
inline constexpr std::size_t node_element_size =
    sizeof(node_storage_t<std::remove_cvref_t<decltype(node_expression<S, K>(std::declval<const P&>()))>>);

/// `Entry::template make<S, K>()` for the node (s, k) of program `P` known
/// only at run time (K in [-1, distinct count of S)); `Entry{}` when `P` has
/// no such node. Backends keep their per-node entry points this way.
/// (Plain recursion, no generic lambdas: nvcc's front end compiles it too.)
template <class P, class Entry, std::size_t S = 0, int K = -1>
Entry find_node_entry(int s, int k) {
  if constexpr (S >= statement_count<P>) {
    return Entry{};
  } else if constexpr (K >= distinct_count<P, S>) {
    return find_node_entry<P, Entry, S + 1, -1>(s, k);
  } else {
    if (s == static_cast<int>(S) && k == K) return Entry::template make<S, K>();
    return s == static_cast<int>(S) ? find_node_entry<P, Entry, S, K + 1>(s, k)
                                    : find_node_entry<P, Entry, S + 1, -1>(s, k);
  }
}

/// The entry points of the nodes of group `g`, after a first describe of
/// each (their spaces and output shapes, which a backend needs to choose
/// the homes of their buffers; it describes them again once the homes are
/// known, for the leaf addresses).
template <class P, class Entry>
std::vector<Entry> describe_group_spaces(call_state<P>& call, const group_schedule::group& g) {
  std::vector<Entry> entries;
  for (int m : g.nodes) {
    const auto node = static_cast<std::size_t>(m);
    entries.push_back(find_node_entry<P, Entry>(call.plan.statement[node], call.plan.distinct[node]));
    node_runtime& n = call.nodes[node];
    n.writes_target = call.plan.writes_target[node];
    call.homes[node] = {};
    entries.back().describe(call, n);
  }
  return entries;
}

}  // namespace fusedsl::detail
