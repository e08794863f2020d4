/// @file short_rows.hpp
/// The CUDA short-row kernel class: `short_row_kernel` runs a row group
/// whose rows have at most `short_row_limit` elements a row per thread, a
/// block's rows at a time. Rows of at least FUSEDSL_CUDA_SHORT_ROW_STAGED
/// elements go through shared memory: the block stages the rows of the
/// placeholder that several nodes read (`group_args::cached`) with coalesced
/// loads, and the rows of each pointwise node's output back out with
/// coalesced stores (operands whose rows are contiguous:
/// `vector_access::contiguous`); shorter rows are read and written by each
/// thread directly. Each thread then adds (or scans) its row's elements in
/// order, with no shuffles and no barrier per reduction; where each operand
/// of a node is read from is decided once per row (`read_row`). The row
/// kernel (rows.hpp) would give rows of 3 and 10 a few threads each, with a
/// shuffle tree and 64-bit offsets per element (bench/RESULTS.md).
#pragma once
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::remove_pointer_t, std::is_same_v
#include <utility>      // std::make_integer_sequence

#include <fusedsl/backend/cuda/gather.hpp>  // gather_held, evaluate_slots, with_output, slot_values, slot_t, computed_offsets, store
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args, operand, vector_access
#include <fusedsl/backend/cuda/program_nodes.hpp>  // memory_leaf_index, memory_leaf_t, producer, is_reduction_at
#include <fusedsl/backend/cuda/rows.hpp>           // cacheable, row_value
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/gather.hpp>                 // is_computed_leaf
#include <fusedsl/expr/traverse.hpp>               // leaf_slots, leaf_storage_t

