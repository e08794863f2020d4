/// @file rows.hpp
/// The CPU's row-reduction kernel class: a reduction node over a range of
/// its kept elements (rows), each row's reduced elements added a chunk at a
/// time into independent lanes that merge in a fixed order (`accumulate`,
/// which the split reduction shares, and `reduction_rows`).
#pragma once
#include <algorithm>    // std::min, std::max
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::remove_cvref_t, std::is_same_v, std::is_base_of_v
#include <utility>      // std::declval

#include <fusedsl/backend/cpu/chunks.hpp>          // chunk, chunk_leaves, chunk_reader, evaluate_chunk, tile_operands
#include <fusedsl/backend/cpu/indexing.hpp>        // unravel, step_index
#include <fusedsl/backend/cpu/reduction_axes.hpp>  // reduction_axes, reduction_state
#include <fusedsl/core/config.hpp>                 // FUSEDSL_CPU_KERNEL, FUSEDSL_FORCEINLINE, FUSEDSL_ROLLED_LANES
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/core/shape.hpp>                  // shape
#include <fusedsl/expr/evaluate.hpp>               // evaluate
#include <fusedsl/expr/gather.hpp>                 // is_computed_leaf
#include <fusedsl/expr/reduction_ops.hpp>          // ops::max, ops::min, ops::logsumexp
#include <fusedsl/expr/traverse.hpp>               // leaf_slots, leaf_storage_t, is_pointwise_node
#include <fusedsl/runtime/nodes.hpp>               // node_runtime

