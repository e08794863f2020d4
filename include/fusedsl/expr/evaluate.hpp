/// @file evaluate.hpp
/// One element of a pointwise expression tree, computed from its leaves.
/// Loops hand in a reader that knows where leaf slot `k` (see
/// `leaf_slots`) is at the current element: `reader.template load<k, T>()`
/// returns that leaf's stored element of type T. A gathered leaf's slot is
/// read with `reader.template gather<k, T>(i)`, its element at index `i` of
/// the gathered axis, once `i` is checked against
/// `reader.template gathered_size<k>()`. Every op computes in the compute
/// types of numerics policy `N`.
#pragma once
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::enable_if_t, std::false_type, std::remove_cvref_t
#include <utility>      // std::index_sequence

#include <fusedsl/core/config.hpp>    // FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/hana.hpp>      // hana::at_c, hana::take_front_c
#include <fusedsl/core/numerics.hpp>  // compute_t, element_t
#include <fusedsl/expr/gather.hpp>    // is_gather_node, detail::gather_index_valid
#include <fusedsl/expr/traverse.hpp>  // leaf_slots, is_inlined

namespace fusedsl {

namespace detail {
/// The first leaf slot of operand `I` of pointwise node `E` whose first slot is `First`.
template <class E, std::size_t First, std::size_t I>
constexpr std::size_t operand_first_slot() {
  std::size_t slot = First;
  hana::for_each(hana::take_front_c<I>(children<E>::value),
                 [&](auto t) { slot += leaf_slots<typename decltype(t)::type>(); });
  return slot;
}
/// True when `Reader` keeps the value of subexpression `E` whose leaf
/// slots start at `First` (a loop that computed it once for many elements):
/// evaluate then takes `reader.template held<E, First>(e)` instead.
template <class Reader, class E, std::size_t First, class = void>
struct reader_holds : std::false_type {};
template <class Reader, class E, std::size_t First>
struct reader_holds<Reader, E, First, std::enable_if_t<Reader::template holds<E, First>>> : std::true_type {};
}  // namespace detail

template <class N, std::size_t First, class E, class Reader>
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE compute_t<N, E::value_dtype> evaluate(const E& e, const Reader& reader);

namespace detail {
/// Pointwise node `e` applied to its operands' values (`evaluate`'s step).
/// A function, not a lambda in `evaluate`: a lambda is not always inlined,
/// and a large expression (Black-Scholes' prices) would call it per node and
/// element, so that its loop would not vectorize.
template <class N, std::size_t First, class E, class Reader, std::size_t... I>
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE compute_t<N, E::value_dtype> apply_node(const E& e, const Reader& reader,
                                                                                std::index_sequence<I...>) {
  // Integer results wrap to their dtype at every op, as in torch, also where the
  // computation is wider (the oracle's int64): a shift or a maximum of an overflowed
  // value then sees what the kernels see.
  using result = compute_t<N, E::value_dtype>;
  using stored = std::conditional_t<std::is_integral_v<element_t<E::value_dtype>>, element_t<E::value_dtype>, result>;
  return static_cast<result>(static_cast<stored>(E::op::apply(static_cast<compute_t<N, E::template operand_dtype<I>>>(
      evaluate<N, operand_first_slot<E, First, I>()>(hana::at_c<I>(e.args), reader))...)));
}
}  // namespace detail

/// The value of `e` at the element `reader` stands on; leaf slots are
/// numbered from `First` in pre-order.
template <class N, std::size_t First, class E, class Reader>
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE compute_t<N, E::value_dtype> evaluate(const E& e, const Reader& reader) {
  using result = compute_t<N, E::value_dtype>;
  if constexpr (is_constant_node<E>) {
    return static_cast<result>(e.value);
  } else if constexpr (detail::reader_holds<Reader, E, First>::value) {
    return static_cast<result>(reader.template held<E, First>(e));
  } else if constexpr (is_gather_node<E>) {
    // The gathered leaf is slot First, the indices' leaves follow it. An index out
    // of range reads nothing: the run reports it (a value of 0 meanwhile).
    using source = std::remove_cvref_t<decltype(hana::at_c<0>(e.args))>;
    const auto i = static_cast<std::int64_t>(evaluate<N, First + 1>(hana::at_c<1>(e.args), reader));
    if (!detail::gather_index_valid<typename E::op>(i, reader.template gathered_size<First>())) return result{};
    return static_cast<result>(reader.template gather<First, leaf_storage_t<source>>(i));
  } else if constexpr (is_inlined<E>) {
    return detail::apply_node<N, First>(e, reader, std::make_index_sequence<E::op::arity>{});
  } else {
    return static_cast<result>(reader.template load<First, leaf_storage_t<E>>());
  }
}

}  // namespace fusedsl
