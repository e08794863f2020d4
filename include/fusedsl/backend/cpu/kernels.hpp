/// @file kernels.hpp
/// The CPU loops that run one node over part of its iteration space: a
/// pointwise node over a range of its elements, a reduction over a range of
/// its kept elements (rows), split across chunks of the reduced elements,
/// or over column blocks. A fused kernel calls them tile by tile, so that
/// the data one node writes is still in cache when the next node reads it.
#pragma once
#include <algorithm>  // std::min
#include <bit>        // std::countr_one
#include <cstdint>    // std::int64_t
#include <vector>     // std::vector

#include <fusedsl/core/numerics.hpp>         // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>         // evaluate
#include <fusedsl/program/detail/nodes.hpp>  // node_runtime

namespace fusedsl::cpu_detail {

using detail::node_runtime;

/// Independent accumulators per reduction row, so that the compiler can
/// keep them in one vector register; merged in a fixed order (results do
/// not depend on the number of threads).
inline constexpr int reduction_lanes = 8;

/// The operands of a node in one tile: memory (or scratch) and the tile's
/// offset correction per leaf slot, and the same for the output.
struct tile_operands {
  const void* const* data;
  const std::int64_t* bias;
  void* out;
  std::int64_t out_bias;
};

/// Reads leaf slot K at `base[K] + i * step[K]`.
struct stepped_reader {
  const void* const* data;
  const std::int64_t* base;
  const std::int64_t* step;
  std::int64_t i;
  template <std::size_t K, class T>
  FUSEDSL_FORCEINLINE T load() const {
    return static_cast<const T*>(data[K])[base[K] + i * step[K]];
  }
};

/// The row-major multi-index of flat position `flat` over `sizes`.
inline shape unravel(std::int64_t flat, const shape& sizes) {
  shape index = sizes;
  for (int d = sizes.rank() - 1; d >= 0; --d) {
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  return index;
}

inline std::int64_t dot(const shape& index, const shape& strides) {
  std::int64_t offset = 0;
  for (int d = 0; d < index.rank(); ++d) offset += index[d] * strides[d];
  return offset;
}

/// Pointwise node `e` (its loop expression) over the flat elements
/// [begin, end) of `n.space`, storing `Out` elements.
template <class Out, class E>
void pointwise_range(const E& e, const node_runtime& n, const tile_operands& t, std::int64_t begin, std::int64_t end) {
  constexpr std::size_t slots = leaf_slots<E>();
  const shape& space = n.space;
  const int r = space.rank();
  const std::int64_t row = r == 0 ? 1 : space[r - 1];
  std::int64_t step[slots + 1], base[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) step[k] = r == 0 ? 0 : n.leaves[k].strides[r - 1];
  const std::int64_t out_step = r == 0 ? 0 : n.out.strides[r - 1];
  Out* out = static_cast<Out*>(t.out);
  shape index = unravel(begin, space);
  while (begin < end) {
    const std::int64_t run = std::min(end - begin, row - (r == 0 ? 0 : index[r - 1]));
    for (std::size_t k = 0; k < slots; ++k) base[k] = dot(index, n.leaves[k].strides) - t.bias[k];
    const std::int64_t out_base = dot(index, n.out.strides) - t.out_bias;
    for (std::int64_t i = 0; i < run; ++i)
      out[out_base + i * out_step] =
          static_cast<Out>(evaluate<kernel_numerics, 0>(e, stepped_reader{t.data, base, step, i}));
    begin += run;
    if (r > 0) {  // next row of the space
      index[r - 1] = 0;
      for (int d = r - 2; d >= 0; --d) {
        if (++index[d] < space[d]) break;
        index[d] = 0;
      }
    }
  }
}

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
    for (int j = n_kept - 1; j >= 0; --j) {
      const std::int64_t i = kept_sizes[j] == 0 ? 0 : row % kept_sizes[j];
      row = kept_sizes[j] == 0 ? 0 : row / kept_sizes[j];
      offset += i * strides[kept[j]];
    }
    return offset;
  }
};

/// Accumulates reduction `r` of kept element `row` over reduced elements
/// [j0, j1) (flat, row-major over the reduced axes) into `state`.
template <class R, class State>
void accumulate(const R& r, const node_runtime& n, const reduction_axes& axes, const tile_operands& t,
                std::int64_t row, std::int64_t j0, std::int64_t j1, State& state) {
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const int last = axes.n_reduced - 1;
  const std::int64_t row_len = last < 0 ? 1 : axes.reduced_sizes[last];
  std::int64_t row_base[slots + 1], base[slots + 1], step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) {
    row_base[k] = axes.row_offset(row, n.leaves[k].strides) - t.bias[k];
    step[k] = last < 0 ? 0 : n.leaves[k].strides[axes.reduced[last]];
  }
  State lanes[reduction_lanes] = {};
  lanes[0] = state;
  shape index = unravel(j0, axes.reduced_sizes);
  std::int64_t j = j0;
  while (j < j1) {
    const std::int64_t start = last < 0 ? 0 : index[last];
    const std::int64_t run = std::min(j1 - j, row_len - start);
    for (std::size_t k = 0; k < slots; ++k) {
      base[k] = row_base[k];
      for (int m = 0; m < axes.n_reduced; ++m) base[k] += index[m] * n.leaves[k].strides[axes.reduced[m]];
    }
    const auto value = [&](std::int64_t i) {
      return static_cast<acc_type>(evaluate<kernel_numerics, 0>(r.arg, stepped_reader{t.data, base, step, i}));
    };
    std::int64_t i = 0;
    for (; i + reduction_lanes <= run; i += reduction_lanes)
      for (int l = 0; l < reduction_lanes; ++l) r.op.add(lanes[l], value(i + l), j + i + l);
    for (; i < run; ++i) r.op.add(lanes[0], value(i), j + i);
    j += run;
    if (last >= 0) {
      index[last] = 0;
      for (int m = last - 1; m >= 0; --m) {
        if (++index[m] < axes.reduced_sizes[m]) break;
        index[m] = 0;
      }
    }
  }
  state = lanes[0];
  for (int l = 1; l < reduction_lanes; ++l) r.op.merge(state, lanes[l]);
}