namespace fusedsl::cpu_detail {

using detail::node_runtime;

/// Independent accumulators per reduction row: 128 bytes of states (32
/// float sums, 16 double or i64 ones), 8 at least. The compiler keeps them
/// in four AVX2 vector registers, so that a chunk's additions are four
/// chains of dependent adds, not one: with 8 float lanes (one register) a
/// sum runs at the adder's latency, not at the memory's speed (figures:
/// bench/RESULTS.md). Merged in a fixed order
/// (results do not depend on the number of threads).
template <class State>
inline constexpr int reduction_lanes = std::max<int>(8, static_cast<int>(128 / sizeof(State)));

/// Rows of at most this many reduced elements add into 32 bytes of lanes
/// (8 float sums, one register): merging 128 bytes of lanes costs more
/// than such a row's adds. Longer rows need the wider lanes: with one
/// register, a max's chain of compares is the limit (softmax over rows of
/// 256 is slower).
inline constexpr std::int64_t short_row_length = 64;
template <class State>
inline constexpr int short_row_lanes = std::max<int>(4, static_cast<int>(32 / sizeof(State)));

/// True when reduction `R`'s accumulator adds a whole chunk of values at
/// once (`add_block`), which it does better than element by element.
template <class R, class State>
inline constexpr bool takes_blocks = requires(const R& r, State& s,
                                              const compute_t<kernel_numerics, R::input_dtype>* v) {
  r.op.add_block(s, v, std::int64_t{});
};

/// True when reduction `R`'s accumulator adds a whole chunk of values at
/// once given their first position (`add_block` of an argmax).
template <class R, class State>
inline constexpr bool takes_positioned_blocks = requires(const R& r, State& s,
                                                         const compute_t<kernel_numerics, R::input_dtype>* v) {
  r.op.add_block(s, v, std::int64_t{}, std::int64_t{});
};

/// True when reduction `R` adds whole chunks, positioned or not: its rows
/// take one lane (its own lanes are inside `add_block`), so that a row
/// neither clears nor merges lanes it never uses.
template <class R, class State>
inline constexpr bool adds_blocks = takes_blocks<R, State> || takes_positioned_blocks<R, State>;

/// True when reduction `R`'s accumulator adds several short rows at once
/// (`add_rows`), vectorizing across them what it computes per element.
template <class R, class State>
inline constexpr bool takes_rows = requires(const R& r, State* s, const compute_t<kernel_numerics, R::input_dtype>* v) {
  r.op.template add_rows<chunk>(s, v, std::int64_t{}, std::int64_t{});
};

/// True when reduction `R`'s add chooses one of two values (max, min) and its
/// `n_lanes` states fill one 32-byte vector: its lanes loop stays a loop
/// (FUSEDSL_ROLLED_LANES; a row max of 64 floats three times faster). Sums,
/// and 32 lanes of a max, are faster unrolled.
template <class R, class State, int n_lanes>
inline constexpr bool lanes_stay_rolled = n_lanes * sizeof(State) <= 32 &&
                                          (std::is_same_v<typename R::op_type, ops::max> ||
                                           std::is_same_v<typename R::op_type, ops::min>);

/// Adds the `m` values `value(i)` of a chunk at reduced elements `at`,
/// `at + 1`, ... to `lanes`. Lane l takes elements l, l + lanes, ...: a
/// fixed assignment, so the order of additions is the same on every run.
template <int n_lanes, class R, class State, class Value>
FUSEDSL_FORCEINLINE void add_to_lanes(const R& r, State* lanes, std::int64_t m, std::int64_t at, const Value& value) {
  std::int64_t i = 0;
  if constexpr (lanes_stay_rolled<R, State, n_lanes>) {
    for (; i + n_lanes <= m; i += n_lanes) {
      FUSEDSL_ROLLED_LANES
      for (int l = 0; l < n_lanes; ++l)  // vectorized: reduction lanes
        r.op.add(lanes[l], value(i + l), at + i + l);
    }
  } else {
    for (; i + n_lanes <= m; i += n_lanes)
      for (int l = 0; l < n_lanes; ++l)  // vectorized: reduction lanes
        r.op.add(lanes[l], value(i + l), at + i + l);
  }
  for (; i < m; ++i) r.op.add(lanes[i % n_lanes], value(i), at + i);
}

/// True when reduction `R`'s operand is a leaf stored as its accumulator
/// type (a float tensor's var): a chunk's values are then the leaf's
/// prepared elements, which `add_block` reads where they lie, not copied.
template <class R>
inline constexpr bool reads_leaf_in_place = [] {
  using Arg = std::remove_cvref_t<decltype(std::declval<const R&>().arg)>;
  if constexpr (is_pointwise_node<Arg> || is_computed_leaf<Arg> || leaf_slots<Arg>() != 1) return false;
  else return std::is_same_v<leaf_storage_t<Arg>, compute_t<kernel_numerics, R::input_dtype>>;
}();

/// Adds the `m` (at most a chunk) reduced elements at leaf offsets `base`,
/// `step` apart, reduced positions `at`, `at + 1`, ..., to `lanes`. With
/// `kept`, the operand's values are also stored there.
template <int n_lanes, class R, class State, class Leaves>
FUSEDSL_FORCEINLINE void add_chunk(const R& r, Leaves& leaves, const void* const* data, const std::int64_t* base,
                                   const std::int64_t* step, std::int64_t m, std::int64_t at, State* lanes,
                                   compute_t<kernel_numerics, R::input_dtype>* kept) {
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  leaves.prepare(data, base, step, m);
  alignas(64) acc_type local[chunk];
  acc_type* values = kept ? kept : local;
  const acc_type* block = values;  // what add_block reads
  if (adds_blocks<R, State> && reads_leaf_in_place<R> && !kept) block = static_cast<const acc_type*>(leaves.leaf[0]);
  else if (kept || adds_blocks<R, State>) evaluate_chunk(r.arg, leaves.leaf, values, m);
  if constexpr (takes_blocks<R, State>) r.op.add_block(lanes[0], block, m);
  else if constexpr (takes_positioned_blocks<R, State>) r.op.add_block(lanes[0], block, m, at);
  else if (kept) add_to_lanes<n_lanes>(r, lanes, m, at, [&](std::int64_t i) { return values[i]; });
  else
    add_to_lanes<n_lanes>(r, lanes, m, at, [&](std::int64_t i) {
      return static_cast<acc_type>(evaluate<kernel_numerics, 0>(r.arg, chunk_reader{leaves.leaf, i}));
    });
}

/// add_chunk over the `run` reduced elements at leaf offsets `base` (advanced
/// past them), a chunk at a time.
template <int n_lanes, class R, class State, class Leaves>
FUSEDSL_FORCEINLINE void add_run(const R& r, Leaves& leaves, const void* const* data, std::int64_t* base,
                                 const std::int64_t* step, std::int64_t run, std::int64_t at, State* lanes,
                                 compute_t<kernel_numerics, R::input_dtype>* kept) {
  for (std::int64_t done = 0; done < run; done += chunk) {
    const std::int64_t m = std::min(chunk, run - done);
    add_chunk<n_lanes>(r, leaves, data, base, step, m, at + done, lanes, kept ? kept + done : nullptr);
    for (std::size_t k = 0; k < Leaves::slots; ++k) base[k] += m * step[k];
  }
}

/// `lanes` merged into lanes[0] pairwise, the upper part into the lower, so
/// that the first rounds vectorize and a chain of dependent merges is
/// log2(n_lanes) long: merged one after the other, the 31 scalar merges of a
/// float max would take most of a 1024-element row's time. A fixed order, as
/// the lanes.
/// Each round's width is a constant, so that the rounds are straight-line
/// code on registers (a loop over the widths kept the lanes on the stack, a
/// store and a load in each round of every row).
template <int n_lanes, class R, class State>
FUSEDSL_FORCEINLINE void merge_lanes(const R& r, State* lanes) {
  if constexpr (n_lanes > 1) {
    constexpr int upper = n_lanes / 2, lower = n_lanes - upper;
    for (int l = 0; l < upper; ++l) r.op.merge(lanes[l], lanes[lower + l]);  // vectorized: lane merges
    merge_lanes<lower>(r, lanes);
  }
}

/// Accumulates reduction `r` of kept element `row` over reduced elements
/// [j0, j1) (flat, row-major over the reduced axes) into `state`. With
/// `kept` (the row's element 0), the operand's values are also stored
/// there, for a later loop of the group that reads the same operand.
template <class R, class State, int n_lanes = reduction_lanes<State>>
FUSEDSL_CPU_KERNEL void accumulate(const R& reduction, const node_runtime& n, const reduction_axes& axes,
                                   const tile_operands& t, std::int64_t row, std::int64_t j0, std::int64_t j1,
                                   State& state, compute_t<kernel_numerics, R::input_dtype>* kept = nullptr) {
  const R r = reduction;  // a local copy: see chunk_reader
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const int last = axes.n_reduced - 1;
  const std::int64_t row_len = last < 0 ? 1 : axes.reduced_sizes[last];
  std::int64_t row_base[slots + 1], base[slots + 1], step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) {
    row_base[k] = axes.row_offset(row, n.leaves[k].strides) - t.bias[k];
    step[k] = last < 0 ? 0 : n.leaves[k].strides[axes.reduced[last]];
  }
  State lanes[n_lanes] = {};
  lanes[0] = state;
  chunk_leaves<Arg> leaves(n);
  shape index = unravel(j0, axes.reduced_sizes);
  std::int64_t j = j0;
  while (j < j1) {
    const std::int64_t start = last < 0 ? 0 : index[last];
    const std::int64_t run = std::min(j1 - j, row_len - start);
    for (std::size_t k = 0; k < slots; ++k) {
      base[k] = row_base[k];
      for (int m = 0; m < axes.n_reduced; ++m) base[k] += index[m] * n.leaves[k].strides[axes.reduced[m]];
    }
    add_run<n_lanes>(r, leaves, t.data, base, step, run, j, lanes, kept ? kept + j : nullptr);
    j += run;
    if (last >= 0) {
      index[last] = 0;
      step_index(index, axes.reduced_sizes, last - 1);
    }
  }
  merge_lanes<n_lanes>(r, lanes);
  state = lanes[0];
}

