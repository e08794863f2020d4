/// @file reduction_axes.hpp
/// What every CPU reduction loop (rows, split, columns) knows of its node:
/// its axes, kept ones then reduced ones (`reduction_axes`), and its
/// accumulator's state type (`reduction_state`). Its own header because
/// the three reduction kernel classes share it.
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/core/numerics.hpp>  // kernel_numerics, compute_t
#include <fusedsl/core/shape.hpp>     // shape, max_rank
#include <fusedsl/runtime/nodes.hpp>  // node_runtime

namespace fusedsl::cpu_detail {

using detail::node_runtime;

/// The axes of a reduction node: kept ones, then reduced ones, in order.
struct reduction_axes {
  int kept[max_rank], reduced[max_rank];
  int n_kept = 0, n_reduced = 0;
  shape kept_sizes, reduced_sizes;

  explicit reduction_axes(const node_runtime& n) {
    for (int d = 0; d < n.space.rank(); ++d) {
      if (n.reduced_mask & (1u << d)) reduced[n_reduced++] = d, reduced_sizes.push_back(n.space[d]);
      else kept[n_kept++] = d, kept_sizes.push_back(n.space[d]);
    }
  }
  /// Offset of the kept element `row` (flat over the kept axes) for `strides`.
  std::int64_t row_offset(std::int64_t row, const shape& strides) const {
    std::int64_t offset = 0;
    for (int j = n_kept - 1; j >= 0 && row > 0; --j) {
      if (row < kept_sizes[j]) {  // the outer axes at 0: no division (a matrix's rows)
        offset += row * strides[kept[j]];
        break;
      }
      offset += row % kept_sizes[j] * strides[kept[j]];
      row /= kept_sizes[j];
    }
    return offset;
  }
};

template <class R>
using reduction_state = typename R::op_type::template state<compute_t<kernel_numerics, R::input_dtype>>;

}  // namespace fusedsl::cpu_detail
