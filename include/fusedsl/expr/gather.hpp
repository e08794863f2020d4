/// @file gather.hpp
/// Gathers: `fx::take_along_axis(x, idx, fx::axis<A>)` and
/// `fx::index_select(x, idx, fx::axis<A>)` (an embedding lookup), read
/// through indices computed in the same loop (Inductor's indirect indexing).
/// A gather is a pointwise node of two operands: `x` wrapped as a gathered
/// leaf (x's memory read at a position along A that the element's index
/// gives) and the indices, any integer expression computed inline.
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/core/config.hpp>      // FUSEDSL_HOST_DEVICE
#include <fusedsl/core/fault.hpp>       // detail::report_index_fault
#include <fusedsl/core/shape.hpp>       // shape
#include <fusedsl/expr/expression.hpp>  // expression, operand, as_expr
#include <fusedsl/expr/index.hpp>       // is_index_node
#include <fusedsl/expr/pointwise.hpp>   // pointwise
#include <fusedsl/expr/reduce.hpp>      // axes_t, drop_axes_t

namespace fusedsl {

/// Placeholder `X` read by a gather along its axis `Axis` (in [0, rank)): a
/// leaf whose own axes are x's with the gathered one of size 1 (`Keep`) or
/// removed (`fx::drop_axes`), so that it broadcasts against the indices; the
/// loops read it at the element's position on its own axes and at the
/// element's index along the gathered axis.
template <expression X, int Axis, bool Keep>
struct gathered_leaf {
  using kind = fusedsl::kind::input;
  using source_type = X;
  static constexpr int axis = Axis;
  static constexpr dtype value_dtype = X::value_dtype;
  static constexpr int rank = Keep ? X::rank : X::rank - 1;
  static constexpr bool is_scalar = false;
  X x;

