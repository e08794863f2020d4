/// @file nodes.hpp
/// A program's nodes at run time: what each node of the lowering (a
/// distinct reduction, scan or realized value of a statement, or a
/// statement's value) computes, over which iteration space, reading which memory.
/// Backends run them; this header only describes them.
#pragma once
#include <cstdint>  // std::int64_t
#include <vector>   // std::vector

#include <fusedsl/core/shape.hpp>                        // shape
#include <fusedsl/expr/traverse.hpp>                     // distinct_nodes, leaf_slots, is_inlined
#include <fusedsl/program/detail/bound_leaves.hpp>       // bound_leaves
#include <fusedsl/program/detail/statement_context.hpp>  // shape_context, reduced_axes_mask

namespace fusedsl::detail {

/// Where a loop finds one operand: memory, or a slot of the per-thread
/// scratch of a fused kernel (a buffer that never leaves the kernel).
/// Offsets are `sum(index[d] * strides[d])` over the node's space, minus
/// `tile_start * per_outer` for scratch, which holds one tile only.
///
/// A gathered leaf (expr/gather.hpp) is read at its offset plus the
/// element's index times `gathered_stride`: its strides are x's with 0
/// along the gathered axis, which `gathered_stride` and `gathered_size`
/// (x's stride and size there) describe.
struct address {
  void* data = nullptr;              ///< memory, when scratch < 0
  int scratch = -1;                  ///< scratch slot, or -1
  shape strides;                     ///< over the node's iteration space; 0 where broadcast
  std::int64_t per_outer = 0;        ///< scratch: elements per unit of the group's outer range
  std::int64_t gathered_stride = 0;  ///< gathered leaves: x's stride along the gathered axis
  std::int64_t gathered_size = 0;    ///< gathered leaves: x's size along the gathered axis
};

/// One node of one call.
struct node_runtime {
  int statement = -1;
  int distinct = -1;  ///< -1: the statement's value
  bool writes_target = false;
  bool reduction = false;       ///< a reduction or a scan: it runs along the reduced axes, row by row
  bool scan = false;            ///< a scan: its output keeps every element of `space`
  shape space;                  ///< iteration space (a reduction or scan: its operand's shape)
  unsigned reduced_mask = 0;    ///< reduced axes of `space` (a scan: its axis)
  shape out_sizes;              ///< the node's value shape (a buffer's shape)
  std::int64_t outer = 1;       ///< kept elements (pointwise: all elements)
  std::int64_t inner = 1;       ///< reduced elements per kept element (pointwise: 1)
  std::vector<address> leaves;  ///< per leaf slot of the node's loop expression
  address out;                  ///< the node's output over `space` (0 strides on a reduction's reduced axes)
};

/// The loop expression of a node: a reduction's or scan's operand, a
/// realized value's operand, or a statement's value.
template <class N>
constexpr const auto& loop_expression(const N& node) {
  if constexpr (is_reduction_node<N> || is_scan_node<N>) return node.arg;
  else if constexpr (is_realize_node<N>) return hana::at_c<0>(node.args);
  else return node;
}

/// The expression object of node (`S`, `K`) of program `prog`: distinct
/// node K of statement S, or (K < 0) statement S's value.
template <std::size_t S, int K, class P>
constexpr const auto& node_expression(const P& prog) {
  const auto& value = hana::at_c<S>(prog.statements).value;
  if constexpr (K < 0) {
    return value;
  } else {
    using V = std::remove_cvref_t<decltype(value)>;
    using N = typename decltype(+hana::at_c<K>(distinct_nodes<V>()))::type;
    return first_occurrence<N>(value);
  }
}

/// `strides` of an operand of `sizes` as read over `space` (numpy
/// broadcasting: aligned at the innermost axis; size-1 axes and missing
/// axes read with stride 0).
inline shape broadcast_strides(const shape& sizes, const shape& strides, const shape& space) {
  shape result;
  for (int d = 0; d < space.rank(); ++d) {
    const int a = sizes.rank() - space.rank() + d;
    result.push_back(a < 0 || sizes[a] == 1 ? 0 : strides[a]);
  }
  return result;
}

/// `strides` over leading_axes(space, trailing), as strides over `space`: 0
/// along the trailing axes.
inline shape with_trailing_zeros(shape strides, int trailing) {
  for (int d = 0; d < trailing; ++d) strides.push_back(0);
  return strides;
}

}  // namespace fusedsl::detail
