/// @file split.hpp
/// The CUDA split kernel class: `split_kernel` cuts few long rows into
/// chunks, a block per chunk, into partial states that the row's last block
/// merges in order (partials.hpp); each block passes over its chunk as the
/// row kernel passes over a row (rows.hpp, `accumulate_chunk`).
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/backend/cuda/gather.hpp>         // state_t
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args
#include <fusedsl/backend/cuda/merges.hpp>         // merge_row, merge_area_bytes, largest_state
#include <fusedsl/backend/cuda/partials.hpp>       // partial, last_to_arrive, finish_nodes
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, node_count, is_reduction_at
#include <fusedsl/backend/cuda/rows.hpp>           // chunk, chunk_elements, full_chunk, accumulate_chunk, row_registers
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE

namespace fusedsl::cuda_detail {

/// Elements of a row one pass of a block of the split kernel covers
/// (`threads` threads of `chunk_elements` each): its chunks start at
/// multiples of it, so that only a row's last pass may end early.
template <class P, int V>
FUSEDSL_HOST_DEVICE constexpr std::int64_t split_pass(unsigned threads) {
  return std::int64_t{threads} * chunk_elements<P, V>;
}

template <class P, int J, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void split_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                    unsigned char* shared, int& turn) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (a.active >> J & 1u) {
        const std::int64_t row = blockIdx.y, inner = a.space.inner;
        // Whole passes, each thread over the same vectors of each, in element order, as the row kernel.
        const std::int64_t pass = split_pass<P, V>(blockDim.x), passes = (inner + pass - 1) / pass;
        const std::int64_t end = pass * (passes * (blockIdx.x + 1) / a.chunks);
        row_registers<P, V> regs{};
        chunk c{row, pass * (passes * blockIdx.x / a.chunks), static_cast<int>(threadIdx.x) * V,
                static_cast<int>(blockDim.x) * V};
        state_t<P, J> state{};
#pragma unroll 1
        for (; c.base < end; c.base += pass) {
          if (full_chunk<P, V>(a.space, c)) accumulate_chunk<P, J, V, true>(nodes, a, regs, c, state);
          else accumulate_chunk<P, J, V, false>(nodes, a, regs, c, state);
        }
        state = merge_row(get<J>(nodes).op, state, static_cast<int>(blockDim.x), shared,
                          merge_area_bytes(static_cast<int>(blockDim.x), largest_state<P>), turn);
        if (threadIdx.x == 0) partial<P, J>(a, row, blockIdx.x) = state;
      }
    }
    split_nodes<P, J + 1, V>(nodes, a, shared, turn);
  }
}

/// Split group: few long rows; block (x, y) reduces chunk x of row y, and
/// the last of row y's blocks to finish merges the row's chunks: one
/// launch (a few chunks per row, so one block merges them quickly). Chunks
/// are whole passes (`split_pass`); `V` > 1: 16-byte vectors along
/// contiguous rows of one kept and one reduced axis (the row kernel's
/// conditions).
template <class P, int V>
__global__ void __launch_bounds__(512, V > 1 ? 2 : 3)  // 2 leave vectors the registers of their loads in flight
    split_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  int turn = 0;
  split_nodes<P, 0, V>(nodes, a, shared, turn);
  const std::int64_t row = blockIdx.y;
  if (last_to_arrive(a.arrivals + row, gridDim.x)) finish_nodes<P, 0>(nodes, a, shared, turn, row, row + 1);
}

}  // namespace fusedsl::cuda_detail