namespace fusedsl::cuda_detail {

/// Longest rows the short-row kernel takes.
inline constexpr int short_row_limit = 32;

/// Elements between two rows in the shared-memory tiles: odd, so that the
/// threads of a warp, each reading its own row, hit different banks.
FUSEDSL_HOST_DEVICE constexpr int short_row_pitch(int inner) { return inner | 1; }

/// Where a thread of the short-row kernel works.
struct short_row {
  std::int64_t row = 0;  ///< in the group's space
  int tile = 0;          ///< the row's first element in the tiles (slot * pitch)
};

/// How a thread walks a tile of `blockDim.x` rows of `inner` elements, as
/// element i = threadIdx.x + k blockDim.x (k < inner): the row and column of
/// its first element and how far each step moves, so that no step divides
/// (computed once per kernel: the walk is the same for every tile).
struct tile_walk {
  int inner = 0, row = 0, column = 0, row_step = 0, column_step = 0;
  FUSEDSL_DEVICE explicit tile_walk(int row_length)
      : inner(row_length),
        row(static_cast<int>(threadIdx.x) / row_length),
        column(static_cast<int>(threadIdx.x) % row_length),
        row_step(static_cast<int>(blockDim.x) / row_length),
        column_step(static_cast<int>(blockDim.x) % row_length) {}
};

/// The block's rows `first` to `first + rows` (at most `blockDim.x`) of a
/// contiguous operand in `memory` into `tile` (rows `short_row_pitch` apart),
/// or back (`Out`): consecutive threads on consecutive elements.
template <bool Out, class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void copy_tile(T* memory, T* tile, std::int64_t first, int rows,
                                                  const tile_walk& w) {
  const int count = rows * w.inner, pitch = short_row_pitch(w.inner);
  memory += first * w.inner;
  int row = w.row, column = w.column, i = static_cast<int>(threadIdx.x);
#pragma unroll 4
  for (int k = 0; k < w.inner; ++k, i += static_cast<int>(blockDim.x)) {
    if (i < count) {
      T& element = tile[row * pitch + column];
      if constexpr (Out) memory[i] = element;
      else element = memory[i];
    }
    row += w.row_step, column += w.column_step;
    if (column >= w.inner) column -= w.inner, ++row;
  }
}

/// Where the thread's row of slot S of node J (and of the following slots)
/// is read: the staged tile, elements `step` apart from `at` in memory, or
/// (neither) a value held for the whole row (a param, a reduction's result
/// in registers). Decided once per row (`read_row`): the choice is the same
/// for every element, and deciding it per element cost more than the reads.
template <class E, std::size_t S = 0, bool = (S < leaf_slots<E>())>
struct row_reads {
  bool staged = false;  ///< in the staged tile at the row's place (a shared-memory load: not through `at`)
  const slot_t<leaf_at<E, S>>* at = nullptr;
  std::int64_t step = 0;
  slot_t<leaf_at<E, S>> held{};
  row_reads<E, S + 1> rest;
};
template <class E, std::size_t S>
struct row_reads<E, S, false> {};

/// Fills `to` for slot `S` (and the following ones) of node J over the
/// thread's row. Computed slots (index and gathered leaves) are left to
/// `read_element`, which computes their offsets per element.
template <class P, int J, std::size_t S>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void read_row(const group_args<P>& a, const node_values<P, 1>& regs,
                                                 const unsigned char* staged, const short_row& r,
                                                 row_reads<loop_t<P, J>, S>& to) {
  using E = loop_t<P, J>;
  if constexpr (S < leaf_slots<E>()) {
    using L = leaf_at<E, S>;
    if constexpr (!is_computed_leaf<L>) {
      using T = leaf_storage_t<L>;
      T held[1];
      if (gather_held<P, J, S, true>(a, regs, held)) {
        to.held = held[0];
      } else {
        constexpr int placeholder = memory_leaf_index<P, L>();
        bool is_staged = false;
        if constexpr (placeholder >= 0 && cacheable<P, placeholder>) is_staged = a.cached == placeholder;
        const operand& o = a.leaves[slot_base<P>[J] + static_cast<int>(S)];
        // A short-row group has at most one kept and exactly one reduced axis (executor.hpp).
        if (is_staged) to.staged = true;
        else to.at = static_cast<const T*>(o.data) + r.row * o.kept[0], to.step = o.reduced[0];
      }
    }
    read_row<P, J, S + 1>(a, regs, staged, r, to.rest);
  }
}

/// Slot `S` (and the following ones) of node J at element `j` of the
/// thread's row, from where `read_row` found them.
template <class P, int J, std::size_t S>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void read_element(const group_args<P>& a, const row_reads<loop_t<P, J>, S>& from,
                                                     const unsigned char* staged, const short_row& r, int j,
                                                     slot_values<loop_t<P, J>, 1>& out) {
  using E = loop_t<P, J>;
  if constexpr (S < leaf_slots<E>()) {
    using L = leaf_at<E, S>;
    auto& to = slot_of<S>(out);
    if constexpr (is_computed_leaf<L>)
      computed_offsets<false, 1>(a.leaves[slot_base<P>[J] + static_cast<int>(S)], a.space,
                                 position<std::int64_t>{r.row, j}, to);
    else if constexpr (is_param_leaf<L>) to[0] = from.held;
    else if (from.staged) to[0] = reinterpret_cast<const leaf_storage_t<L>*>(staged)[r.tile + j];
    else to[0] = from.at != nullptr ? from.at[j * from.step] : from.held;
    read_element<P, J, S + 1>(a, from.rest, staged, r, j, out);
  }
}

/// Where the thread's row of pointwise node J's values is written: its
/// output tile or memory, `step` bytes apart from `at` (null: nowhere), as
/// its statement target's element type (`target`) or its own value type.
struct row_output {
  unsigned char* at = nullptr;
  std::int64_t step = 0;
  bool target = false;
};

/// Where the thread's row of pointwise node J goes (`out_tile`: the block's
/// output tile, used when the output's rows are contiguous).
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE row_output output_row(const group_args<P>& a, unsigned char* out_tile,
                                                         const short_row& r) {
  const operand& o = a.outs[J];
  row_output out;
  out.target = a.stores_target >> J & 1u;
  if (o.data == nullptr || (!out.target && distinct_at<P, J> < 0)) return out;
  const std::int64_t bytes = out.target ? sizeof(target_element_t<P, J>) : sizeof(value_t<P, J>);
  if (o.access == vector_access::contiguous) out.at = out_tile + r.tile * bytes, out.step = bytes;
  else
    out.at = static_cast<unsigned char*>(const_cast<void*>(o.data)) + r.row * o.kept[0] * bytes,
    out.step = o.reduced[0] * bytes;
  return out;
}

/// Writes `value` as element `j` of the row `out` describes.
template <class P, int J, class C>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void write_element(const row_output& out, int j, C value) {
  using T = target_element_t<P, J>;
  unsigned char* to = out.at + j * out.step;
  if constexpr (distinct_at<P, J> >= 0 && !std::is_same_v<T, value_t<P, J>>) {
    if (!out.target) {
      *reinterpret_cast<value_t<P, J>*>(to) = static_cast<value_t<P, J>>(value);
      return;
    }
  }
  *reinterpret_cast<T*>(to) = static_cast<T>(value);
}

/// The values pointwise node J computes (its value's compute type), or scan
/// node J (its running value's).
template <class P, int J, bool = is_scan_at<P, J>>
struct element_value {
  using type = compute_t<kernel_numerics, loop_t<P, J>::value_dtype>;
};
template <class P, int J>
struct element_value<P, J, true> {
  using type = scan_value_t<P, J>;
};

/// Runs node J (and the following ones) over the thread's row: a reduction
/// adds the row in order, keeps its result in registers and stores it; a
/// pointwise node (or a scan, combining the row's elements in order) writes
/// each element to the output tile (then the block stores the tile) or, for
/// other outputs, to memory; a pointwise node over the rows (`per_row`)
/// computes and stores the row's one value.
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void short_row_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                        node_values<P, 1>& regs, const unsigned char* staged,
                                                        unsigned char* out_tile, const short_row& r, bool valid,
                                                        std::int64_t first, int rows, const tile_walk& walk) {
  if constexpr (J < node_count<P>) {
    if (a.active >> J & 1u) {
      const int inner = static_cast<int>(a.space.inner);
      if constexpr (is_reduction_at<P, J>) {
        using N = node_t<P, J>;
        using E = loop_t<P, J>;
        using C = compute_t<kernel_numerics, N::input_dtype>;
        const N& n = get<J>(nodes);
        if (valid) {
          state_t<P, J> state{};
          row_reads<E> reads;
          read_row<P, J, 0>(a, regs, staged, r, reads);
#pragma unroll 4
          for (int j = 0; j < inner; ++j) {
            slot_values<E, 1> slots{};
            read_element<P, J, 0>(a, reads, staged, r, j, slots);
            n.op.add(state, evaluate_slots<C, P, J>(n.arg, a, slots, 0), j);
          }
          const auto result = n.op.finish(state, a.space.inner);
          values_of<J>(regs)[0] = static_cast<value_t<P, J>>(result);
          const decltype(result) values[1] = {result};
          store<P, J, 1>(a, position<std::int64_t>{r.row, 0}, values);
        }
      } else if (!is_scan_at<P, J> && a.per_row >> J & 1u) {
        if (valid) row_value<P, J>(nodes, a, regs, r.row);
      } else {
        using E = loop_t<P, J>;
        using C = typename element_value<P, J>::type;
        const E& e = loop_of<distinct_at<P, J>>(get<J>(nodes));
        const bool tiled = a.outs[J].access == vector_access::contiguous;  // the same for the whole block
        C running{};
        if constexpr (is_scan_at<P, J>) running = node_t<P, J>::op_type::template identity<C>();
        const row_output out = output_row<P, J>(a, out_tile, r);
        if (valid && out.at != nullptr) {
          row_reads<E> reads;
          read_row<P, J, 0>(a, regs, staged, r, reads);
#pragma unroll 4
          for (int j = 0; j < inner; ++j) {
            slot_values<E, 1> slots{};
            read_element<P, J, 0>(a, reads, staged, r, j, slots);
            C value = evaluate_slots<C, P, J>(e, a, slots, 0);
            if constexpr (is_scan_at<P, J>) value = running = get<J>(nodes).op.combine(running, value);
            write_element<P, J>(out, j, value);
          }
        }
        if (tiled) {
          __syncthreads();
          with_output<P, J>(a, [&](auto* data) {
            using T = std::remove_pointer_t<decltype(data)>;
            copy_tile<true>(data, reinterpret_cast<T*>(out_tile), first, rows, walk);
          });
          __syncthreads();
        }
      }
    }
    short_row_nodes<P, J + 1>(nodes, a, regs, staged, out_tile, r, valid, first, rows, walk);
  }
}

