/// @file pointwise.hpp
/// The CPU's pointwise kernel class: a pointwise node over one chunk of
/// prepared leaves (`pointwise_chunk`, which the executor's fused pointwise
/// groups call chunk by chunk) and over a range of its elements
/// (`pointwise_range`).
#pragma once
#include <algorithm>    // std::min
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::is_same_v

#include <fusedsl/backend/cpu/chunks.hpp>     // chunk_leaves, chunk_invariants, evaluate_chunk, tile_operands
#include <fusedsl/backend/cpu/indexing.hpp>   // unravel, step_index, innermost, dot, whole_rows, step_rows
#include <fusedsl/backend/cpu/streaming.hpp>  // store_chunk, streams_output
#include <fusedsl/core/config.hpp>            // FUSEDSL_CPU_KERNEL, FUSEDSL_FORCEINLINE, FUSEDSL_CPU_HELD_ROW_LENGTH
#include <fusedsl/core/numerics.hpp>          // kernel_numerics
#include <fusedsl/core/shape.hpp>             // shape
#include <fusedsl/expr/evaluate.hpp>          // evaluate
#include <fusedsl/expr/traverse.hpp>          // leaf_slots
#include <fusedsl/runtime/nodes.hpp>          // node_runtime

namespace fusedsl::cpu_detail {

using detail::node_runtime;

/// Node `e` (its loop expression) over one chunk of `m` elements whose
/// leaves are prepared, stored at `out` with step `out_step`, converted to
/// Out (with `stream`, around the caches). With `row_start`, it first
/// records the chunk's invariant subexpressions. Unless `Shared` is void,
/// the values of subexpression `Shared` are read from `shared`.
template <class Out, class Shared, class E>
FUSEDSL_FORCEINLINE void pointwise_chunk(const E& e, const chunk_leaves<E>& leaves, const std::int64_t* step,
                                         chunk_invariants<E>& held, bool row_start, Out* out, std::int64_t out_step,
                                         bool stream, std::int64_t m, const void* shared) {
  using value_type = loop_value_t<E>;
  if constexpr (has_invariant_candidates<E>()) {
    if (row_start) {  // a held value is the same along the row: record it at the row's first chunk
      held.invariant = true;
      (void)evaluate<kernel_numerics, 0>(e, invariant_recorder{leaves.leaf, step, held.held, &held.invariant});
    }
  }
  // Contiguous outputs of the loop's own type are written in place; the
  // others (strided, converted or streamed) are staged in `values`: a copy
  // through `values` is a large share of Adam's group's time.
  alignas(64) value_type values[chunk];
  value_type* into = values;
  if constexpr (std::is_same_v<Out, value_type>)
    if (out_step == 1 && !stream) into = out;
  if (held.invariant) evaluate_chunk_held<Shared>(e, leaves.leaf, held.held, into, m, shared);
  else evaluate_chunk<Shared>(e, leaves.leaf, into, m, shared);
  if (into == values) {
    if (out_step == 1) store_chunk(out, values, m, stream);
    else
      for (std::int64_t i = 0; i < m; ++i) out[i * out_step] = static_cast<Out>(values[i]);
  }
}

/// Held values of whole rows, `N` rows recorded at a time (record_rows) and
/// handed out row by row.
template <class E, std::int64_t N>
struct held_rows {
  chunk_invariants<E> rows[N];
  std::int64_t recorded = 0, next = 0;

