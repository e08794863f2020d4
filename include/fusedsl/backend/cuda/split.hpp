/// @file split.hpp
/// The CUDA split kernel class: `split_kernel` cuts few long rows into
/// chunks, a block per chunk, into partial states that the row's last block
/// merges in order (partials.hpp).
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/backend/cuda/gather.hpp>         // state_t
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args
#include <fusedsl/backend/cuda/merges.hpp>         // merge_row, merge_area_bytes, largest_state
#include <fusedsl/backend/cuda/partials.hpp>       // accumulate, partial, last_to_arrive, finish_nodes
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, node_count, is_reduction_at
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE

namespace fusedsl::cuda_detail {

template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void split_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                    unsigned char* shared, int& turn) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (a.active >> J & 1u) {
        const std::int64_t row = blockIdx.y, inner = a.space.inner;
        const std::int64_t begin = inner * blockIdx.x / a.chunks, end = inner * (blockIdx.x + 1) / a.chunks;
        state_t<P, J> states[1] = {};
        accumulate<P, J, 1>(nodes, a, row, begin + threadIdx.x, end, blockDim.x, states);
        const auto state = merge_row(get<J>(nodes).op, states[0], static_cast<int>(blockDim.x), shared,
                                     merge_area_bytes(static_cast<int>(blockDim.x), largest_state<P>), turn);
        if (threadIdx.x == 0) partial<P, J>(a, row, blockIdx.x) = state;
      }
    }
    split_nodes<P, J + 1>(nodes, a, shared, turn);
  }
}

/// Split group: few long rows; block (x, y) reduces chunk x of row y, and
/// the last of row y's blocks to finish merges the row's chunks: one
/// launch (a few chunks per row, so one block merges them quickly).
template <class P>
__global__ void __launch_bounds__(512, 3)  // the last block's merge must not take the accumulation's occupancy
    split_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  int turn = 0;
  split_nodes<P, 0>(nodes, a, shared, turn);
  const std::int64_t row = blockIdx.y;
  if (last_to_arrive(a.arrivals + row, gridDim.x)) finish_nodes<P, 0>(nodes, a, shared, turn, row, row + 1);
}

}  // namespace fusedsl::cuda_detail
