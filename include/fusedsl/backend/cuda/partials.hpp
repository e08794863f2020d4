/// @file partials.hpp
/// The two-stage reductions' shared parts (column and split groups): the
/// first stage adds a reduction's operand into partial states per kept
/// element and chunk (`partial`; columns over strided reduced positions
/// with `accumulate`), merged in chunk order, finished and stored (`finish_nodes`)
/// by a split row's last block to arrive (`last_to_arrive`), or by
/// `finish_kernel` for columns. Its own header because columns.hpp and
/// split.hpp share it.
#pragma once
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <cstring>  // std::memcpy

#include <fusedsl/backend/cuda/gather.hpp>         // gather, store, node_values, slot_values, evaluate_slots, state_t
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args
#include <fusedsl/backend/cuda/merges.hpp>         // merge_states, merge_row, merge_area_bytes, largest_state
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, node_t, loop_t, is_reduction_at
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t

namespace fusedsl::cuda_detail {

/// Elements a reduction loop gathers before it adds them (loads in flight).
inline constexpr int unroll = 4;

/// Adds reduction node J's operand at the `V` consecutive kept elements
/// from `kept` (one state each; `V` > 1: along the innermost kept axis, as
/// `gather` loads them) and the reduced positions begin, begin + step, ...
/// before `end`, in order: `unroll` positions gathered, then added (their
/// loads are in flight together). Offsets in `Index`; positions count in
/// 64 bits (no overflow past the end).
template <class P, int J, int V, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void accumulate(const node_objects<P>& nodes, const group_args<P>& a, Index kept,
                                                   std::int64_t begin, std::int64_t end, std::int64_t step,
                                                   state_t<P, J> (&states)[V]) {
  using N = node_t<P, J>;
  using E = loop_t<P, J>;
  using C = compute_t<kernel_numerics, N::input_dtype>;
  const N& r = get<J>(nodes);
  const node_values<P, V> regs{};
  std::int64_t j = begin;
  for (; j + (unroll - 1) * step < end; j += unroll * step) {
    slot_values<E, V> slots[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      gather<P, J, 0, V, true>(a, regs, position<Index>{kept, static_cast<Index>(j + u * step)}, slots[u]);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int v = 0; v < V; ++v) r.op.add(states[v], evaluate_slots<C, P, J>(r.arg, a, slots[u], v), j + u * step);
  }
  for (; j < end; j += step) {
    slot_values<E, V> slots;
    gather<P, J, 0, V, true>(a, regs, position<Index>{kept, static_cast<Index>(j)}, slots);
#pragma unroll
    for (int v = 0; v < V; ++v) r.op.add(states[v], evaluate_slots<C, P, J>(r.arg, a, slots, v), j);
  }
}

/// The partial state of reduction node J for kept element `k`, chunk `c`.
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE state_t<P, J>& partial(const group_args<P>& a, std::int64_t k, std::int64_t c) {
  return reinterpret_cast<state_t<P, J>*>(a.workspace + a.work_offset[J])[k * a.chunks + c];
}

/// Another block's partial state, read past the L1 cache: a line of it
/// there may be older than the barrier that made the state visible.
template <class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State read_partial(const State& at) {
  State state;
  if constexpr (sizeof(State) % 4 == 0 && alignof(State) >= 4) {
    unsigned words[sizeof(State) / 4];
#pragma unroll
    for (std::size_t w = 0; w < sizeof(State) / 4; ++w) words[w] = __ldcg(reinterpret_cast<const unsigned*>(&at) + w);
    std::memcpy(&state, words, sizeof(State));
  } else {
    unsigned char bytes[sizeof(State)];
#pragma unroll
    for (std::size_t b = 0; b < sizeof(State); ++b) bytes[b] = reinterpret_cast<const volatile unsigned char*>(&at)[b];
    std::memcpy(&state, bytes, sizeof(State));
  }
  return state;
}

/// Threads per kept element when `threads` threads merge the partial states
/// of `elements` kept elements: a power of two, as many as one pass over the
/// elements allows and the chunks can use.
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE int merge_threads(int threads, std::int64_t elements, std::int64_t chunks) {
  int t = 1;
  while (2 * t * elements <= threads && t < chunks) t *= 2;
  return t;
}

/// Merges the partial states of kept elements [first, last) of every
/// reduction of the group in chunk order (`merge_threads` threads per
/// element, each over every so many chunks, then a tree), finishes and
/// stores them. The states are read past L1 (`read_partial`): a split row's
/// last block reads states other blocks stored. Every thread of the block
/// calls it.
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void finish_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                     unsigned char* shared, int& turn, std::int64_t first,
                                                     std::int64_t last) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (a.active >> J & 1u) {
        const int threads = static_cast<int>(blockDim.x), thread = static_cast<int>(threadIdx.x);
        const int tpr = merge_threads(threads, last - first, a.chunks), lane = thread & (tpr - 1);
        const auto& op = get<J>(nodes).op;
        for (std::int64_t base = first; base < last; base += threads / tpr) {
          const std::int64_t k = base + thread / tpr;
          const bool valid = k < last;
          state_t<P, J> state{};
          if (valid)
            for (std::int64_t c = lane; c < a.chunks; c += tpr)
              merge_states(op, state, read_partial(partial<P, J>(a, k, c)));
          state = merge_row(op, state, tpr, shared, merge_area_bytes(threads, largest_state<P>), turn);
          if (valid && lane == 0) {
            const auto result = op.finish(state, a.space.inner);
            const decltype(result) values[1] = {result};
            store<P, J, 1>(a, position<std::int64_t>{k, 0}, values);
          }
        }
      }
    }
    finish_nodes<P, J + 1>(nodes, a, shared, turn, first, last);
  }
}

/// Counts the block in at `counter`, after it stored its partial states,
/// and returns true in the last of `blocks` blocks to arrive, which then
/// sees every other block's partial states; that block resets the counter
/// for the next launch (fences as in CUDA's threadFenceReduction sample).
/// Every thread of the block calls it.
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE bool last_to_arrive(unsigned* counter, unsigned blocks) {
  __shared__ bool last;
  __threadfence();  // this thread's partial states are visible to the device before the block arrives
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u) == blocks - 1;
    if (last) *counter = 0;  // every block has arrived: ready for the next launch
  }
  __syncthreads();
  if (last) __threadfence();  // the others' partial states are read after their arrivals were seen
  return last;
}

/// Second stage of column groups: block b merges kept
/// elements from b * (256 / threads_per_row), finishes and stores them.
template <class P>
__global__ void __launch_bounds__(256)
    finish_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  int turn = 0;
  const std::int64_t per_block = blockDim.x / a.threads_per_row, first = blockIdx.x * per_block;
  finish_nodes<P, 0>(nodes, a, shared, turn, first,
                     first + per_block < a.space.outer ? first + per_block : a.space.outer);
}

}  // namespace fusedsl::cuda_detail
