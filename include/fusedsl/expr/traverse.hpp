/// @file traverse.hpp
/// Compile-time walks over expression types: post-order lists of
/// subexpression types (as `hana::type`s), leaf counts, and the
/// distinct nodes (reductions, scans, realized values) of an expression.
#pragma once
#include <algorithm>    // std::max
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <type_traits>  // std::conditional_t, std::is_same_v
#include <utility>      // std::index_sequence

#include <fusedsl/core/hana.hpp>        // hana: operands and type lists
#include <fusedsl/core/numerics.hpp>    // compute_t, kernel_numerics
#include <fusedsl/expr/expression.hpp>  // constant
#include <fusedsl/expr/gather.hpp>      // gathered_leaf
#include <fusedsl/expr/index.hpp>       // is_index_node
#include <fusedsl/expr/pointwise.hpp>   // pointwise
#include <fusedsl/expr/reduce.hpp>      // reduce
#include <fusedsl/expr/scan.hpp>        // scan

namespace fusedsl {

/// True for a pointwise node.
template <class E>
inline constexpr bool is_pointwise_node = is_kind<E, kind::pointwise>;
/// True for a reduction node.
template <class E>
inline constexpr bool is_reduction_node = is_kind<E, kind::reduction>;
/// True for a scan node.
template <class E>
inline constexpr bool is_scan_node = is_kind<E, kind::scan>;
/// True for `fx::realize(e)`: a pointwise value that becomes a node of its own.
template <class E>
inline constexpr bool is_realize_node = false;
template <class A>
inline constexpr bool is_realize_node<pointwise<ops::realize, A>> = true;
/// Nodes of their own: reductions, scans and realized values. A loop reads
/// them as buffers; everything else pointwise is inlined into the loop.
template <class E>
inline constexpr bool makes_node = is_reduction_node<E> || is_scan_node<E> || is_realize_node<E>;

/// The element type a node's value (a reduction or realized value) is kept
/// in between the loops of a kernel or a plan: the type the kernels compute
/// it in, so f16 and bf16 values stay in float (as Inductor keeps them) and
/// round once, where the program stores them.
template <class E>
using node_storage_t = compute_t<kernel_numerics, E::value_dtype>;

/// The element type a loop reads leaf `E` as: a node's storage type, or
/// the leaf's own element type.
template <class E>
using leaf_storage_t = std::conditional_t<makes_node<E>, node_storage_t<E>, element_t<E::value_dtype>>;
/// Pointwise nodes computed inline by the loop that reads them.
template <class E>
inline constexpr bool is_inlined = is_pointwise_node<E> && !is_realize_node<E>;
/// True for a literal constant.
template <class E>
inline constexpr bool is_constant_node = false;
template <class T>
inline constexpr bool is_constant_node<constant<T>> = true;

namespace detail {
template <class E>
struct children {
  static constexpr auto value = hana::make_tuple();
};
template <class Op, class... Args>
struct children<pointwise<Op, Args...>> {
  static constexpr auto value = hana::tuple_t<Args...>;
};
template <class Op, class Ax, bool K, class Arg>
struct children<reduce<Op, Ax, K, Arg>> {
  static constexpr auto value = hana::tuple_t<Arg>;
};
template <class Op, int A, class Arg>
struct children<scan<Op, A, Arg>> {
  static constexpr auto value = hana::tuple_t<Arg>;
};
}  // namespace detail

namespace detail {
/// A list of types, for what is cheaper done on types than with hana's
/// algorithms (each of which instantiates several templates per call).
template <class... T>
struct type_list {};

/// The concatenation of type lists.
template <class... Lists>
struct concat {
  using type = type_list<>;
};
template <class... A>
struct concat<type_list<A...>> {
  using type = type_list<A...>;
};
template <class... A, class... B, class... Rest>
struct concat<type_list<A...>, type_list<B...>, Rest...> : concat<type_list<A..., B...>, Rest...> {};

/// The subexpressions of `E` in post-order, as a type list.
template <class E>
struct post_order {
  using type = type_list<E>;
};
template <class Op, class... Args>
struct post_order<pointwise<Op, Args...>>
    : concat<typename post_order<Args>::type..., type_list<pointwise<Op, Args...>>> {};
template <class Op, class Ax, bool K, class Arg>
struct post_order<reduce<Op, Ax, K, Arg>> : concat<typename post_order<Arg>::type, type_list<reduce<Op, Ax, K, Arg>>> {
};
template <class Op, int A, class Arg>
struct post_order<scan<Op, A, Arg>> : concat<typename post_order<Arg>::type, type_list<scan<Op, A, Arg>>> {};
/// A gathered leaf after its placeholder: the program binds the placeholder
/// by name, the lowering reads it (a leaf slot all the same).
template <class X, int Axis, bool Keep>
struct post_order<gathered_leaf<X, Axis, Keep>>
    : concat<typename post_order<X>::type, type_list<gathered_leaf<X, Axis, Keep>>> {};

template <class... T>
constexpr auto as_type_tuple(type_list<T...>) {
  return hana::tuple_t<T...>;
}
}  // namespace detail

/// The inlined subexpressions a loop over `E` computes, post-order (not
/// those inside nodes of their own, which it reads as buffers).
template <class E>
struct computed_subexpressions {
  using type = detail::type_list<>;
};
template <class Op, class... Args>
requires is_inlined<pointwise<Op, Args...>>
struct computed_subexpressions<pointwise<Op, Args...>>
    : detail::concat<typename computed_subexpressions<Args>::type..., detail::type_list<pointwise<Op, Args...>>> {
};

/// True when the type list holds `A`.
template <class A, class... T>
constexpr bool lists(detail::type_list<T...>) {
  return (std::is_same_v<A, T> || ...);
}

/// The number of types in a type list.
template <class... T>
constexpr int list_length(detail::type_list<T...>) {
  return static_cast<int>(sizeof...(T));
}

/// Every subexpression type of `E` in post-order (operands before their
/// node), repeats included.
template <class E>
constexpr auto subexpressions() {
  return detail::as_type_tuple(typename detail::post_order<E>::type{});
}

namespace detail {
/// Position of the first `Ts` that is `T`. Types are compared with the
/// compiler's `__is_same`: no class template is instantiated per pair
/// (quadratic `is_same` instantiations cost front ends, nvcc's above all,
/// dearly for programs of many statements), and no addresses are compared
/// (g++ with UBSan's null-pointer checks cannot fold comparisons of the
/// addresses of inline variables).
template <class T, class... Ts>
constexpr std::size_t first_index_of() {
  constexpr bool same[] = {__is_same(T, Ts)..., true};
  std::size_t i = 0;
  while (!same[i]) ++i;
  return i;
}

/// Which of `Ts` are first occurrences of their type.
template <class... Ts>
struct first_occurrences {
  static constexpr std::array<bool, sizeof...(Ts)> kept = []<std::size_t... I>(std::index_sequence<I...>) {
    return std::array<bool, sizeof...(Ts)>{(first_index_of<Ts, Ts...>() == I)...};
  }
  (std::index_sequence_for<Ts...>{});
};

/// The types `Ts` whose flag in `Flags::kept` is true, as a type list.
template <class Flags, class Positions, class... Ts>
struct select_list;
template <class Flags, std::size_t... I, class... Ts>
struct select_list<Flags, std::index_sequence<I...>, Ts...>
    : concat<std::conditional_t<Flags::kept[I], type_list<Ts>, type_list<>>...> {};

/// Type list `List` without repeated types, keeping first occurrences.
template <class List>
struct unique_list;
template <class... Ts>
struct unique_list<type_list<Ts...>> : select_list<first_occurrences<Ts...>, std::index_sequence_for<Ts...>, Ts...> {};

/// The types of type list `List` that satisfy `Pred` (a `std::bool_constant` per type).
template <template <class> class Pred, class List>
struct filter_list;
template <template <class> class Pred, class... Ts>
struct filter_list<Pred, type_list<Ts...>>
    : concat<std::conditional_t<Pred<Ts>::value, type_list<Ts>, type_list<>>...> {};

/// `makes_node` as a type, for filter_list.
template <class E>
struct makes_node_pred : std::bool_constant<makes_node<E>> {};
}  // namespace detail

/// `list` (a tuple of `hana::type`s) with repeated types removed, keeping
/// first occurrences.
template <class... Types>
constexpr auto unique_types(const hana::tuple<Types...>&) {
  return detail::as_type_tuple(typename detail::unique_list<detail::type_list<typename Types::type...>>::type{});
}

/// Position of the first `hana::type` of `E` in `list`; the list's length
/// when it holds none (callers look types up in lists built from them).
template <class E, class... Types>
constexpr std::size_t type_index(const hana::tuple<Types...>&) {
  return detail::first_index_of<E, typename Types::type...>();
}

/// The distinct node-making subexpressions of `E` (reductions and realized
/// values), inner ones first: each is one node and one buffer (a
/// subexpression used twice is one node).
template <class E>
constexpr auto distinct_nodes() {
  return detail::as_type_tuple(
      typename detail::unique_list<
          typename detail::filter_list<detail::makes_node_pred, typename detail::post_order<E>::type>::type>::type{});
}

/// Number of leaf slots a loop over `E` reads: every node that is neither
/// inlined nor a constant (placeholders, params, tensors, and the nodes
/// below it, which a loop reads as buffers) counts once per occurrence.
template <class E>
constexpr std::size_t leaf_slots() {
  if constexpr (is_inlined<E>)
    return hana::unpack(detail::children<E>::value,
                        [](auto... c) { return (std::size_t{0} + ... + leaf_slots<typename decltype(c)::type>()); });
  else if constexpr (is_constant_node<E>) return 0;
  else return 1;
}

/// The leaf types of a loop over `E`, in slot order (as `hana::type`s).
template <class E>
constexpr auto leaf_types() {
  if constexpr (is_inlined<E>)
    return hana::unpack(detail::children<E>::value, [](auto... c) {
      return hana::flatten(hana::make_tuple(hana::make_tuple(), leaf_types<typename decltype(c)::type>()...));
    });
  else if constexpr (is_constant_node<E>) return hana::make_tuple();
  else return hana::make_tuple(hana::type_c<E>);
}
/// The leaf type at slot `Slot` of a loop over `E`.
template <class E, std::size_t Slot>
using leaf_at = typename decltype(+hana::at_c<Slot>(leaf_types<E>()))::type;

/// True when a loop over `E` gathers (one of its leaf slots is a gathered leaf).
template <class E>
inline constexpr bool loop_gathers = hana::any_of(leaf_types<E>(), [](auto t) {
  return hana::bool_c<is_gathered_leaf<typename decltype(t)::type>>;
});

/// The largest rank of the index leaves a loop over `E` computes (0 without
/// any): the rank its space needs. Index leaves under a node of their own
/// are not counted: their space is that node's operand.
template <class E>
constexpr int index_rank() {
  if constexpr (is_index_node<E>) return E::rank;
  else if constexpr (is_inlined<E>)
    return hana::unpack(detail::children<E>::value, [](auto... c) {
      int rank = 0;
      ((rank = std::max(rank, index_rank<typename decltype(c)::type>())), ...);
      return rank;
    });
  else return 0;
}

/// True when a loop over `E` or a node below it gathers from placeholder `X`.
template <class X, class E>
constexpr bool gathers_from() {
  if constexpr (is_gathered_leaf<E>) return std::is_same_v<typename E::source_type, X>;
  else
    return hana::unpack(detail::children<E>::value,
                        [](auto... c) { return (false || ... || gathers_from<X, typename decltype(c)::type>()); });
}

/// Calls `f(node)` for every occurrence of node type `N` in `e`, in post-order.
template <class N, class E, class F>
constexpr void for_each_occurrence(const E& e, F&& f) {
  if constexpr (is_pointwise_node<E>) hana::for_each(e.args, [&](const auto& a) { for_each_occurrence<N>(a, f); });
  else if constexpr (is_reduction_node<E> || is_scan_node<E>) for_each_occurrence<N>(e.arg, f);
  if constexpr (std::is_same_v<E, N>) f(e);
}

/// True when `a` and `b` (one expression type) compute the same values: equal
/// constants, reduction options and tensor views. A named function because
/// `==` on expressions builds the pointwise comparison.
template <class E>
constexpr bool same_value(const E& a, const E& b) {
  if constexpr (is_pointwise_node<E>) return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (same_value(hana::at_c<I>(a.args), hana::at_c<I>(b.args)) && ...);
    }
  (std::make_index_sequence<hana::length(decltype(a.args){})>{});
  else if constexpr (is_reduction_node<E> || is_scan_node<E>) return a.op == b.op && same_value(a.arg, b.arg);
  else if constexpr (is_constant_node<E>) return a.value == b.value;
  else if constexpr (requires { a.view; })  // a tensor leaf: the same memory, sizes and strides
          return a.view.data() == b.view.data() &&
      a.view.sizes() == b.view.sizes() && a.view.strides() == b.view.strides();
  else return true;  // placeholders and params: the type names them
}

/// The first occurrence of node type `N` in `e` (which must contain one).
template <class N, class E>
constexpr const N& first_occurrence(const E& e) {
  const N* found = nullptr;
  for_each_occurrence<N>(e, [&](const N& n) {
    if (!found) found = &n;
  });
  return *found;
}

}  // namespace fusedsl
