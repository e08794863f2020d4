/// @file split.hpp
/// The CUDA split kernel class: `split_kernel` cuts few long rows into
/// chunks, a block per chunk, each pass over its chunk as the row kernel
/// passes over a row (rows.hpp). A group of reductions only (none reading
/// another) leaves partial states that the row's last block merges in
/// order (partials.hpp). In any other group (softmax, layernorm:
/// reductions read by later nodes, pointwise nodes) the row's blocks meet
/// at a barrier before a node that reads a reduction, and every block
/// merges the row's partial states in the same order, so that all hold the
/// results for the nodes after it (independent reductions, as layernorm's
/// mean and variance, meet once): one launch, its blocks resident together
/// (a cooperative launch), the rows taken in waves of `gridDim.y` rows.
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/backend/cuda/gather.hpp>         // state_t, value_t, values_of, store, position
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args
#include <fusedsl/backend/cuda/merges.hpp>         // merge_row, merge_states, merge_area_bytes, largest_state
#include <fusedsl/backend/cuda/partials.hpp>       // partial, read_partial, last_to_arrive, finish_nodes
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, node_count, is_reduction_at, is_scan_at
#include <fusedsl/backend/cuda/rows.hpp>  // chunk, chunk_elements, full_chunk, accumulate_chunk, pointwise_row, row_value
#include <fusedsl/core/config.hpp>        // FUSEDSL_DEVICE, FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE

namespace fusedsl::cuda_detail {

/// Elements of a row one pass of a block of the split kernel covers
/// (`threads` threads of `chunk_elements` each): its chunks start at
/// multiples of it, so that only a row's last pass may end early.
template <class P, int V>
FUSEDSL_HOST_DEVICE constexpr std::int64_t split_pass(unsigned threads) {
  return std::int64_t{threads} * chunk_elements<P, V>;
}

/// Waits in every thread of the block until each of the `gridDim.x` blocks
/// of its row slot has arrived here `phase` times (`counter`: the slot's
/// arrivals, counting up through the launch). The block's partial state,
/// stored by its first thread, is visible before it arrives; the others'
/// are read after.
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void row_barrier(unsigned* counter, unsigned phase) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(counter, 1u);
    const unsigned target = phase * gridDim.x;
    while (*static_cast<volatile unsigned*>(counter) < target) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
      __nanosleep(64);
#endif
    }
    __threadfence();
  }
  __syncthreads();
}

/// Merges the partial states of the pending reductions (node J and the
/// following ones whose bit `pending` holds) of `row` into their results,
/// every block in the same chunk order, after the row's blocks have met;
/// the first block stores them.
template <class P, int J, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void merge_pending(const node_objects<P>& nodes, const group_args<P>& a,
                                                      row_registers<P, V>& regs, std::int64_t row,
                                                      std::uint64_t pending, unsigned char* shared, int& turn) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (pending >> J & 1u) {
        const auto& op = get<J>(nodes).op;
        const int threads = static_cast<int>(blockDim.x);
        state_t<P, J> total{};
        for (unsigned k = threadIdx.x; k < gridDim.x; k += blockDim.x)
          merge_states(op, total, read_partial(partial<P, J>(a, row, k)));
        total = merge_row(op, total, threads, shared, merge_area_bytes(threads, largest_state<P>), turn);
        const auto result = op.finish(total, a.space.inner);
        values_of<J>(regs.nodes)[0] = static_cast<value_t<P, J>>(result);
        if (blockIdx.x == 0 && threadIdx.x == 0) {
          const decltype(result) values[1] = {result};
          store<P, J, 1>(a, position<std::int64_t>{row, 0}, values);
        }
      }
    }
    merge_pending<P, J + 1, V>(nodes, a, regs, row, pending, shared, turn);
  }
}

/// The row's blocks meet (`row_barrier`, the block's `phase`-th meeting),
/// then each merges the pending reductions (`merge_pending`): none is
/// pending after.
template <class P, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void meet(const node_objects<P>& nodes, const group_args<P>& a,
                                             row_registers<P, V>& regs, std::int64_t row, std::uint64_t& pending,
                                             unsigned char* shared, int& turn, unsigned& phase) {
  row_barrier(a.arrivals + blockIdx.y, ++phase);
  merge_pending<P, 0, V>(nodes, a, regs, row, pending, shared, turn);
  pending = 0;
}

