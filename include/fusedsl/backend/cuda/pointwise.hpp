/// @file pointwise.hpp
/// The CUDA pointwise kernel class: `pointwise_kernel` runs a group of
/// pointwise nodes over one space, `V` elements per thread (16-byte loads
/// and stores when every operand is contiguous and aligned, `V` = 1
/// otherwise), values between nodes in registers.
#pragma once
#include <fusedsl/backend/cuda/gather.hpp>         // gather, store, registers, slot_values, gathered, position
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, loop_t, loop_of, distinct_at, is_reduction_at
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>               // evaluate

namespace fusedsl::cuda_detail {

/// Pointwise node J at `V` elements: gather, evaluate, keep in registers, store.
template <class P, int J, int V, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void pointwise_node(const node_objects<P>& nodes, const group_args<P>& a,
                                                       registers<P, V>& regs, const position<Index>& at) {
  using E = loop_t<P, J>;
  const E& e = loop_of<distinct_at<P, J>>(get<J>(nodes));
  slot_values<E, V> slots;
  gather<P, J, 0, V>(a, regs, at, slots);
  compute_t<kernel_numerics, E::value_dtype> values[V];
#pragma unroll
  for (int v = 0; v < V; ++v) values[v] = evaluate<kernel_numerics, 0>(e, gathered<E, V>{slots, v});
#pragma unroll
  for (int v = 0; v < V; ++v) values_of<J>(regs.nodes)[v] = static_cast<value_t<P, J>>(values[v]);
  store<P, J, V>(a, at, values);
}

template <class P, int J, int V, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void pointwise_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                        registers<P, V>& regs, const position<Index>& at) {
  if constexpr (J < node_count<P>) {
    if constexpr (!is_reduction_at<P, J>)
      if (a.active >> J & 1u) pointwise_node<P, J, V>(nodes, a, regs, at);
    pointwise_nodes<P, J + 1, V>(nodes, a, regs, at);
  }
}

/// Pointwise group: thread q runs every node at elements [qV, qV + V).
template <class P, class Index, int V>
__global__ void __launch_bounds__(256)
    pointwise_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  const Index vectors = static_cast<Index>(a.space.outer / V);
  for (Index q = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; q < vectors;
       q += static_cast<Index>(gridDim.x) * blockDim.x) {
    const position<Index> at{q * V, 0};
    registers<P, V> regs;
    pointwise_nodes<P, 0, V>(nodes, a, regs, at);
  }
}

}  // namespace fusedsl::cuda_detail
