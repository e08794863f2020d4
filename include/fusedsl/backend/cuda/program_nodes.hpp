/// @file program_nodes.hpp
/// Every node a program can lower to, as the CUDA kernels see it: a
/// *device description* `D` of program `P` whose expression types name
/// placeholders by position instead of by name (nvcc 13 cannot spell a
/// kernel whose template arguments hold a placeholder's name, a class-type
/// template argument, in the host stub it generates). Node J is (statement
/// S, distinct node K), K = -1 for the statement's value; statement by
/// statement, distinct nodes first (inner ones first), then the value: the
/// order of the lowering. A kernel holds the code of every node and runs
/// the ones its group names at run time.
#pragma once
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <tuple>        // std::tuple, std::tuple_element_t
#include <type_traits>  // std::remove_cvref_t, std::is_same_v
#include <utility>      // std::index_sequence, std::integer_sequence

#include <fusedsl/core/config.hpp>             // FUSEDSL_HOST_DEVICE
#include <fusedsl/core/hana.hpp>               // hana::at_c
#include <fusedsl/expr/gather.hpp>             // gathered_leaf
#include <fusedsl/expr/tensor_leaf.hpp>        // tensor_leaf
#include <fusedsl/expr/traverse.hpp>           // leaf_slots, makes_node, distinct_nodes, type_index
#include <fusedsl/runtime/describe_nodes.hpp>  // statement_count, distinct_count, node_expression

