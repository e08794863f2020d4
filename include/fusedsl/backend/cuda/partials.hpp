/// @file partials.hpp
/// The two-stage reductions' shared parts (column and split groups): the
/// first stage adds a reduction's operand over strided reduced positions
/// (`accumulate`) into partial states per kept element and chunk
/// (`partial`); the second, `finish_kernel`, merges each kept element's
/// partial states in chunk order, finishes and stores. Its own header
/// because columns.hpp and split.hpp share it.
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/backend/cuda/gather.hpp>         // gather, store, registers, slot_values, gathered, state_t
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args
#include <fusedsl/backend/cuda/merges.hpp>         // merge_states, merge_row, merge_area_bytes, largest_state
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, node_t, loop_t, is_reduction_at
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>               // evaluate

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
  const registers<P, V> regs{};
  std::int64_t j = begin;
  for (; j + (unroll - 1) * step < end; j += unroll * step) {
    slot_values<E, V> slots[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u)
      gather<P, J, 0, V>(a, regs, position<Index>{kept, static_cast<Index>(j + u * step)}, slots[u]);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int v = 0; v < V; ++v)
        r.op.add(states[v], static_cast<C>(evaluate<kernel_numerics, 0>(r.arg, gathered<E, V>{slots[u], v})),
                 j + u * step);
  }
  for (; j < end; j += step) {
    slot_values<E, V> slots;
    gather<P, J, 0, V>(a, regs, position<Index>{kept, static_cast<Index>(j)}, slots);
#pragma unroll
    for (int v = 0; v < V; ++v)
      r.op.add(states[v], static_cast<C>(evaluate<kernel_numerics, 0>(r.arg, gathered<E, V>{slots, v})), j);
  }
}

/// The partial state of reduction node J for kept element `k`, chunk `c`.
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE state_t<P, J>& partial(const group_args<P>& a, std::int64_t k, std::int64_t c) {
  return reinterpret_cast<state_t<P, J>*>(a.workspace + a.work_offset[J])[k * a.chunks + c];
}

template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void finish_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                     unsigned char* shared, int& turn) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (a.active >> J & 1u) {
        const int tpr = a.threads_per_row;
        const int lane = static_cast<int>(threadIdx.x) % tpr;
        const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / tpr) + threadIdx.x / tpr;
        const bool valid = k < a.space.outer;
        const auto& op = get<J>(nodes).op;
        state_t<P, J> state{};
        if (valid)
          for (std::int64_t c = lane; c < a.chunks; c += tpr) merge_states(op, state, partial<P, J>(a, k, c));
        state =
            merge_row(op, state, tpr, shared, merge_area_bytes(static_cast<int>(blockDim.x), largest_state<P>), turn);
        if (valid && lane == 0) {
          const auto result = op.finish(state, a.space.inner);
          const decltype(result) values[1] = {result};
          store<P, J, 1>(a, position<std::int64_t>{k, 0}, values);
        }
      }
    }
    finish_nodes<P, J + 1>(nodes, a, shared, turn);
  }
}

/// Second stage of column and split groups: merges each kept element's
/// partial states in chunk order (`threads_per_row` threads each, a tree),
/// finishes and stores.
template <class P>
__global__ void __launch_bounds__(256)
    finish_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  int turn = 0;
  finish_nodes<P, 0>(nodes, a, shared, turn);
}

}  // namespace fusedsl::cuda_detail
