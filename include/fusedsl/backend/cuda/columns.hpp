/// @file columns.hpp
/// The CUDA column kernel class: `column_kernel` runs reductions over
/// leading axes, threads over vectors of columns (16-byte loads when
/// contiguous and aligned) and rows, into partial states per chunk of rows
/// (chunks enough to fill the device), which `finish_kernel`
/// (partials.hpp) merges in a fixed order; with one chunk, the column
/// kernel finishes and stores the results itself.
#pragma once
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::conditional_t

#include <fusedsl/backend/cuda/gather.hpp>         // state_t
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args
#include <fusedsl/backend/cuda/merges.hpp>         // merge_states
#include <fusedsl/backend/cuda/partials.hpp>       // accumulate, partial
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, node_count, is_reduction_at
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE

namespace fusedsl::cuda_detail {

/// Merges the states of a column's `blockDim.y` threads (one per row of
/// the block) in a fixed tree through `shared` (a state per thread of the
/// block): thread y = 0 gets the total. Every thread of the block calls it.
template <class Op, class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State merge_column(const Op& op, State state, State* shared) {
  const unsigned at = threadIdx.y * blockDim.x + threadIdx.x;
  __syncthreads();  // the last merge's reads of `shared` are done
  shared[at] = state;
  for (unsigned offset = 1; offset < blockDim.y; offset *= 2) {
    __syncthreads();
    // Thread y merges y + offset (written by thread y + offset at the step before); another
    // thread reads y's state at a later step only, after the next barrier.
    if (threadIdx.y % (2 * offset) == 0 && threadIdx.y + offset < blockDim.y) {
      merge_states(op, state, shared[at + offset * blockDim.x]);
      shared[at] = state;
    }
  }
  return state;
}

template <class P, int J, int V, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void column_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                     std::int64_t column, unsigned char* shared) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (a.active >> J & 1u) {
        const std::int64_t rows = a.space.inner;
        const std::int64_t begin = rows * blockIdx.y / a.chunks, end = rows * (blockIdx.y + 1) / a.chunks;
        state_t<P, J> states[V] = {};
        // Vectorized: the column count is a multiple of V, so a valid vector lies in the space.
        const bool valid = column < a.space.outer;
        if (valid)
          accumulate<P, J, V>(nodes, a, static_cast<Index>(column), begin + threadIdx.y, end, blockDim.y, states);
        const auto& op = get<J>(nodes).op;
#pragma unroll
        for (int v = 0; v < V; ++v) {
          const auto total = merge_column(op, states[v], reinterpret_cast<state_t<P, J>*>(shared));
          if (threadIdx.y == 0 && valid) {
            if (a.chunks == 1) {  // the whole column: finished here, no second kernel
              const auto result = op.finish(total, a.space.inner);
              const decltype(result) values[1] = {result};
              store<P, J, 1>(a, position<std::int64_t>{column + v, 0}, values);
            } else partial<P, J>(a, column + v, blockIdx.y) = total;
          }
        }
      }
    }
    column_nodes<P, J + 1, V, Index>(nodes, a, column, shared);
  }
}

/// Column group: a block of `blockDim.x` vectors of `V` columns (16-byte
/// loads when `V` > 1, 32-bit offsets) by `blockDim.y` rows, over the rows
/// of chunk `blockIdx.y`, each thread every `blockDim.y`-th row of it (a
/// warp's loads are consecutive); one partial state per column and chunk.
template <class P, int V>
__global__ void __launch_bounds__(256)
    column_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  using Index = std::conditional_t<(V > 1), int, std::int64_t>;
  extern __shared__ __align__(16) unsigned char shared[];
  column_nodes<P, 0, V, Index>(nodes, a, (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * V,
                               shared);
}

}  // namespace fusedsl::cuda_detail
