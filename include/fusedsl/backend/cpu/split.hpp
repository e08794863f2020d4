/// @file split.hpp
/// The CPU's split-reduction kernel class: a reduction with few kept
/// elements and many reduced ones, each row's reduced range cut into a
/// fixed number of chunks reduced in parallel (with the row reduction's
/// `accumulate`), then merged in order (`reduction_split`).
#pragma once
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <vector>   // std::vector

#include <fusedsl/backend/cpu/chunks.hpp>          // tile_operands
#include <fusedsl/backend/cpu/reduction_axes.hpp>  // reduction_axes, reduction_state
#include <fusedsl/backend/cpu/rows.hpp>            // accumulate
#include <fusedsl/runtime/nodes.hpp>               // node_runtime

namespace fusedsl::cpu_detail {

using detail::node_runtime;

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

}  // namespace fusedsl::cpu_detail
