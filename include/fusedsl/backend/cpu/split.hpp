/// @file split.hpp
/// The CPU's split-reduction kernel class: a reduction with few kept
/// elements and many reduced ones, each row's reduced range cut into a
/// fixed number of parts reduced in parallel (with the row reduction's
/// `accumulate`), then merged in order. A fused group of such rows runs
/// the same parts (executor.hpp), its reductions through `split_part` and
/// `split_merge`, so that it adds in the same order as a reduction alone.
#pragma once
#include <atomic>     // std::atomic
#include <algorithm>  // std::min
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <vector>     // std::vector

#include <fusedsl/backend/cpu/chunks.hpp>          // tile_operands
#include <fusedsl/backend/cpu/reduction_axes.hpp>  // reduction_axes, reduction_state
#include <fusedsl/backend/cpu/rows.hpp>            // accumulate
#include <fusedsl/core/config.hpp>                 // FUSEDSL_FORCEINLINE
#include <fusedsl/core/fault.hpp>                  // detail::current_faults, detail::fault_scope
#include <fusedsl/runtime/nodes.hpp>               // node_runtime

namespace fusedsl::cpu_detail {

using detail::node_runtime;

/// Parts a long row is split into: fixed, so that results do not depend
/// on the number of threads.
inline constexpr std::int64_t split_chunks = 64;

/// Elements of a part added at a time: a fused group runs all its nodes on
/// one step before the next, so that the step's operands stay in the L2
/// cache (a reduction alone adds in the same steps, in the same order).
inline constexpr std::int64_t split_step = 16384;

/// Calls `step(j0, j1, first)` for the steps of part `c` of a row of `inner`
/// elements, in order (`first` for the part's first step): the order in
/// which a split reduction adds, alone or in a fused group.
template <class Step>
FUSEDSL_FORCEINLINE void for_each_split_step(std::int64_t inner, std::int64_t c, Step step) {
  const std::int64_t begin = inner * c / split_chunks, end = inner * (c + 1) / split_chunks;
  for (std::int64_t j = begin; j < end; j += split_step) step(j, std::min(end, j + split_step), j == begin);
}

/// Adds reduced elements [j0, j1) of row `row` of reduction `r` to `state`
/// (value-initialised first when `fresh`): one step of a part.
template <class R>
void split_part(const R& r, const node_runtime& n, const tile_operands& t, std::int64_t row, std::int64_t j0,
                std::int64_t j1, reduction_state<R>& state, bool fresh) {
  if (fresh) state = {};
  accumulate(r, n, reduction_axes(n), t, row, j0, j1, state);
}

/// Merges the `split_chunks` part states of row `row`, in order, and stores
/// the row's result.
template <class Out, class R>
void split_merge(const R& r, const node_runtime& n, const tile_operands& t, std::int64_t row,
                 const reduction_state<R>* parts) {
  reduction_state<R> state = parts[0];
  for (std::int64_t c = 1; c < split_chunks; ++c) r.op.merge(state, parts[c]);
  static_cast<Out*>(t.out)[reduction_axes(n).row_offset(row, n.out.strides) - t.out_bias] =
      static_cast<Out>(r.op.finish(state, n.inner));
}

/// Reduction node `r` with few kept elements and many reduced ones, alone:
/// each row's parts reduced in parallel, step by step, then merged.
template <class Out, class R>
void reduction_split(const R& r, const node_runtime& n, const tile_operands& t) {
  std::vector<reduction_state<R>> parts(static_cast<std::size_t>(split_chunks));
  detail::run_faults* const faults = detail::current_faults;
  for (std::int64_t row = 0; row < n.outer; ++row) {
#pragma omp parallel
    {
      const detail::fault_scope fault_word(faults);
#pragma omp for schedule(static)
      for (std::int64_t c = 0; c < split_chunks; ++c)
        for_each_split_step(n.inner, c, [&](std::int64_t j0, std::int64_t j1, bool first) {
          split_part(r, n, t, row, j0, j1, parts[static_cast<std::size_t>(c)], first);
        });
    }
    split_merge<Out>(r, n, t, row, parts.data());
  }
}

}  // namespace fusedsl::cpu_detail
