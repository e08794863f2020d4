/// @file columns.hpp
/// The CPU's column-reduction kernel class (reduced leading axes, kept
/// trailing ones): tasks of (column block, part of the rows) add whole
/// rows, read in memory order, into their own vector of column states
/// (`accumulate_columns`); the parts of each column then merge in order
/// (`reduction_columns`).
#pragma once
#include <atomic>       // std::atomic
#include <algorithm>    // std::min, std::max, std::clamp, std::all_of
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <cstring>      // std::memcpy
#include <memory>       // std::uninitialized_default_construct_n
#include <numeric>      // std::gcd
#include <type_traits>  // std::remove_cvref_t, std::is_trivially_copyable_v, std::conditional_t
#include <vector>       // std::vector

#include <fusedsl/backend/cpu/chunks.hpp>          // chunk, chunk_leaves, chunk_reader, tile_operands
#include <fusedsl/backend/cpu/indexing.hpp>        // unravel, step_index
#include <fusedsl/backend/cpu/reduction_axes.hpp>  // reduction_axes, reduction_state
#include <fusedsl/core/config.hpp>                 // FUSEDSL_CPU_KERNEL
#include <fusedsl/core/fault.hpp>                  // detail::current_faults, detail::fault_scope
#include <fusedsl/core/host_memory.hpp>            // allocate_host, host_array, host_alignment
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/core/shape.hpp>                  // shape
#include <fusedsl/expr/evaluate.hpp>               // evaluate
#include <fusedsl/expr/traverse.hpp>               // leaf_slots
#include <fusedsl/runtime/nodes.hpp>               // node_runtime

