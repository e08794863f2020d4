/// @file evaluate.hpp
/// One element of a pointwise expression tree, computed from its leaves.
/// A loop over an expression hands in, for each leaf slot (see
/// `leaf_slots`), a data pointer and the current element offset; this
/// computes the value in the compute types of numerics policy `N`.
#pragma once
#include <fusedsl/core/hana.hpp>  // hana: operands and type lists
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <utility>  // std::index_sequence


#include <fusedsl/core/config.hpp>    // FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/numerics.hpp>  // compute_t
#include <fusedsl/expr/traverse.hpp>  // leaf_slots, is_pointwise_node

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
}  // namespace detail

/// The value of `e` at the element where leaf slot `k` (from `First`) is at
/// `data[k] + offsets[k]`. Leaves are read as their element type and
/// converted; each op computes in `N`'s type for its operand dtype.
template <class N, std::size_t First, class E>
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE compute_t<N, E::value_dtype> evaluate(const E& e, const void* const* data,
                                                                             const std::int64_t* offsets) {
  using result = compute_t<N, E::value_dtype>;
  if constexpr (is_constant_node<E>) {
    return static_cast<result>(e.value);
  } else if constexpr (is_pointwise_node<E>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return static_cast<result>(E::op::apply(static_cast<compute_t<N, E::template operand_dtype<I>>>(
          evaluate<N, detail::operand_first_slot<E, First, I>()>(hana::at_c<I>(e.args), data, offsets))...));
    }(std::make_index_sequence<E::op::arity>{});
  } else {
    using stored = element_t<E::value_dtype>;
    return static_cast<result>(static_cast<const stored*>(data[First])[offsets[First]]);
  }
}

}  // namespace fusedsl
