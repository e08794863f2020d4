/// @file pointwise.hpp
/// The CUDA pointwise kernel class: `pointwise_kernel` runs a group of
/// pointwise nodes over one space, `V` consecutive elements per thread
/// (16-byte loads and stores for operands contiguous and aligned along the
/// vector, elements one by one for the others: `vector_access`), values
/// between nodes in registers.
#pragma once
#include <fusedsl/backend/cuda/gather.hpp>      // gather, store, node_values, slot_values, evaluate_slots, position
#include <fusedsl/backend/cuda/group_args.hpp>  // group_args
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_objects, loop_t, loop_of, distinct_at, is_reduction_at, is_scan_at
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t

namespace fusedsl::cuda_detail {

/// Pointwise node J at `V` elements (the first `count` of them exist):
/// gather, evaluate, keep in registers, store.
template <class P, int J, int V, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void pointwise_node(const node_objects<P>& nodes, const group_args<P>& a,
                                                       node_values<P, V>& regs, const position<Index>& at, int count) {
  using E = loop_t<P, J>;
  const E& e = loop_of<distinct_at<P, J>>(get<J>(nodes));
  slot_values<E, V> slots;
  gather<P, J, 0, V>(a, regs, at, slots, count);
  using C = compute_t<kernel_numerics, E::value_dtype>;
  C values[V];
#pragma unroll
  for (int v = 0; v < V; ++v) values[v] = evaluate_slots<C, P, J>(e, a, slots, v, v < count);
#pragma unroll
  for (int v = 0; v < V; ++v) values_of<J>(regs)[v] = static_cast<value_t<P, J>>(values[v]);
  store<P, J, V>(a, at, values, count);
}

template <class P, int J, int V, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void pointwise_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                        node_values<P, V>& regs, const position<Index>& at, int count) {
  if constexpr (J < node_count<P>) {
    if constexpr (!is_reduction_at<P, J> && !is_scan_at<P, J>)
      if (a.active >> J & 1u) pointwise_node<P, J, V>(nodes, a, regs, at, count);
    pointwise_nodes<P, J + 1, V>(nodes, a, regs, at, count);
  }
}

/// Pointwise group: thread q runs every node at elements [qV, qV + V) of
/// the flattened space, the last vector cut at its end.
template <class P, class Index, int V>
__global__ void __launch_bounds__(256)
    pointwise_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  const auto total = static_cast<Index>(a.space.outer);
  const Index vectors = total / V + (total % V != 0);
  for (Index q = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; q < vectors;
       q += static_cast<Index>(gridDim.x) * blockDim.x) {
    const position<Index> at{q * V, 0};
    const int count = total - at.row < V ? static_cast<int>(total - at.row) : V;
    node_values<P, V> regs;
    pointwise_nodes<P, 0, V>(nodes, a, regs, at, count);
  }
}

}  // namespace fusedsl::cuda_detail