namespace fusedsl::cpu_detail {

using detail::allocate_host;
using detail::host_array;
using detail::node_runtime;

/// Columns a column-reduction task covers: the states of a block stay in
/// the L1/L2 cache while whole rows of the block stream past them.
inline constexpr std::int64_t column_block = 2048;

/// Parts the reduced rows of a column reduction are cut into, so that a
/// reduction with few column blocks still has a task per thread: fixed by
/// the sizes alone (64 tasks at least, rows of 16 or more per part), never
/// by the thread count, so results do not depend on it.
inline std::int64_t column_parts(std::int64_t columns, std::int64_t rows) {
  const std::int64_t blocks = (columns + column_block - 1) / column_block;
  return std::clamp<std::int64_t>(64 / std::max<std::int64_t>(blocks, 1), 1, std::max<std::int64_t>(rows / 16, 1));
}

/// Column blocks this narrow or narrower add two rows per pass: their
/// per-row work, not their memory, bounds them. So do states kept member
/// by member (`split_members`) at any width: each member is then loaded
/// and stored once per two rows.
inline constexpr std::int64_t narrow_columns = 64;

/// An unsigned integer of `Bytes` bytes (4 or 8), else void.
template <std::size_t Bytes>
using member_bits = std::conditional_t<Bytes == 4, std::uint32_t, std::conditional_t<Bytes == 8, std::uint64_t, void>>;

/// Members a column task keeps apart while it adds rows: a state the size
/// of 2 to 4 accumulators (var's mean, m2 and count) is kept as that many
/// arrays of their bits (`member_bits`: copies, no arithmetic), so that the
/// loop over a row's columns loads and stores each member as a vector; an
/// array of such states moves every member element by element (most of a
/// column variance's time). 1: the states as they are.
template <class R>
inline constexpr int split_members = [] {
  using state = reduction_state<R>;
  constexpr std::size_t member = sizeof(compute_t<kernel_numerics, R::input_dtype>), k = sizeof(state) / member;
  return std::is_trivially_copyable_v<state> && !std::is_void_v<member_bits<member>> && sizeof(state) % member == 0 &&
                 k >= 2 && k <= 4
             ? static_cast<int>(k)
             : 1;
}();

/// Adds reduced elements (rows) [j0, j1) of columns [c0, c1) (at most
/// `column_block`) into `states[c - c0]`: each row's columns are read in
/// order, a chunk at a time.
template <class R>
FUSEDSL_CPU_KERNEL void accumulate_columns(const R& reduction, const node_runtime& n, const reduction_axes& axes,
                                           const tile_operands& t, std::int64_t c0, std::int64_t c1, std::int64_t j0,
                                           std::int64_t j1, reduction_state<R>* states) {
  const R r = reduction;  // a local copy: see chunk_reader
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const int last = axes.n_kept - 1;  // the innermost kept axis: contiguous columns
  const std::int64_t row_len = axes.kept_sizes[last];
  chunk_leaves<Arg> leaves(n), next(n);
  std::int64_t row_base[slots + 1], base[slots + 1], step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) step[k] = n.leaves[k].strides[axes.kept[last]];
  // The chunks of columns [c0, c1), each on one innermost kept row: the same
  // for every reduced row, so their offsets are worked out once, here, and
  // not per row (a division per chunk is a noticeable share of an in-cache column sum).
  // Leaves that all step by 1 are read in place, so their chunks may be as
  // wide as the row: the per-chunk work then comes once per row, not per
  // 128 columns (not with index or gathered leaves: they are computed into a chunk's staging).
  struct column_chunk {
    std::int64_t first, width, offset[slots + 1];
  };
  const bool in_place =
      !chunk_leaves<Arg>::computes_slots && std::all_of(step, step + slots, [](std::int64_t s) { return s == 1; });
  const std::int64_t widest = in_place ? c1 - c0 : chunk;
  std::vector<column_chunk> chunks;
  for (std::int64_t c = c0; c < c1;) {
    column_chunk& cc = chunks.emplace_back();
    cc.first = c - c0;
    cc.width = std::min({widest, c1 - c, row_len - c % row_len});
    for (std::size_t k = 0; k < slots; ++k) cc.offset[k] = axes.row_offset(c, n.leaves[k].strides);
    c += cc.width;
  }
  // Rows come in runs along the innermost reduced axis, over which each
  // leaf's row offset steps by a constant: narrow rows are mostly per-row
  // work, so that work is an addition per leaf, not a multi-index.
  const int inner = axes.n_reduced - 1;
  const bool pairs = c1 - c0 <= narrow_columns || split_members<R> > 1;
  std::int64_t row_step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) row_step[k] = n.leaves[k].strides[axes.reduced[inner]];
  const auto value = [&](const chunk_leaves<Arg>& from, std::int64_t i) {  // column i of a prepared row
    return static_cast<acc_type>(evaluate<kernel_numerics, 0>(r.arg, chunk_reader{from.leaf, i}));
  };
  // The states, member by member while the rows add (`split_members`), copied in and out.
  using state = reduction_state<R>;
  constexpr int members = split_members<R>;
  using bits = std::conditional_t<(members > 1), member_bits<sizeof(acc_type)>, unsigned char>;
  bits split[members > 1 ? members * column_block : 1];
  const std::int64_t width = c1 - c0;
  const auto load = [&](std::int64_t i) {
    if constexpr (members > 1) {
      bits m[members];
      for (int k = 0; k < members; ++k) m[k] = split[k * column_block + i];
      state v;
      std::memcpy(&v, m, sizeof v);
      return v;
    } else return states[i];
  };
  const auto store = [&](std::int64_t i, const state& v) {
    if constexpr (members > 1) {
      bits m[members];
      std::memcpy(m, &v, sizeof v);
      for (int k = 0; k < members; ++k) split[k * column_block + i] = m[k];
    } else states[i] = v;
  };
  if constexpr (members > 1)
    for (std::int64_t i = 0; i < width; ++i) store(i, states[i]);
  // Ops that take a value with its state's count and the count's reciprocal
  // (`add_nth`: var and std) get them once per row: the states start fresh
  // (reduction_columns), so after row j each holds j - j0 + 1 values.
  constexpr bool counted = requires(state & s, acc_type v) { r.op.add_nth(s, v, v, v); };
  struct row_count {
    acc_type n, inverse;
  };
  const auto count_at = [&](std::int64_t j) {
    row_count c{};
    if constexpr (counted) c.n = static_cast<acc_type>(j - j0 + 1), c.inverse = acc_type(1) / c.n;
    return c;
  };
  const auto add = [&](state& s, acc_type v, std::int64_t at, const row_count& c) {
    if constexpr (counted) r.op.add_nth(s, v, c.n, c.inverse);
    else r.op.add(s, v, at);
  };
  shape reduced_index = unravel(j0, axes.reduced_sizes);
  for (std::int64_t j = j0; j < j1;) {
    const std::int64_t run_end = j + std::min(j1 - j, axes.reduced_sizes[inner] - reduced_index[inner]);
    for (std::size_t k = 0; k < slots; ++k) {
      row_base[k] = -t.bias[k];
      for (int m = 0; m < axes.n_reduced; ++m) row_base[k] += reduced_index[m] * n.leaves[k].strides[axes.reduced[m]];
    }
    // Narrow rows two at a time, for half the per-row work: each state is
    // loaded and stored once for both and takes them in row order, as one
    // row at a time would. (One row at a time is much slower for rows of
    // 256 to 1024 floats; bench/RESULTS.md.)
    while (j < run_end) {
      const bool two = pairs && j + 1 < run_end;
      const row_count first_count = count_at(j), second_count = count_at(j + 1);
      for (const column_chunk& cc : chunks) {
        for (std::size_t k = 0; k < slots; ++k) base[k] = row_base[k] + cc.offset[k];
        leaves.prepare_apart(t.data, base, step, cc.width);
        if (two) {
          for (std::size_t k = 0; k < slots; ++k) base[k] += row_step[k];
          next.prepare_apart(t.data, base, step, cc.width);
          for (std::int64_t i = 0; i < cc.width; ++i) {  // vectorized: column states
            // A local state, so that it is stored once: with both adds on
            // the array's, GCC stores it after each (much slower).
            state both = load(cc.first + i);
            add(both, value(leaves, i), j, first_count);
            add(both, value(next, i), j + 1, second_count);
            store(cc.first + i, both);
          }
        } else {
          for (std::int64_t i = 0; i < cc.width; ++i) {  // vectorized: column states
            state one = load(cc.first + i);
            add(one, value(leaves, i), j, first_count);
            store(cc.first + i, one);
          }
        }
      }
      const std::int64_t done = two ? 2 : 1;
      for (std::size_t k = 0; k < slots; ++k) row_base[k] += done * row_step[k];
      j += done;
    }
    reduced_index[inner] = 0;  // the next run
    step_index(reduced_index, axes.reduced_sizes, inner - 1);
  }
  if constexpr (members > 1)
    for (std::int64_t i = 0; i < width; ++i) states[i] = load(i);
}