/// Where the rows of a reduction over one axis lie: along the innermost kept
/// axis a fixed step apart (`row_step` per leaf slot, `out_row_step`), each
/// row's elements `step` apart, so that a run of rows needs no index
/// arithmetic until that axis ends.
template <std::size_t slots>
struct one_axis_rows {
  std::int64_t row_step[slots + 1], step[slots + 1];
  std::int64_t out_row_step, kept_extent;
  one_axis_rows(const node_runtime& n, const reduction_axes& axes) {
    const int inner_kept = axes.kept[axes.n_kept - 1], along = axes.reduced[0];
    for (std::size_t k = 0; k < slots; ++k) {
      row_step[k] = n.leaves[k].strides[inner_kept];
      step[k] = n.leaves[k].strides[along];
    }
    out_row_step = n.out.strides[inner_kept];
    kept_extent = axes.kept_sizes[axes.n_kept - 1];
  }
  /// The rows from `row` on, before `end` and at most `at_most`, that are a fixed step apart.
  std::int64_t run(std::int64_t row, std::int64_t end, std::int64_t at_most) const {
    return std::min({at_most, end - row, kept_extent - row % kept_extent});
  }
};

/// Reduction node `r` over rows [begin, end) along one reduced axis, each
/// row whole: the rows along the innermost kept axis are a fixed step apart,
/// so that a row costs its adds and its lanes' merge, not the index
/// arithmetic of `accumulate` (which a row of a few hundred elements feels).
template <class Out, class R, int n_lanes>
FUSEDSL_CPU_KERNEL void reduction_rows_along(const R& reduction, const node_runtime& n, const reduction_axes& axes,
                                             const tile_operands& t, std::int64_t begin, std::int64_t end,
                                             compute_t<kernel_numerics, R::input_dtype>* kept) {
  const R r = reduction;  // a local copy: see chunk_reader
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  using State = reduction_state<R>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const std::int64_t cols = n.inner;
  const one_axis_rows<slots> at(n, axes);
  std::int64_t row_base[slots + 1], base[slots + 1];
  Out* out = static_cast<Out*>(t.out);
  chunk_leaves<Arg> leaves(n);
  for (std::int64_t row = begin; row < end;) {
    const std::int64_t rows = at.run(row, end, end - row);
    for (std::size_t k = 0; k < slots; ++k) row_base[k] = axes.row_offset(row, n.leaves[k].strides) - t.bias[k];
    Out* row_out = out + axes.row_offset(row, n.out.strides) - t.out_bias;
    for (std::int64_t i = 0; i < rows; ++i) {
      State lanes[n_lanes] = {};
      auto* row_kept = kept ? kept + (row - begin + i) * cols : nullptr;
      if (cols <= chunk) {  // a row in one chunk: no loop over chunks, no offsets to advance
        add_chunk<n_lanes>(r, leaves, t.data, row_base, at.step, cols, 0, lanes, row_kept);
      } else {
        for (std::size_t k = 0; k < slots; ++k) base[k] = row_base[k];
        add_run<n_lanes>(r, leaves, t.data, base, at.step, cols, 0, lanes, row_kept);
      }
      for (std::size_t k = 0; k < slots; ++k) row_base[k] += at.row_step[k];
      merge_lanes<n_lanes>(r, lanes);
      row_out[i * at.out_row_step] = static_cast<Out>(r.op.finish(lanes[0], cols));
    }
    row += rows;
  }
}