namespace fusedsl::cuda_detail {

/// Most nodes a program may have on the CUDA backend (one bit each in a mask).
inline constexpr int max_nodes = 64;

/// Placeholder number `Index` of a program (element type `T`, role `A`).
template <int Index, class T, int Rank, role A>
struct device_placeholder {
  using kind = fusedsl::kind::input;
  using element_type = T;
  static constexpr int index = Index;
  static constexpr fusedsl::role role_of = A;
  static constexpr dtype value_dtype = dtype_of<T>;
  static constexpr int rank = Rank;
  static constexpr bool is_scalar = false;
  constexpr bool operator==(const device_placeholder&) const = default;
};
/// A param of a program (its value travels in the kernel's arguments).
template <class T>
struct device_param {
  using kind = fusedsl::kind::input;
  using element_type = T;
  static constexpr dtype value_dtype = dtype_of<T>;
  static constexpr int rank = 0;
  static constexpr bool is_scalar = true;
  constexpr bool operator==(const device_param&) const = default;
};

/// True for placeholders (named leaves with a role), false for params.
template <class L>
inline constexpr bool is_placeholder = requires {
  L::role_of;
};

/// Placeholders of `P` (named leaves read from memory), in order of first mention.
template <class P>
constexpr auto memory_leaves() {
  return hana::filter(P::named_leaves, [](auto t) { return hana::bool_c<is_placeholder<typename decltype(t)::type>>; });
}

/// The device form of expression `E` of program `P` and its conversion.
template <class P, class E>
struct to_device {
  using type = E;  // constants and tensors stay as they are
  static constexpr type make(const E& e) { return e; }
};
template <class P, class E>
requires is_placeholder<E>
struct to_device<P, E> {
  using type = device_placeholder<static_cast<int>(type_index<E>(memory_leaves<P>())), typename E::element_type,
                                  E::rank, E::role_of>;
  static constexpr type make(const E&) { return {}; }
};
template <class P, class E>
requires(detail::is_named_leaf<E> && !is_placeholder<E>) struct to_device<P, E> {
  using type = device_param<typename E::element_type>;
  static constexpr type make(const E&) { return {}; }
};
template <class P, class Op, class... Args>
struct to_device<P, pointwise<Op, Args...>> {
  using type = pointwise<Op, typename to_device<P, Args>::type...>;
  template <std::size_t... I>
  static constexpr type make(const pointwise<Op, Args...>& e, std::index_sequence<I...>) {
    return {{to_device<P, Args>::make(hana::at_c<I>(e.args))...}};
  }
  static constexpr type make(const pointwise<Op, Args...>& e) { return make(e, std::index_sequence_for<Args...>{}); }
};
template <class P, class X, int Axis, bool Keep>
struct to_device<P, gathered_leaf<X, Axis, Keep>> {
  using type = gathered_leaf<typename to_device<P, X>::type, Axis, Keep>;
  static constexpr type make(const gathered_leaf<X, Axis, Keep>& e) { return {to_device<P, X>::make(e.x)}; }
};
template <class P, class Op, class Axes, bool Keep, class Arg>
struct to_device<P, reduce<Op, Axes, Keep, Arg>> {
  using type = reduce<Op, Axes, Keep, typename to_device<P, Arg>::type>;
  static constexpr type make(const reduce<Op, Axes, Keep, Arg>& e) { return {e.op, to_device<P, Arg>::make(e.arg)}; }
};
template <class P, class Op, int Axis, class Arg>
struct to_device<P, scan<Op, Axis, Arg>> {
  using type = scan<Op, Axis, typename to_device<P, Arg>::type>;
  static constexpr type make(const scan<Op, Axis, Arg>& e) { return {e.op, to_device<P, Arg>::make(e.arg)}; }
};

/// Node (S, K) of a device description: its device expression object type
/// and the element type of its statement's target.
template <int S, int K, class Node, class TargetElement>
struct device_node {
  static constexpr int statement = S, distinct = K;
  using type = Node;
  using target_element = TargetElement;
};

/// A node of a program: statement and distinct node (-1: the value).
struct node_id {
  int statement = 0, distinct = -1;
};

/// The device description of a program: its nodes and the element types of
/// its placeholders.
template <class Nodes, class Placeholders>
struct device_program;
template <class... Nodes, class... Placeholders>
struct device_program<std::tuple<Nodes...>, std::tuple<Placeholders...>> {
  using nodes = std::tuple<Nodes...>;
  using placeholders = std::tuple<Placeholders...>;
  static constexpr int node_count = sizeof...(Nodes);
  static constexpr int placeholder_count = sizeof...(Placeholders);
  static constexpr std::array<node_id, sizeof...(Nodes)> table{node_id{Nodes::statement, Nodes::distinct}...};
};

template <class P, std::size_t... S>
constexpr std::array<node_id, (0 + ... + (detail::distinct_count<P, S> + 1))> make_node_ids(std::index_sequence<S...>) {
  std::array<node_id, (0 + ... + (detail::distinct_count<P, S> + 1))> table{};
  const int distinct[] = {detail::distinct_count<P, S>...};
  int j = 0;
  for (int s = 0; s < static_cast<int>(sizeof...(S)); ++s) {
    for (int k = 0; k < distinct[s]; ++k) table[static_cast<std::size_t>(j++)] = {s, k};
    table[static_cast<std::size_t>(j++)] = {s, -1};
  }
  return table;
}
/// The nodes of program `P` in lowering order (host side).
template <class P>
inline constexpr auto program_node_ids = make_node_ids<P>(std::make_index_sequence<detail::statement_count<P>>{});

/// The expression object type of node (S, K) of program `P`.
template <class P, std::size_t S, int K>
using program_node_t = std::remove_cvref_t<decltype(detail::node_expression<S, K>(std::declval<const P&>()))>;
template <class P, std::size_t S>
using program_target_element_t =
    typename std::remove_cvref_t<decltype(hana::at_c<S>(std::declval<P>().statements))>::target_type::element_type;

template <class P, std::size_t J>
using device_node_of =
    device_node<program_node_ids<P>[J].statement, program_node_ids<P>[J].distinct,
                typename to_device<P, program_node_t<P, static_cast<std::size_t>(program_node_ids<P>[J].statement),
                                                     program_node_ids<P>[J].distinct>>::type,
                program_target_element_t<P, static_cast<std::size_t>(program_node_ids<P>[J].statement)>>;
template <class P, std::size_t... J, std::size_t... I>
auto make_device_program(std::index_sequence<J...>, std::index_sequence<I...>)
    -> device_program<std::tuple<device_node_of<P, J>...>,
                      std::tuple<typename decltype(+hana::at_c<I>(memory_leaves<P>()))::type::element_type...>>;
/// A type rebuilt from its parts, so that no alias or member typedef that
/// mentions the program (and so a placeholder's name) is left in its
/// spelling: nvcc spells kernels' template arguments as they were written.
template <class T>
struct canonical {
  using type = T;  // ops, axes: plain types
};
template <class T>
using canonical_t = typename canonical<T>::type;
template <class T>
requires element<T>
struct canonical<T> {
  using type = element_t<dtype_of<T>>;  // element types, rebuilt from their dtype
};
template <class T>
struct canonical<constant<T>> {
  using type = constant<canonical_t<T>>;
};
template <class T>
struct canonical<tensor_leaf<T>> {
  using type = tensor_leaf<canonical_t<T>>;
};
template <int I, class T, int R, role A>
struct canonical<device_placeholder<I, T, R, A>> {
  using type = device_placeholder<I, canonical_t<T>, R, A>;
};
template <class T>
struct canonical<device_param<T>> {
  using type = device_param<canonical_t<T>>;
};
template <class Op, class... Args>
struct canonical<pointwise<Op, Args...>> {
  using type = pointwise<canonical_t<Op>, canonical_t<Args>...>;
};
template <class X, int Axis, bool Keep>
struct canonical<gathered_leaf<X, Axis, Keep>> {
  using type = gathered_leaf<canonical_t<X>, Axis, Keep>;
};
template <class Op, class Axes, bool Keep, class Arg>
struct canonical<reduce<Op, Axes, Keep, Arg>> {
  using type = reduce<canonical_t<Op>, canonical_t<Axes>, Keep, canonical_t<Arg>>;
};
template <class Op, int Axis, class Arg>
struct canonical<scan<Op, Axis, Arg>> {
  using type = scan<canonical_t<Op>, Axis, canonical_t<Arg>>;
};
template <int S, int K, class Node, class TargetElement>
struct canonical<device_node<S, K, Node, TargetElement>> {
  using type = device_node<S, K, canonical_t<Node>, canonical_t<TargetElement>>;
};
template <class... T>
struct canonical<std::tuple<T...>> {
  using type = std::tuple<canonical_t<T>...>;
};
template <class Nodes, class Placeholders>
struct canonical<device_program<Nodes, Placeholders>> {
  using type = device_program<canonical_t<Nodes>, canonical_t<Placeholders>>;
};

/// The device description of program `P`.
template <class P>
using device_program_of = canonical_t<
    decltype(make_device_program<P>(std::make_index_sequence<program_node_ids<P>.size()>{},
                                    std::make_index_sequence<decltype(hana::length(memory_leaves<P>()))::value>{}))>;

// ------------------------------------------------ queries on a description D

/// Number of nodes of description `D`.
template <class D>
inline constexpr int node_count = D::node_count;
/// Node J of `D`: statement and distinct node.
template <class D>
inline constexpr const auto& node_table = D::table;

/// Node J's distinct node (-1: its statement's value), as a plain constant
/// (device code may read it).
template <class D, int J>
inline constexpr int distinct_at = D::table[static_cast<std::size_t>(J)].distinct;

/// The index of node (s, k) in `node_table<D>`, or -1.
template <class D>
constexpr int node_index(int s, int k) {
  for (int j = 0; j < node_count<D>; ++j)
    if (node_table<D>[static_cast<std::size_t>(j)].statement == s &&
        node_table<D>[static_cast<std::size_t>(j)].distinct == k)
      return j;
  return -1;
}

/// The device expression object type of node J.
template <class D, int J>
using node_t = typename std::tuple_element_t<static_cast<std::size_t>(J), typename D::nodes>::type;

/// The loop expression of a node object of node J (K < 0: the value itself).
template <int K, class N>
FUSEDSL_HOST_DEVICE constexpr const auto& loop_of(const N& node) {
  if constexpr (K >= 0 && (is_reduction_node<N> || is_scan_node<N>)) return node.arg;
  else if constexpr (K >= 0 && is_realize_node<N>) return hana::at_c<0>(node.args);
  else return node;
}
/// The type of node J's loop expression.
template <class D, int J>
using loop_t = std::remove_cvref_t<decltype(loop_of<distinct_at<D, J>>(std::declval<const node_t<D, J>&>()))>;

/// True when node J is a reduction.
template <class D, int J>
inline constexpr bool is_reduction_at = distinct_at<D, J> >= 0 && is_reduction_node<node_t<D, J>>;
/// True when node J is a scan.
template <class D, int J>
inline constexpr bool is_scan_at = distinct_at<D, J> >= 0 && is_scan_node<node_t<D, J>>;

template <class D, int... J>
constexpr std::array<int, sizeof...(J) + 1> make_slot_bases(std::integer_sequence<int, J...>) {
  const int slots[] = {static_cast<int>(leaf_slots<loop_t<D, J>>())..., 0};
  std::array<int, sizeof...(J) + 1> bases{};
  for (std::size_t j = 0; j < sizeof...(J); ++j) bases[j + 1] = bases[j] + slots[j];
  return bases;
}
/// First leaf slot of node J in the list of all nodes' slots; the last
/// entry is the number of slots of all nodes.
template <class D>
inline constexpr std::array<int, node_count<D> + 1> slot_base =
    make_slot_bases<D>(std::make_integer_sequence<int, node_count<D>>{});

template <class D, int J, class L, int... I>
constexpr int find_producer(std::integer_sequence<int, I...>) {
  const bool match[] = {(node_table<D>[I].statement == node_table<D>[J].statement && node_table<D>[I].distinct >= 0 &&
                         std::is_same_v<node_t<D, I>, L>)...};
  for (int i = 0; i < static_cast<int>(sizeof...(I)); ++i)
    if (match[i]) return i;
  return -1;
}
/// The node that leaf `L` of node J reads (a distinct node of J's
/// statement), or -1 when `L` is no node.
template <class D, int J, class L>
constexpr int producer() {
  if constexpr (makes_node<L>) return find_producer<D, J, L>(std::make_integer_sequence<int, node_count<D>>{});
  else return -1;
}

/// Number of placeholders of `D`.
template <class D>
inline constexpr int memory_leaf_count = D::placeholder_count;
/// Index of placeholder leaf `L`, or -1 for other leaves.
template <class D, class L>
constexpr int memory_leaf_index() {
  if constexpr (is_placeholder<L>) return L::index;
  else return -1;
}
/// The element type of placeholder I of `D`.
template <class D, int I>
using memory_leaf_t = std::tuple_element_t<static_cast<std::size_t>(I), typename D::placeholders>;

/// The node objects of a program in device form, J and after: copied to the
/// device as one kernel parameter (constants and reduction options live in them).
template <class D, int J = 0, bool = (J < node_count<D>)>
struct node_objects {
  node_t<D, J> node;
  node_objects<D, J + 1> rest;
  template <class P>
  explicit node_objects(const P& prog)
      : node(to_device<
             P, program_node_t<P, static_cast<std::size_t>(node_table<D>[J].statement), node_table<D>[J].distinct>>::
                 make(detail::node_expression<static_cast<std::size_t>(node_table<D>[J].statement),
                                              node_table<D>[J].distinct>(prog))),
        rest(prog) {}
};
template <class D, int J>
struct node_objects<D, J, false> {
  template <class P>
  explicit node_objects(const P&) {}
};

/// Node I's object.
template <int I, class D, int J>
FUSEDSL_HOST_DEVICE constexpr const node_t<D, I>& get(const node_objects<D, J>& o) {
  if constexpr (I == J) return o.node;
  else return get<I>(o.rest);
}

}  // namespace fusedsl::cuda_detail
