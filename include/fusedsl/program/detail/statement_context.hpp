/// @file statement_context.hpp
/// Shapes at run time: of reductions, of assignments (numpy's rule), and of
/// every subexpression of a statement, with errors that name the operands.
#pragma once
#include <array>   // std::array
#include <string>  // std::string

#include <fusedsl/core/error.hpp>                   // error
#include <fusedsl/core/shape.hpp>                   // shape, broadcast
#include <fusedsl/expr/print.hpp>                   // to_string(expr)
#include <fusedsl/expr/traverse.hpp>                // is_scan_node, distinct_nodes
#include <fusedsl/program/detail/bound_leaves.hpp>  // bound_leaves

namespace fusedsl::detail {

/// The axes of a reduction (or the axis of a scan) over a rank-`rank`
/// operand, normalized to [0, rank), as a mask; all axes when the list is empty. Dynamic-rank
/// operands are checked here, at run time.
template <class R>
unsigned reduced_axes_mask(int rank) {
  using axes = typename R::axes_type;
  if constexpr (axes::count == 0) {
    return (1u << rank) - 1u;
  } else {
    unsigned mask = 0;
    for (int i = 0; i < axes::count; ++i) {
      const int a = axes::values[i];
      if (a < -rank || a >= rank)
        throw error("fusedsl: " + std::string(R::op_type::name) + " over axis " + std::to_string(a) + " of a rank-" +
                    std::to_string(rank) + " operand: use an axis in [-rank, rank)");
      const unsigned bit = 1u << (a < 0 ? a + rank : a);
      if (mask & bit)
        throw error("fusedsl: " + std::string(R::op_type::name) + " lists axis " + std::to_string(a) + " twice");
      mask |= bit;
    }
    return mask;
  }
}

/// The shape of reduction `R` of an operand of shape `in`.
template <class R>
shape reduced_shape(const shape& in) {
  const unsigned mask = reduced_axes_mask<R>(in.rank());
  shape out;
  for (int i = 0; i < in.rank(); ++i) {
    if (!(mask & (1u << i))) out.push_back(in[i]);
    else if (R::keep_axes) out.push_back(1);
  }
  return out;
}

/// The numpy rule for `target[...] = value`: leading size-1 axes of the
/// value beyond the target's rank are dropped, then the value must
/// broadcast to exactly the target's shape.
inline bool assignable(shape value, const shape& target) {
  while (value.rank() > target.rank()) {
    if (value[0] != 1) return false;
    shape rest;
    for (int i = 1; i < value.rank(); ++i) rest.push_back(value[i]);
    value = rest;
  }
  return broadcastable(value, target) && broadcast_shapes(value, target) == target;
}

/// Shape inference for the statements of program `P` in one call: shapes
/// of subexpressions from the bound tensors, with clear errors for
/// operands that do not broadcast and reductions over nothing.
template <class P>
struct shape_context {
  const bound_leaves<P>& leaves;

  /// The shape of `e`, checking broadcasts and reduction axes on the way.
  template <class E>
  shape shape_of(const E& e) const {
    if constexpr (is_constant_node<E>) {
      return shape{};
    } else if constexpr (is_gathered_leaf<E>) {
      return E::own(shape_of(e.x), 1);  // the indices give the positions along the axis
    } else if constexpr (is_gather_node<E>) {
      const shape x = shape_of(hana::at_c<0>(e.args));
      const shape indices = shape_of(hana::at_c<1>(e.args));
      shape aligned = indices;  // index_select's indices stand along its axis
      for (int d = 0; d < index_trailing_axes<E>; ++d) aligned.push_back(1);
      if (!broadcastable(x, aligned))
        throw error("fusedsl: cannot broadcast the indices of " + to_string(e) + " against x: x has shape " +
                    to_string(shape_of(hana::at_c<0>(e.args).x)) + ", the indices have shape " + to_string(indices) +
                    " (the axes other than the gathered one must broadcast, as in torch.take_along_dim)");
      return broadcast_shapes(x, aligned);
    } else if constexpr (is_pointwise_node<E>) {
      const auto shapes = hana::unpack(e.args, [&](const auto&... a) { return std::array{shape_of(a)...}; });
      shape result = shapes[0];
      for (const shape& s : shapes) {
        if (!broadcastable(result, s)) {
          std::string operands;
          int i = 0;
          hana::for_each(e.args, [&](const auto& a) {
            operands += (i ? ", " : "") + to_string(a) + " has shape " + to_string(shapes[i]);
            ++i;
          });
          throw error("fusedsl: cannot broadcast the operands of " + to_string(e) + ": " + operands + " (" +
                      mismatch(result, s) + ")");
        }
        result = broadcast_shapes(result, s);
      }
      return result;
    } else if constexpr (is_reduction_node<E>) {
      const shape in = shape_of(e.arg);
      const shape out = reduced_shape<E>(in);
      // Only an empty reduced axis leaves a result without a value; reducing a
      // non-empty axis of an empty tensor just gives an empty result (as in PyTorch).
      if (E::op_type::needs_elements && in.numel() == 0 && out.numel() != 0)
        throw error("fusedsl: " + std::string(E::op_type::name) + " over no elements: " + to_string(e) +
                    " reduces a tensor of shape " + to_string(in) + "; it has no value there");
      return out;
    } else if constexpr (is_scan_node<E>) {
      const shape in = shape_of(e.arg);
      reduced_axes_mask<E>(in.rank());  // a dynamic rank's axis is checked here
      return in;
    } else if constexpr (is_index_node<E>) {
      shape ones;  // it takes the sizes of the space it is broadcast into
      for (int d = 0; d < E::rank; ++d) ones.push_back(1);
      return ones;
    } else if constexpr (requires { e.view; }) {
      return e.view.sizes();
    } else if constexpr (requires { E::role_of; }) {
      return leaves.template slot<E>().view.sizes();
    } else {
      return shape{};  // a param
    }
  }

 private:
  static std::string mismatch(const shape& a, const shape& b) {
    const int axis = broadcast_conflict(a, b);
    return "axis " + std::to_string(axis) + " has sizes " + std::to_string(a[a.rank() + axis]) + " and " +
           std::to_string(b[b.rank() + axis]);
  }
};

}  // namespace fusedsl::detail