/// Stages the block's rows of the cached placeholder (placeholder I or a
/// later one) into `tile`.
template <class P, int I>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void stage_cached(const group_args<P>& a, unsigned char* tile, std::int64_t first,
                                                     int rows, const tile_walk& walk) {
  if constexpr (I < memory_leaf_count<P>) {
    if constexpr (cacheable<P, I>) {
      if (a.cached == I) {
        using T = memory_leaf_t<P, I>;
        copy_tile<false>(static_cast<T*>(const_cast<void*>(a.leaves[a.cache_source].data)), reinterpret_cast<T*>(tile),
                         first, rows, walk);
        return;
      }
    }
    stage_cached<P, I + 1>(a, tile, first, rows, walk);
  }
}

/// Bytes of the staged placeholder's tile of `rows` rows of `inner`
/// elements (16-byte multiple; the output tile follows it when there is one).
template <class P>
FUSEDSL_HOST_DEVICE constexpr int staged_tile_bytes(int rows, int inner) {
  constexpr int bytes = cache_element_bytes<P>(std::make_integer_sequence<int, memory_leaf_count<P>>{});
  return (rows * short_row_pitch(inner) * bytes + 15) / 16 * 16;
}

/// Short-row group: a thread per row, `blockDim.x` rows per block; shared
/// memory holds the staged placeholder's tile (when `a.cached` >= 0), then
/// the output tile.
template <class P>
__global__ void __launch_bounds__(256)
    short_row_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int block_rows = static_cast<int>(blockDim.x), inner = static_cast<int>(a.space.inner);
  unsigned char* out_tile = shared + (a.cached >= 0 ? staged_tile_bytes<P>(block_rows, inner) : 0);
  const tile_walk walk(inner);
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * block_rows; first < a.space.outer;
       first += static_cast<std::int64_t>(gridDim.x) * block_rows) {
    const int rows = a.space.outer - first < block_rows ? static_cast<int>(a.space.outer - first) : block_rows;
    if (a.cached >= 0) {
      stage_cached<P, 0>(a, shared, first, rows, walk);
      __syncthreads();
    }
    const short_row r{first + threadIdx.x, static_cast<int>(threadIdx.x) * short_row_pitch(inner)};
    node_values<P, 1> regs;
    short_row_nodes<P, 0>(nodes, a, regs, shared, out_tile, r, static_cast<int>(threadIdx.x) < rows, first, rows, walk);
    __syncthreads();  // the tiles are read before the next rows overwrite them
  }
}

}  // namespace fusedsl::cuda_detail