  /// The held values of the row whose leaves are at `row_base`: recorded with
  /// the next rows' (`left` rows, this one first) when those recorded before
  /// are used up.
  FUSEDSL_FORCEINLINE chunk_invariants<E>& of_row(const E& e, const void* const* data, const std::int64_t* row_base,
                                                  const std::int64_t* row_step, const std::int64_t* step,
                                                  std::int64_t left) {
    if (next == recorded) {
      recorded = std::min(N, left);
      const bool invariant = record_rows(e, data, row_base, row_step, step, recorded, rows);
      for (std::int64_t i = 0; i < recorded; ++i) rows[i].invariant = invariant;
      next = 0;
    }
    return rows[next++];
  }
  /// Forgets the recorded rows (the loop is inside a row).
  void reset() { recorded = next = 0; }
};

/// Node `e` (its loop expression) over a chunk of `rows` rows of `cols`
/// elements whose leaves are prepared (`prepare_rows`, `step` along a row),
/// stored at `out` (row i at `out + i * out_row_step`, `out_step` along it).
/// Invariant subexpressions are computed once per row (evaluate_rows_held).
template <class Out, class Shared, class E>
FUSEDSL_FORCEINLINE void pointwise_rows_chunk(const E& e, const chunk_leaves<E>& leaves, const std::int64_t* step,
                                              Out* out, std::int64_t out_row_step, std::int64_t out_step, bool stream,
                                              std::int64_t rows, std::int64_t cols, const void* shared) {
  using value_type = loop_value_t<E>;
  const std::int64_t m = rows * cols;
  const bool contiguous = out_step == 1 && out_row_step == cols;
  alignas(64) value_type values[chunk];
  value_type* into = values;
  if constexpr (std::is_same_v<Out, value_type>)
    if (contiguous && !stream) into = out;
  bool done = false;
  if constexpr (holds_math<E>() && !chunk_leaves<E>::computes_slots)
    if (cols >= FUSEDSL_CPU_HELD_ROW_LENGTH)
      done = evaluate_rows_held<Shared>(e, leaves.leaf, step, into, rows, cols, shared);
  if (!done) evaluate_chunk<Shared>(e, leaves.leaf, into, m, shared);
  if (into != values) return;
  if (contiguous) {
    store_chunk(out, values, m, stream);
  } else {
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        out[i * out_row_step + j * out_step] = static_cast<Out>(values[i * cols + j]);
  }
}

/// Pointwise node `e` (its loop expression) over the flat elements
/// [begin, end) of `n.space`, storing `Out` elements. Unless `Shared` is
/// void, the values of its subexpression `Shared` are read from `shared`
/// (element `begin` first) instead of computed. A streamed output is the
/// caller's to fence. `on_its_own`: the node runs alone, not in a group of rows.
/// The body of `pointwise_range` and `pointwise_node_range`.
template <class Out, class Shared, class E>
FUSEDSL_FORCEINLINE void pointwise_elements(const E& expression, const node_runtime& n, const tile_operands& t,
                                            std::int64_t begin, std::int64_t end, const void* shared, bool on_its_own) {
  const E e = expression;  // a local copy: see chunk_reader
  constexpr std::size_t slots = leaf_slots<E>();
  const shape& space = n.space;
  const int r = space.rank();
  const std::int64_t row = r == 0 ? 1 : space[r - 1];
  std::int64_t step[slots + 1], base[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) step[k] = innermost(n.leaves[k].strides, r);
  const std::int64_t out_step = innermost(n.out.strides, r);
  Out* out = static_cast<Out*>(t.out);
  chunk_leaves<E> leaves(n);
  chunk_invariants<E> held;
  std::int64_t done_elements = 0;  // since `begin`: where the chunk's shared values are
  const bool stream = streams_output<Out>(n, t.may_stream);
  shape index = unravel(begin, space);
  // On its own, a node takes rows of up to half a chunk several at a time, unless it holds
  // values per row (recorded row by row: record_rows). In a row group, the output pass of
  // a softmax over rows of 64 ran slower so.
  const std::int64_t rows_at_once =
      on_its_own && !has_invariant_candidates<E>() && row > 0 && 2 * row <= chunk ? chunk / row : rows_per_chunk(row);
  // Held values of the next whole rows, recorded together (record_rows).
  constexpr bool records_rows = has_invariant_candidates<E>() && !chunk_leaves<E>::computes_slots;
  held_rows<E, records_rows ? recorded_rows : 1> rows_held;
  // Where the current row starts (`at_row`: kept from the row before, one `row_step` on).
  std::int64_t row_step[slots + 1], row_base[slots + 1], out_row = 0;
  for (std::size_t k = 0; k < slots; ++k) row_step[k] = r >= 2 ? n.leaves[k].strides[r - 2] : 0;
  const std::int64_t out_row_step = r >= 2 ? n.out.strides[r - 2] : 0;
  bool at_row = false;
  while (begin < end) {
    if (const std::int64_t rows = whole_rows(index, space, end - begin, rows_at_once)) {  // short rows
      for (std::size_t k = 0; k < slots; ++k) base[k] = dot(index, n.leaves[k].strides) - t.bias[k];
      leaves.prepare_rows(t.data, base, row_step, step, rows, row);
      pointwise_rows_chunk<Out, Shared>(e, leaves, step, out + dot(index, n.out.strides) - t.out_bias, out_row_step,
                                        out_step, stream, rows, row, shared_at<Shared>(shared, done_elements));
      done_elements += rows * row;
      begin += rows * row;
      step_rows(index, space, rows);
      at_row = false;
      continue;
    }
    if (!at_row) {
      for (std::size_t k = 0; k < slots; ++k) row_base[k] = dot(index, n.leaves[k].strides) - t.bias[k];
      out_row = dot(index, n.out.strides) - t.out_bias;
    }
    if (r >= 2 && row <= chunk && index[r - 1] == 0 && end - begin >= row) {
      // Whole rows of at most a chunk (a row group over rows of 64): a chunk a row, the
      // leaves stepped on by the rows' strides, nothing else updated per row.
      const std::int64_t rows = std::min((end - begin) / row, space[r - 2] - index[r - 2]);
      for (std::int64_t i = 0; i < rows; ++i) {
        chunk_invariants<E>* row_held = &held;
        bool records = true;  // at the row's chunk, unless recorded with the rows before
        if constexpr (records_rows) {
          row_held = &rows_held.of_row(e, t.data, row_base, row_step, step, rows - i);
          records = false;
        }
        leaves.prepare(t.data, row_base, step, row,
                       !records && row_held->invariant ? unread_slots<E, Shared, true>.data()
                                                       : unread_slots<E, Shared, false>.data());
        pointwise_chunk<Out, Shared>(e, leaves, step, *row_held, records, out + out_row, out_step, stream, row,
                                     shared_at<Shared>(shared, done_elements));
        done_elements += row;
        for (std::size_t k = 0; k < slots; ++k) row_base[k] += row_step[k];
        out_row += out_row_step;
      }
      begin += rows * row;
      // row_base and out_row are the next row's unless the second-innermost axis ended.
      at_row = index[r - 2] + rows < space[r - 2];
      step_rows(index, space, rows);
      continue;
    }
    const std::int64_t run = std::min(end - begin, row - innermost(index, r));
    for (std::size_t k = 0; k < slots; ++k) base[k] = row_base[k];
    std::int64_t out_at = out_row;
    bool record = true;  // at the row's first chunk, unless recorded with the rows before
    if constexpr (records_rows) {
      if (run == row && r >= 2) {  // a whole row: its held values recorded with the next rows'
        held = rows_held.of_row(e, t.data, base, row_step, step,
                                std::min((end - begin) / row, space[r - 2] - index[r - 2]));
        record = false;
      } else {
        rows_held.reset();
      }
    }
    for (std::int64_t done = 0; done < run; done += chunk) {
      const std::int64_t m = std::min(chunk, run - done);
      // A chunk that records the held values is prepared whole (whether they hold is known after).
      const bool records = record && done == 0, uses_held = !records && held.invariant;
      leaves.prepare(t.data, base, step, m,
                     uses_held ? unread_slots<E, Shared, true>.data() : unread_slots<E, Shared, false>.data());
      pointwise_chunk<Out, Shared>(e, leaves, step, held, records, out + out_at, out_step, stream, m,
                                   shared_at<Shared>(shared, done_elements));
      done_elements += m;
      for (std::size_t k = 0; k < slots; ++k) base[k] += m * step[k];
      out_at += m * out_step;
    }
    begin += run;
    if (r > 0) {  // next row of the space: along the second-innermost axis, one step on
      const bool whole_row = run == row;
      index[r - 1] = 0;
      at_row = whole_row && r >= 2 && index[r - 2] + 1 < space[r - 2];
      if (at_row) {
        ++index[r - 2];
        for (std::size_t k = 0; k < slots; ++k) row_base[k] += row_step[k];
        out_row += out_row_step;
      } else {
        step_index(index, space, r - 2);
      }
    }
  }
}

/// pointwise_elements with the row kernels' clones: in a group of rows, or on its own
/// where kernels have no AVX-512 clone (`on_its_own`).
template <class Out, class Shared = void, class E>
FUSEDSL_CPU_KERNEL void pointwise_range(const E& expression, const node_runtime& n, const tile_operands& t,
                                        std::int64_t begin, std::int64_t end, const void* shared = nullptr,
                                        bool on_its_own = false) {
  pointwise_elements<Out, Shared>(expression, n, t, begin, end, shared, on_its_own);
}

/// pointwise_elements of a node that runs on its own, with an AVX-512 clone
/// besides (FUSEDSL_CPU_POINTWISE_KERNEL: exp, erf, gelu and the like run
/// about twice as fast there; the row groups' pointwise nodes, over rows of
/// 64 or 3, ran slower in it).
template <class Out, class E>
FUSEDSL_CPU_POINTWISE_KERNEL void pointwise_node_range(const E& expression, const node_runtime& n,
                                                       const tile_operands& t, std::int64_t begin, std::int64_t end) {
  pointwise_elements<Out, void>(expression, n, t, begin, end, nullptr, true);
}

}  // namespace fusedsl::cpu_detail