/// Node J (and the following ones) over the block's chunk [`begin`, `end`)
/// of `row`: a reduction adds the chunk into its partial state, stored and
/// then `pending`; before a node that reads one (`a.meet_before`), the
/// row's blocks `meet`.
/// Pointwise nodes run over the chunk, and a node over the rows
/// (`per_row`) in the first block's first thread.
template <class P, int J, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void split_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                    row_registers<P, V>& regs, std::int64_t row, std::int64_t begin,
                                                    std::int64_t end, unsigned char* shared, int& turn, unsigned& phase,
                                                    std::uint64_t& pending) {
  if constexpr (J < node_count<P>) {
    if (a.active >> J & 1u) {
      if constexpr (V > 1) {  // the host meets rows only in vectorized groups (fewer kernels to compile)
        if (pending != 0 && (a.meet_before >> J & 1u)) meet(nodes, a, regs, row, pending, shared, turn, phase);
      }
      // Whole passes, each thread over the same vectors of each, in element order, as the row kernel.
      const std::int64_t pass = split_pass<P, V>(blockDim.x);
      chunk c{row, begin, static_cast<int>(threadIdx.x) * V, static_cast<int>(blockDim.x) * V};
      if constexpr (is_reduction_at<P, J>) {
        const int threads = static_cast<int>(blockDim.x);
        state_t<P, J> state{};
#pragma unroll 1
        for (; c.base < end; c.base += pass) {
          if (full_chunk<P, V>(a.space, c)) accumulate_chunk<P, J, V, true>(nodes, a, regs, c, state);
          else accumulate_chunk<P, J, V, false>(nodes, a, regs, c, state);
        }
        state = merge_row(get<J>(nodes).op, state, threads, shared, merge_area_bytes(threads, largest_state<P>), turn);
        if (threadIdx.x == 0) partial<P, J>(a, row, blockIdx.x) = state;
        pending |= std::uint64_t{1} << J;
      } else if constexpr (V > 1 && !is_scan_at<P, J>) {  // scans never split; meets: vectorized only
        if (a.per_row >> J & 1u) {
          if (blockIdx.x == 0 && threadIdx.x == 0) row_value<P, J>(nodes, a, regs.nodes, row);
        } else {
          pointwise_row<P, J, V, false>(nodes, a, regs, c, end, pass);
        }
      }
    }
    split_nodes<P, J + 1, V>(nodes, a, regs, row, begin, end, shared, turn, phase, pending);
  }
}

/// Split group: few long rows; block (x, y) runs chunk x (of `gridDim.x`)
/// of rows y, y + `gridDim.y`, ... Without `a.row_barriers` (reductions
/// only, none reading another, `gridDim.y` rows: one wave), the last of a
/// row's blocks to finish merges the row's chunks; with them, reductions
/// still pending at the row's end are merged after a last meeting, and
/// the last of a slot's blocks to leave sets its counters back to 0 for
/// the next launch. Chunks are whole passes (`split_pass`); `V` > 1:
/// 16-byte vectors along contiguous rows of one kept and one reduced axis
/// (the row kernel's conditions).
template <class P, int V>
__global__ void __launch_bounds__(512, V > 1 ? 2 : 3)  // 2 leave vectors the registers of their loads in flight
    split_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  int turn = 0;
  unsigned phase = 0;
  const std::int64_t pass = split_pass<P, V>(blockDim.x), passes = (a.space.inner + pass - 1) / pass;
  const std::int64_t begin = pass * (passes * blockIdx.x / gridDim.x),
                     end = pass * (passes * (blockIdx.x + 1) / gridDim.x);
  for (std::int64_t row = blockIdx.y; row < a.space.outer; row += gridDim.y) {
    row_registers<P, V> regs{};
    std::uint64_t pending = 0;
    split_nodes<P, 0, V>(nodes, a, regs, row, begin, end, shared, turn, phase, pending);
    if (!a.row_barriers) {
      if (last_to_arrive(a.arrivals + row, gridDim.x)) finish_nodes<P, 0>(nodes, a, shared, turn, row, row + 1);
    } else if constexpr (V > 1) {
      // Reductions no node of the group reads: merged and stored all the same.
      if (pending != 0) meet(nodes, a, regs, row, pending, shared, turn, phase);
    }
  }
  if (a.row_barriers && threadIdx.x == 0) {
    unsigned* arrivals = a.arrivals + blockIdx.y;
    unsigned* leaving = a.arrivals + gridDim.y + blockIdx.y;
    if (atomicAdd(leaving, 1u) == gridDim.x - 1) *arrivals = 0, *leaving = 0;  // every block has passed its barriers
  }
}

}  // namespace fusedsl::cuda_detail