/// Column reduction `r` (reduced leading axes, kept trailing ones), the
/// whole node: tasks of (column block, part of the rows) add whole rows of
/// their block into their own states, read in memory order; the parts of
/// each column are then merged in order.
template <class Out, class R>
void reduction_columns(const R& r, const node_runtime& n, const tile_operands& t) {
  const reduction_axes axes(n);
  const std::int64_t columns = n.outer, rows = n.inner;
  const std::int64_t parts = column_parts(columns, rows);
  const std::int64_t blocks = (columns + column_block - 1) / column_block;
  // Each part's states start on a cache line; each task sets up its own, in
  // the thread that adds into them.
  using state = reduction_state<R>;
  constexpr auto per_line = static_cast<std::int64_t>(host_alignment / std::gcd(host_alignment, sizeof(state)));
  const std::int64_t part_stride = (columns + per_line - 1) / per_line * per_line;
  const host_array<state> partial(allocate_host<state>(static_cast<std::size_t>(parts * part_stride)));
  Out* out = static_cast<Out*>(t.out);
  detail::run_faults* const faults = detail::current_faults;
#pragma omp parallel if (columns * rows > chunk * chunk)
  {
    const detail::fault_scope fault_word(faults);
#pragma omp for schedule(static)
    for (std::int64_t task = 0; task < blocks * parts; ++task) {
      const std::int64_t block = task / parts, part = task % parts;
      const std::int64_t c0 = block * column_block, c1 = std::min(columns, c0 + column_block);
      state* states = partial.get() + part * part_stride + c0;
      std::uninitialized_default_construct_n(states, c1 - c0);
      accumulate_columns(r, n, axes, t, c0, c1, rows * part / parts, rows * (part + 1) / parts, states);
    }
    // Part 0 of a chunk of columns takes the other parts in order, part by
    // part: each part's states are read in memory order, in a loop that
    // vectorizes (column by column, the parts lie `part_stride` states
    // apart, and the merges would be a scalar chain: a noticeable share of a
    // column sum's time).
#pragma omp for schedule(static)
    for (std::int64_t c0 = 0; c0 < columns; c0 += chunk) {
      const std::int64_t width = std::min(chunk, columns - c0);
      state* first = partial.get() + c0;
      for (std::int64_t part = 1; part < parts; ++part) {
        const state* other = partial.get() + part * part_stride + c0;
        for (std::int64_t c = 0; c < width; ++c) r.op.merge(first[c], other[c]);  // vectorized: column parts
      }
      for (std::int64_t c = 0; c < width; ++c)
        out[axes.row_offset(c0 + c, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(first[c], rows));
    }
  }
}

}  // namespace fusedsl::cpu_detail
