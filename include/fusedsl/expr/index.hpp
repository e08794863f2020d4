/// @file index.hpp
/// Index leaves: `fx::index<A>`, the position of an element along axis A of
/// the iteration space it is computed in (int64), so that masks and iotas
/// need no tensor: `where(fx::index<1> > fx::index<0>, -inf, x)` is a causal
/// mask. Kernels compute the position; no memory holds it.
#pragma once
#include <fusedsl/core/shape.hpp>       // shape, contiguous_strides
#include <fusedsl/expr/expression.hpp>  // dtype, kind::input

namespace fusedsl {

/// The `Axis` of the leaf that counts every axis: the element's row-major
/// position in the whole space (`detail::flat_position`, what random numbers
/// are drawn at).
inline constexpr int all_axes = -(1 << 20);

/// The position along axis `Axis` (negative: counted from the end) of the
/// iteration space: a statement's target, or a reduction's (or realized
/// value's) operand. It takes the sizes of that space, so its own shape is
/// size 1 on every axis; its rank is the least rank the space needs for the
/// axis to exist (`Axis + 1`, or `-Axis`; 0 for `all_axes`). A tensor of
/// dtype i64 for promotion, as torch's `arange` is.
template <int Axis>
struct index_leaf {
  using kind = fusedsl::kind::input;
  static constexpr int axis = Axis;
  static constexpr dtype value_dtype = dtype::i64;
  static constexpr int rank = Axis == all_axes ? 0 : Axis < 0 ? -Axis : Axis + 1;
  static constexpr bool is_scalar = false;
};

/// `fx::index<1>`: the column of each element (see index_leaf).
template <int Axis>
inline constexpr index_leaf<Axis> index{};

namespace detail {
/// The element's row-major position in the space it is computed in.
inline constexpr index_leaf<all_axes> flat_position{};
}  // namespace detail

/// True for index leaves.
template <class E>
inline constexpr bool is_index_node = false;
template <int Axis>
inline constexpr bool is_index_node<index_leaf<Axis>> = true;

/// Axis `axis` (negative: from the end) of a rank-`rank` space as a position in [0, rank), or -1
/// when the space has no such axis.
constexpr int index_axis(int axis, int rank) {
  const int a = axis < 0 ? axis + rank : axis;
  return a >= 0 && a < rank ? a : -1;
}

/// The strides of index leaf `axis`'s virtual tensor over a space of `sizes`,
/// whose offsets are its values: 1 along the axis and 0 elsewhere, or
/// row-major over every axis for `all_axes`. The space has the axis (the
/// statements' checks).
constexpr shape index_strides(int axis, const shape& sizes) {
  if (axis == all_axes) return contiguous_strides(sizes);
  const int along = index_axis(axis, sizes.rank());
  shape strides;
  for (int d = 0; d < sizes.rank(); ++d) strides.push_back(d == along ? 1 : 0);
  return strides;
}

}  // namespace fusedsl
