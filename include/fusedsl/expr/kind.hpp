/// @file kind.hpp
/// Compile-time node kinds (Inductor's node classes) carried by every expression type.
#pragma once
#include <type_traits>  // std::is_same_v

namespace fusedsl {

/// Kind tags. Every expression type `E` names one as `E::kind`.
namespace kind {
/// Elementwise computation over broadcast operands.
struct pointwise {};
/// A reduction over one or more axes.
struct reduction {};
/// A scan (cumulative op) along one axis: reduction-like in the graph (its
/// node iterates over the axis as a reduction does), but its value keeps
/// every element.
struct scan {};
/// A value that comes from outside the computation: a bound tensor, a parameter, a literal.
struct input {};
/// Work that fusedsl does not generate (a library call); never fused.
struct extern_call {};
/// Work that moves no data (a view or an alias); never a kernel of its own.
struct nop {};
}  // namespace kind

/// The kind tag of expression type `E`.
template <class E>
using kind_of = typename E::kind;

/// True when `E` is of kind `K`.
template <class E, class K>
inline constexpr bool is_kind = std::is_same_v<kind_of<E>, K>;

}  // namespace fusedsl