/// The `rows` rows of C values at `values`, each added in order into its
/// own state and finished into `row_out`: with C known, a row's adds unroll
/// and the loop over the rows vectorizes.
template <int C, class Out, class R, class Acc>
FUSEDSL_FORCEINLINE void add_fixed_rows(const R& r, const Acc* values, std::int64_t rows, Out* row_out,
                                        std::int64_t out_row_step) {
  for (std::int64_t i = 0; i < rows; ++i) {  // vectorized: rows of fixed width
    reduction_state<R> state{};
    for (int j = 0; j < C; ++j) r.op.add(state, values[i * C + j], j);
    row_out[i * out_row_step] = static_cast<Out>(r.op.finish(state, C));
  }
}

/// True when reduction `R` adds rows of 2 to 8 elements faster in a loop of
/// their width than otherwise: not argmax and argmin (their positioned adds
/// ran 3x slower so), nor logsumexp (an element's add rescales the sum: 2.3x
/// slower than its add_rows). The variance's Welford adds do (2.6x).
template <class R>
inline constexpr bool adds_fixed_rows = [] {
  using Op = std::remove_cvref_t<decltype(std::declval<const R&>().op)>;
  return !takes_positioned_blocks<R, reduction_state<R>> && !std::is_base_of_v<ops::logsumexp, Op>;
}();

/// add_fixed_rows for the widths that have a loop of their own (row sums of
/// 2 to 8 elements 1.6-2.5x faster than four rows side by side; of 10 a
/// softmax's max was slower, figures: bench/RESULTS.md); false for other
/// widths and reductions that do not (`adds_fixed_rows`).
template <class Out, class R, class Acc>
FUSEDSL_FORCEINLINE bool add_rows_of_fixed_width(const R& r, const Acc* values, std::int64_t rows, std::int64_t cols,
                                                 Out* row_out, std::int64_t out_row_step) {
  if constexpr (!adds_fixed_rows<R>) return false;
  switch (cols) {
    case 2: add_fixed_rows<2>(r, values, rows, row_out, out_row_step); return true;
    case 3: add_fixed_rows<3>(r, values, rows, row_out, out_row_step); return true;
    case 4: add_fixed_rows<4>(r, values, rows, row_out, out_row_step); return true;
    case 8: add_fixed_rows<8>(r, values, rows, row_out, out_row_step); return true;
    default: return false;
  }
}