template <class R>
using reduction_state = typename R::op_type::template state<compute_t<kernel_numerics, R::input_dtype>>;

/// Reduction node `r` for kept elements [begin, end), storing `Out` elements.
template <class Out, class R>
void reduction_rows(const R& r, const node_runtime& n, const tile_operands& t, std::int64_t begin, std::int64_t end) {
  const reduction_axes axes(n);
  Out* out = static_cast<Out*>(t.out);
  for (std::int64_t row = begin; row < end; ++row) {
    reduction_state<R> state{};
    accumulate(r, n, axes, t, row, 0, n.inner, state);
    out[axes.row_offset(row, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(state, n.inner));
  }
}

/// Chunks a long reduction is split into: fixed, so that results do not
/// depend on the number of threads.
inline constexpr std::int64_t split_chunks = 64;

/// Reduction node `r` with few kept elements and many reduced ones: each
/// row's reduced range is cut into `split_chunks` parts reduced in
/// parallel, then merged in order.
template <class Out, class R>
void reduction_split(const R& r, const node_runtime& n, const tile_operands& t) {
  const reduction_axes axes(n);
  Out* out = static_cast<Out*>(t.out);
  std::vector<reduction_state<R>> partial(static_cast<std::size_t>(split_chunks));
  for (std::int64_t row = 0; row < n.outer; ++row) {
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < split_chunks; ++c) {
      partial[static_cast<std::size_t>(c)] = {};
      accumulate(r, n, axes, t, row, n.inner * c / split_chunks, n.inner * (c + 1) / split_chunks,
                 partial[static_cast<std::size_t>(c)]);
    }
    reduction_state<R> state = partial[0];
    for (std::int64_t c = 1; c < split_chunks; ++c) r.op.merge(state, partial[static_cast<std::size_t>(c)]);
    out[axes.row_offset(row, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(state, n.inner));
  }
}

/// True when a reduction reduces its leading axes and keeps the trailing
/// ones (a column reduction): then whole rows are accumulated into a vector
/// of column states, reading memory in order.
inline bool is_column_reduction(const node_runtime& n) {
  if (!n.reduction || n.reduced_mask == 0) return false;
  const unsigned leading = (1u << std::countr_one(n.reduced_mask)) - 1u;
  return n.reduced_mask == leading && n.reduced_mask != (1u << n.space.rank()) - 1u;
}

/// Column reduction `r` for kept elements (columns) [begin, end).
template <class Out, class R>
void reduction_columns(const R& r, const node_runtime& n, const tile_operands& t, std::int64_t begin,
                       std::int64_t end) {
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const reduction_axes axes(n);
  const int last = axes.n_kept - 1;  // the innermost kept axis: contiguous columns
  constexpr std::int64_t block = 256;
  reduction_state<R> states[block];
  Out* out = static_cast<Out*>(t.out);
  for (std::int64_t c0 = begin; c0 < end; c0 += block) {
    const std::int64_t width = std::min(block, end - c0);
    for (std::int64_t c = 0; c < width; ++c) states[c] = {};
    // Columns [c0, c0 + width) lie on one innermost kept row when the block does not cross it.
    for (std::int64_t c = 0; c < width;) {
      const std::int64_t column = c0 + c;
      const std::int64_t in_row = axes.kept_sizes[last] - column % axes.kept_sizes[last];
      const std::int64_t run = std::min(width - c, in_row);
      std::int64_t base[slots + 1], step[slots + 1];
      for (std::size_t k = 0; k < slots; ++k) step[k] = n.leaves[k].strides[axes.kept[last]];
      for (std::int64_t j = 0; j < n.inner; ++j) {
        const shape reduced_index = unravel(j, axes.reduced_sizes);
        for (std::size_t k = 0; k < slots; ++k) {
          base[k] = axes.row_offset(column, n.leaves[k].strides) - t.bias[k];
          for (int m = 0; m < axes.n_reduced; ++m) base[k] += reduced_index[m] * n.leaves[k].strides[axes.reduced[m]];
        }
        for (std::int64_t i = 0; i < run; ++i)
          r.op.add(states[c + i],
                   static_cast<acc_type>(evaluate<kernel_numerics, 0>(r.arg, stepped_reader{t.data, base, step, i})), j);
      }
      c += run;
    }
    for (std::int64_t c = 0; c < width; ++c)
      out[axes.row_offset(c0 + c, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(states[c], n.inner));
  }
}

}  // namespace fusedsl::cpu_detail