  /// x's sizes or strides (`s`) as the leaf's own: the gathered axis
  /// replaced by `kept` (Keep) or removed.
  static constexpr shape own(const shape& s, std::int64_t kept) {
    shape result;
    for (int d = 0; d < s.rank(); ++d)
      if (d != Axis) result.push_back(s[d]);
      else if (Keep) result.push_back(kept);
    return result;
  }
  /// The leaf's own axis that x's axis `d` (not the gathered one) is.
  static constexpr int own_axis(int d) { return Keep || d < Axis ? d : d - 1; }
};

namespace ops {
/// A gather along axis `Axis` (normalized) of its first operand, a
/// gathered_leaf, at the indices of its second operand: as torch's
/// take_along_dim, or (`Select`) as index_select, whose one-dimensional
/// indices stand along the axis. The result has x's dtype; the indices are
/// read as i64. Kernels evaluate it through their readers (expr/evaluate.hpp),
/// not through an `apply`.
template <int Axis, bool Select>
struct gather {
  static constexpr const char* name = Select ? "index_select" : "take_along_axis";
  static constexpr const char* symbol = nullptr;
  static constexpr int arity = 2;
  static constexpr int axis = Axis;
  static constexpr bool select = Select;
  static constexpr dtype result_dtype(const operand_info (&o)[2]) { return o[0].type; }
  static constexpr dtype operand_dtype(const operand_info (&o)[2], std::size_t i) {
    return i == 0 ? o[0].type : dtype::i64;
  }
};
}  // namespace ops

/// True for gathered leaves.
template <class E>
inline constexpr bool is_gathered_leaf = false;
template <class X, int Axis, bool Keep>
inline constexpr bool is_gathered_leaf<gathered_leaf<X, Axis, Keep>> = true;

/// True for leaves whose slot a loop computes from the element's position
/// instead of loading it: index leaves (their values are their offsets) and
/// gathered leaves (the offsets where their elements start along the
/// gathered axis).
template <class L>
inline constexpr bool is_computed_leaf = is_index_node<L> || is_gathered_leaf<L>;

/// True for gather nodes.
template <class E>
inline constexpr bool is_gather_node = false;
template <int Axis, bool Select, class X, class I>
inline constexpr bool is_gather_node<pointwise<ops::gather<Axis, Select>, X, I>> = true;

/// The innermost axes of the space that the indices of gather node `E` do
/// not have: index_select's indices stand along its axis, so they are read
/// as if they had size-1 axes after it; 0 for every other node.
template <class E>
inline constexpr int index_trailing_axes = 0;
template <int Axis, class X, class I>
inline constexpr int index_trailing_axes<pointwise<ops::gather<Axis, true>, X, I>> = X::rank - 1 - Axis;

/// `space` without its `trailing` innermost axes: the space that
/// index_select's indices are computed over (they stand along its axis).
constexpr shape leading_axes(const shape& space, int trailing) {
  shape result;
  for (int d = 0; d + trailing < space.rank(); ++d) result.push_back(space[d]);
  return result;
}

namespace detail {
/// Checks a gather's operands and builds the node.
template <bool Select, bool Keep, int Axis, class XE, class IE>
constexpr auto make_gather(const XE& x, const IE& idx) {
  static_assert(is_kind<XE, kind::input> && !XE::is_scalar && !is_index_node<XE> && XE::rank != dynamic_rank,
                "fusedsl: fx::take_along_axis and fx::index_select read x from memory: x must be a placeholder "
                "(fx::in, fx::inout, or an fx::local assigned before), not a computed value, a scalar or a tensor "
                "of a dynamic rank: assign a computed value to an fx::local first");
  static_assert(Axis >= -XE::rank && Axis < XE::rank,
                "fusedsl: the axis of fx::take_along_axis or fx::index_select is out of range of x: use an axis in "
                "[-rank, rank) of x");
  static_assert(is_integral(IE::value_dtype),
                "fusedsl: the indices of fx::take_along_axis and fx::index_select must be integers (i64, i32, i16, "
                "i8, u8), not floating point or bool: convert them with fx::cast<std::int64_t>");
  static_assert(Select || IE::rank == (Keep ? XE::rank : XE::rank - 1),
                "fusedsl: fx::take_along_axis needs indices of the rank of x (as torch.take_along_dim), or one less "
                "with fx::drop_axes (the other axes broadcast)");
  static_assert(!Select || IE::rank == 1, "fusedsl: fx::index_select needs one-dimensional indices");
  constexpr int axis = Axis < 0 ? Axis + XE::rank : Axis;
  using leaf = gathered_leaf<XE, axis, Keep>;
  return pointwise<ops::gather<axis, Select>, leaf, IE>{{leaf{x}, idx}};
}
}  // namespace detail

/// `x` read along axis `A` at `idx`, as torch.take_along_dim(x, idx, A):
/// out[..., j, ...] = x[..., idx[..., j, ...], ...]. `idx` is an integer
/// expression of x's rank; the other axes broadcast. The result has x's dtype.
/// An index outside [0, size of x along A) is an error of the run.
template <operand X, operand I, int A>
constexpr auto take_along_axis(const X& x, const I& idx, axes_t<A>) {
  return detail::make_gather<false, true, A>(as_expr(x), as_expr(idx));
}

/// take_along_axis with one index per line along A and the axis dropped:
/// out[..., ...] = x[..., idx[..., ...], ...], `idx` of x's rank less one (as
/// `x[arange(n), idx]`: the picked logits of a cross-entropy).
template <operand X, operand I, int A>
constexpr auto take_along_axis(const X& x, const I& idx, axes_t<A>, drop_axes_t) {
  return detail::make_gather<false, false, A>(as_expr(x), as_expr(idx));
}

/// The slices of `x` along axis `A` at the one-dimensional indices `idx`, as
/// torch.index_select(x, A, idx) (an embedding lookup along axis 0): x's
/// shape with axis A's size replaced by idx's. The result has x's dtype. An
/// index outside [0, size of x along A) is an error of the run.
template <operand X, operand I, int A>
constexpr auto index_select(const X& x, const I& idx, axes_t<A>) {
  return detail::make_gather<true, true, A>(as_expr(x), as_expr(idx));
}

namespace detail {
/// True when gather `Op` may read index `i` of an axis of `size` elements;
/// else reports the fault (the loops then give 0 without reading memory).
template <class Op>
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE bool gather_index_valid(std::int64_t i, std::int64_t size) {
  if (i >= 0 && i < size) return true;
  report_index_fault(Op::name, Op::axis, i, size);
  return false;
}
}  // namespace detail

}  // namespace fusedsl