/// Reduction node `r` over rows [begin, end) of at most a quarter of a
/// chunk each (one reduced axis): the operand is evaluated for several rows
/// at once (`prepare_rows`), then each row adds its few values in order
/// into one state, or the reduction adds the rows at once (`takes_rows`).
/// Lanes and their merge would cost more than such a row.
template <class Out, class R>
FUSEDSL_CPU_KERNEL void short_reduction_rows(const R& reduction, const node_runtime& n, const reduction_axes& axes,
                                             const tile_operands& t, std::int64_t begin, std::int64_t end,
                                             compute_t<kernel_numerics, R::input_dtype>* kept) {
  const R r = reduction;  // a local copy: see chunk_reader
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const std::int64_t cols = n.inner, rows_at_once = rows_per_chunk(cols);
  const one_axis_rows<slots> at(n, axes);
  const std::int64_t out_row_step = at.out_row_step;
  std::int64_t base[slots + 1];
  Out* out = static_cast<Out*>(t.out);
  chunk_leaves<Arg> leaves(n);
  for (std::int64_t row = begin; row < end;) {
    const std::int64_t rows = at.run(row, end, rows_at_once);
    for (std::size_t k = 0; k < slots; ++k) base[k] = axes.row_offset(row, n.leaves[k].strides) - t.bias[k];
    leaves.prepare_rows(t.data, base, at.row_step, at.step, rows, cols);
    alignas(64) acc_type local[chunk];
    acc_type* values = kept ? kept + (row - begin) * cols : local;
    evaluate_chunk(r.arg, leaves.leaf, values, rows * cols);
    // Four rows side by side: their chains of adds are independent, so they
    // overlap (a logsumexp's or a variance's add is a long chain), and four
    // states stay in registers.
    Out* row_out = out + axes.row_offset(row, n.out.strides) - t.out_bias;
    if (add_rows_of_fixed_width(r, values, rows, cols, row_out, out_row_step)) {
      row += rows;
      continue;
    }
    if constexpr (takes_rows<R, reduction_state<R>>) {
      reduction_state<R> states[chunk];
      r.op.template add_rows<chunk>(states, values, rows, cols);
      for (std::int64_t i = 0; i < rows; ++i)
        row_out[i * out_row_step] = static_cast<Out>(r.op.finish(states[i], cols));
      row += rows;
      continue;
    }
    std::int64_t i = 0;
    for (; i + 4 <= rows; i += 4) {
      reduction_state<R> s0{}, s1{}, s2{}, s3{};
      const acc_type* v = values + i * cols;
      for (std::int64_t j = 0; j < cols; ++j) {
        r.op.add(s0, v[j], j);
        r.op.add(s1, v[cols + j], j);
        r.op.add(s2, v[2 * cols + j], j);
        r.op.add(s3, v[3 * cols + j], j);
      }
      row_out[i * out_row_step] = static_cast<Out>(r.op.finish(s0, cols));
      row_out[(i + 1) * out_row_step] = static_cast<Out>(r.op.finish(s1, cols));
      row_out[(i + 2) * out_row_step] = static_cast<Out>(r.op.finish(s2, cols));
      row_out[(i + 3) * out_row_step] = static_cast<Out>(r.op.finish(s3, cols));
    }
    for (; i < rows; ++i) {
      reduction_state<R> state{};
      for (std::int64_t j = 0; j < cols; ++j) r.op.add(state, values[i * cols + j], j);
      row_out[i * out_row_step] = static_cast<Out>(r.op.finish(state, cols));
    }
    row += rows;
  }
}

/// Reduction node `r` for kept elements [begin, end), storing `Out`
/// elements. With `kept`, its operand's values too, row after row.
template <class Out, class R>
void reduction_rows(const R& r, const node_runtime& n, const tile_operands& t, std::int64_t begin, std::int64_t end,
                    void* kept = nullptr) {
  const reduction_axes axes(n);
  Out* out = static_cast<Out*>(t.out);
  auto* kept_values = static_cast<compute_t<kernel_numerics, R::input_dtype>*>(kept);
  using State = reduction_state<R>;
  if (axes.n_reduced == 1 && axes.n_kept > 0) {
    if (rows_per_chunk(n.inner) > 1) return short_reduction_rows<Out>(r, n, axes, t, begin, end, kept_values);
    if constexpr (adds_blocks<R, State>) return reduction_rows_along<Out, R, 1>(r, n, axes, t, begin, end, kept_values);
    else if (n.inner <= short_row_length)
      return reduction_rows_along<Out, R, short_row_lanes<State>>(r, n, axes, t, begin, end, kept_values);
    else return reduction_rows_along<Out, R, reduction_lanes<State>>(r, n, axes, t, begin, end, kept_values);
  }
  for (std::int64_t row = begin; row < end; ++row) {
    State state{};
    auto* row_kept = kept_values ? kept_values + (row - begin) * n.inner : nullptr;
    if constexpr (adds_blocks<R, State>) accumulate<R, State, 1>(r, n, axes, t, row, 0, n.inner, state, row_kept);
    else if (n.inner <= short_row_length)
      accumulate<R, State, short_row_lanes<State>>(r, n, axes, t, row, 0, n.inner, state, row_kept);
    else accumulate(r, n, axes, t, row, 0, n.inner, state, row_kept);
    out[axes.row_offset(row, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(state, n.inner));
  }
}

}  // namespace fusedsl::cpu_detail
