/// @file kernels.hpp
/// The CUDA kernels. Each kernel template holds the code of every node of a
/// program (program_nodes.hpp) and runs, in order, the nodes its group
/// names in `group_args::active` (a uniform branch per node): one launch
/// per group, whatever the group. Kernel classes:
/// - `pointwise_kernel`: nodes over one space, `V` elements per thread
///   (16-byte loads and stores when every operand is contiguous and
///   aligned, `V` = 1 otherwise), values between nodes in registers.
/// - `row_kernel`: reductions over the same axes with the pointwise nodes
///   over their operand: `threads_per_row` threads per row, a tree over
///   shared memory per reduction; the placeholders that several nodes read
///   are kept in shared memory for the row (each element read once).
/// - `column_kernel` + `finish_kernel`: reductions over leading axes,
///   threads over columns, partial states per chunk of rows, merged in a
///   fixed order.
/// - `split_kernel` + `finish_kernel`: few long rows cut into chunks.
#pragma once
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <tuple>        // std::tuple_element_t
#include <type_traits>  // std::remove_cvref_t

#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_t, loop_t, leaf_at, producer, node_objects
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>               // evaluate

namespace fusedsl::cuda_detail {

/// Where a kernel reads one leaf slot or writes one node: memory with
/// strides over the group's kept axes (outer) and reduced axes (inner).
struct operand {
  const void* data = nullptr;           ///< nullptr: the value is in registers (or a param)
  std::int64_t kept[max_rank] = {};     ///< strides over the kept axes
  std::int64_t reduced[max_rank] = {};  ///< strides over the reduced axes
  std::uint64_t value = 0;              ///< a param's bits
};

/// The iteration space of a group: kept axes (rows, or every axis of a
/// pointwise group), then reduced axes (the elements of a row).
struct space_args {
  int kept_rank = 0, reduced_rank = 0;
  std::int64_t kept[max_rank] = {}, reduced[max_rank] = {};
  std::int64_t outer = 1, inner = 1;  ///< products of the kept and reduced sizes
};

/// Everything a launch of one group needs besides the node objects.
template <class P>
struct group_args {
  space_args space;
  std::uint64_t active = 0;                         ///< nodes the group runs
  std::uint64_t in_registers = 0;                   ///< nodes whose readers in this group take the value from registers
  std::uint64_t stores_target = 0;                  ///< nodes that store their statement target's element type
  std::uint64_t cached = 0;                         ///< placeholders the row kernel keeps in shared memory
  int cache_source[memory_leaf_count<P> + 1] = {};  ///< per placeholder: the slot whose address it is cached from
  std::int64_t cache_offset[memory_leaf_count<P> + 1] = {};  ///< per placeholder: bytes into a row's cache
  std::int64_t cache_row_bytes = 0;                          ///< a row's cache
  std::int64_t states_bytes = 0;                             ///< shared memory for merging states, before the caches
  int threads_per_row = 1;                                   ///< row and finish kernels
  std::int64_t chunks = 1;                       ///< column and split kernels: partial states per kept element
  char* workspace = nullptr;                     ///< partial states
  std::int64_t work_offset[node_count<P>] = {};  ///< bytes into `workspace`, per node
  operand leaves[slot_base<P>[node_count<P>] + 1];
  operand outs[node_count<P>];
};

/// The stored value type of node J (what a buffer of it holds: f16 and
/// bf16 values stay in float, as on the CPU, node_storage_t).
template <class P, int J>
using value_t = node_storage_t<node_t<P, J>>;
/// The element type node J stores into its statement's target.
template <class P, int J>
using target_element_t = typename std::tuple_element_t<static_cast<std::size_t>(J), typename P::nodes>::target_element;
/// The accumulator state of reduction node J.
template <class P, int J>
using state_t = typename node_t<P, J>::op_type::template state<compute_t<kernel_numerics, node_t<P, J>::input_dtype>>;

/// Node values held in registers: `V` per node.
template <class P, int V, int J = 0, bool = (J < node_count<P>)>
struct node_values {
  value_t<P, J> v[V];
  node_values<P, V, J + 1> rest;
};
template <class P, int V, int J>
struct node_values<P, V, J, false> {};
template <int I, class P, int V, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE auto& values_of(node_values<P, V, J>& r) {
  if constexpr (I == J) return r.v;
  else return values_of<I>(r.rest);
}
template <int I, class P, int V, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE const auto& values_of(const node_values<P, V, J>& r) {
  if constexpr (I == J) return r.v;
  else return values_of<I>(r.rest);
}

/// The values of every leaf slot of a loop over `E` at `V` elements.
template <class E, int V, std::size_t S = 0, bool = (S < leaf_slots<E>())>
struct slot_values {
  leaf_storage_t<leaf_at<E, S>> v[V];
  slot_values<E, V, S + 1> rest;
};
template <class E, int V, std::size_t S>
struct slot_values<E, V, S, false> {};
template <std::size_t I, class E, int V, std::size_t S>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE auto& slot_of(slot_values<E, V, S>& s) {
  if constexpr (I == S) return s.v;
  else return slot_of<I>(s.rest);
}
template <std::size_t I, class E, int V, std::size_t S>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE const auto& slot_of(const slot_values<E, V, S>& s) {
  if constexpr (I == S) return s.v;
  else return slot_of<I>(s.rest);
}

/// Reads gathered slot values at element `v` (evaluate's reader).
template <class E, int V>
struct gathered {
  const slot_values<E, V>& slots;
  int v;
  template <std::size_t K, class T>
  FUSEDSL_DEVICE FUSEDSL_FORCEINLINE T load() const {
    return slot_of<K>(slots)[v];
  }
};

/// A position in a group's space: the flat kept index (row) and the flat
/// reduced index (element of the row). Operands' offsets unravel them over
/// the (coalesced, usually rank-1) axes, so a position costs two registers.
template <class Index>
struct position {
  Index row = 0, j = 0;
};

/// `sum(index[d] * strides[d])` for the multi-index of `flat` over `rank`
/// axes of `sizes`. A rolled loop: after coalescing most spaces have rank 1
/// (no division at all), and an unrolled loop of 64-bit divisions per
/// operand made kernels large enough to run out of the instruction cache.
template <class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE Index unravel_dot(Index flat, int rank, const std::int64_t* sizes,
                                                     const std::int64_t* strides) {
  if (rank == 0) return 0;
  Index result = 0;
#pragma unroll 1
  for (int d = rank - 1; d > 0; --d) {
    const auto size = static_cast<Index>(sizes[d]);
    const Index quotient = flat / size;
    result += (flat - quotient * size) * static_cast<Index>(strides[d]);
    flat = quotient;
  }
  return result + flat * static_cast<Index>(strides[0]);
}

/// The offset of `at` in operand `o` (elements).
template <class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE Index offset(const operand& o, const space_args& s, const position<Index>& at) {
  // At most one kept and one reduced axis after coalescing (the usual case):
  // no loop (strides of missing axes are 0, their index too). Measured on
  // the H100: 7-20% off the row, column and full reductions.
  if (s.kept_rank <= 1 && s.reduced_rank <= 1)
    return at.row * static_cast<Index>(o.kept[0]) + at.j * static_cast<Index>(o.reduced[0]);
  return unravel_dot(at.row, s.kept_rank, s.kept, o.kept) + unravel_dot(at.j, s.reduced_rank, s.reduced, o.reduced);
}

/// The stride of `o` along the axis vectors run along: the innermost
/// reduced axis (rows), or the innermost kept axis (pointwise groups).
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE std::int64_t innermost_stride(const operand& o, const space_args& s) {
  return s.reduced_rank > 0 ? o.reduced[s.reduced_rank - 1] : o.kept[s.kept_rank - 1];
}

/// `V` elements of `T` from `from` (16-byte aligned when `V * sizeof(T)` is
/// a multiple of 16: one 16-byte load per 16 bytes).
template <int V, class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void load_vector(const T* from, T (&to)[V]) {
  if constexpr (V * sizeof(T) % 16 == 0) {
#pragma unroll
    for (int i = 0; i < static_cast<int>(V * sizeof(T) / 16); ++i) {
      const uint4 bits = reinterpret_cast<const uint4*>(from)[i];
      std::memcpy(reinterpret_cast<char*>(to) + 16 * i, &bits, 16);
    }
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) to[i] = from[i];
  }
}
template <int V, class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void store_vector(T* to, const T (&from)[V]) {
  if constexpr (V * sizeof(T) % 16 == 0) {
#pragma unroll
    for (int i = 0; i < static_cast<int>(V * sizeof(T) / 16); ++i) {
      uint4 bits;
      std::memcpy(&bits, reinterpret_cast<const char*>(from) + 16 * i, 16);
      reinterpret_cast<uint4*>(to)[i] = bits;
    }
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) to[i] = from[i];
  }
}

/// What a node's gather step may read besides memory: node values in
/// registers (`V` per node) and the row kernel's cache of the current row.
template <class P, int V>
struct registers {
  node_values<P, V> nodes;
  const unsigned char* cache = nullptr;
};

/// Gathers slot `S` (and the following ones) of node J at `at` (`V`
/// consecutive elements along the innermost kept axis when `V` > 1, the
/// innermost stride then 0 or 1).
template <class P, int J, std::size_t S, int V, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void gather(const group_args<P>& a, const registers<P, V>& regs,
                                               const position<Index>& at, slot_values<loop_t<P, J>, V>& out) {
  using E = loop_t<P, J>;
  if constexpr (S < leaf_slots<E>()) {
    using L = leaf_at<E, S>;
    using T = leaf_storage_t<L>;
    auto& to = slot_of<S>(out);
    const operand& o = a.leaves[slot_base<P>[J] + static_cast<int>(S)];
    constexpr int from_node = producer<P, J, L>();
    constexpr int placeholder = memory_leaf_index<P, L>();
    bool done = false;
    if constexpr (
        !requires { L::role_of; } && !makes_node<L> && !requires { std::declval<L>().view; }) {  // a param
      T value;
      std::memcpy(&value, &o.value, sizeof(T));
#pragma unroll
      for (int v = 0; v < V; ++v) to[v] = value;
      done = true;
    } else if constexpr (from_node >= 0) {
      if (a.in_registers >> from_node & 1u) {
#pragma unroll
        for (int v = 0; v < V; ++v) to[v] = values_of<from_node>(regs.nodes)[V == 1 ? 0 : v];
        done = true;
      }
    } else if constexpr (placeholder >= 0) {
      if (regs.cache != nullptr && (a.cached >> placeholder & 1u)) {
        // 16-byte accesses: a warp reads 512 consecutive bytes without bank conflicts.
        load_vector<V>(reinterpret_cast<const T*>(regs.cache + a.cache_offset[placeholder]) + at.j, to);
        done = true;
      }
    }
    if (!done) {
      const T* base = static_cast<const T*>(o.data) + offset(o, a.space, at);
      if constexpr (V == 1) {
        to[0] = *base;
      } else if (innermost_stride(o, a.space) == 0) {
        const T value = *base;
#pragma unroll
        for (int v = 0; v < V; ++v) to[v] = value;
      } else {
        load_vector<V>(base, to);
      }
    }
    gather<P, J, S + 1, V>(a, regs, at, out);
  }
}

/// Stores node J's `V` values at `at`: its target's element type or its own.
template <class P, int J, int V, class Index, class C>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void store(const group_args<P>& a, const position<Index>& at, const C (&values)[V]) {
  const operand& o = a.outs[J];
  if (o.data == nullptr) return;
  const Index at_offset = offset(o, a.space, at);
  if (a.stores_target >> J & 1u) {
    using T = target_element_t<P, J>;
    T converted[V];
#pragma unroll
    for (int v = 0; v < V; ++v) converted[v] = static_cast<T>(values[v]);
    store_vector<V>(static_cast<T*>(const_cast<void*>(o.data)) + at_offset, converted);
  } else if constexpr (distinct_at<P, J> >= 0) {
    using T = value_t<P, J>;
    T converted[V];
#pragma unroll
    for (int v = 0; v < V; ++v) converted[v] = static_cast<T>(values[v]);
    store_vector<V>(static_cast<T*>(const_cast<void*>(o.data)) + at_offset, converted);
  }
}

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

/// Elements a reduction loop gathers before it adds them (loads in flight).
inline constexpr int unroll = 4;

/// Adds reduction node J's operand at the reduced positions [begin, end)
/// of row `row`, `V` consecutive ones every `step`, into `state`, in order:
/// `unroll` vectors gathered, then added (their loads are in flight together).
template <class P, int J, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void accumulate(const node_objects<P>& nodes, const group_args<P>& a,
                                                   const registers<P, V>& regs, std::int64_t row, std::int64_t begin,
                                                   std::int64_t end, std::int64_t step, state_t<P, J>& state) {
  using N = node_t<P, J>;
  using E = loop_t<P, J>;
  using C = compute_t<kernel_numerics, N::input_dtype>;
  const N& r = get<J>(nodes);
  std::int64_t j = begin;
  for (; j + (unroll - 1) * step < end; j += unroll * step) {
    slot_values<E, V> slots[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) gather<P, J, 0, V>(a, regs, position<std::int64_t>{row, j + u * step}, slots[u]);
#pragma unroll
    for (int u = 0; u < unroll; ++u)
#pragma unroll
      for (int v = 0; v < V; ++v)
        r.op.add(state, static_cast<C>(evaluate<kernel_numerics, 0>(r.arg, gathered<E, V>{slots[u], v})),
                 j + u * step + v);
  }
  for (; j < end; j += step) {
    slot_values<E, V> slots;
    gather<P, J, 0, V>(a, regs, position<std::int64_t>{row, j}, slots);
#pragma unroll
    for (int v = 0; v < V; ++v)
      r.op.add(state, static_cast<C>(evaluate<kernel_numerics, 0>(r.arg, gathered<E, V>{slots, v})), j + v);
  }
}

// ---------------------------------------------------------------- pointwise

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

// ---------------------------------------------------------------- rows

/// `state` of the lane `offset` further down (`__shfl_down_sync` word by word).
template <class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State shuffle_down(const State& state, int offset, int width) {
  unsigned words[(sizeof(State) + 3) / 4] = {};
  std::memcpy(words, &state, sizeof(State));
#pragma unroll
  for (auto& w : words) w = __shfl_down_sync(0xffffffffu, w, static_cast<unsigned>(offset), width);
  State result;
  std::memcpy(&result, words, sizeof(State));
  return result;
}
/// `state` of the first lane of each `width` lanes.
template <class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State shuffle_first(const State& state, int width) {
  unsigned words[(sizeof(State) + 3) / 4] = {};
  std::memcpy(words, &state, sizeof(State));
#pragma unroll
  for (auto& w : words) w = __shfl_sync(0xffffffffu, w, 0, width);
  State result;
  std::memcpy(&result, words, sizeof(State));
  return result;
}

/// Merges the states of the `threads_per_row` threads (a power of two) of
/// each row of the block in a fixed tree: shuffles inside warps, then the
/// warps' states through shared memory; every thread gets its row's total.
/// Every thread of the block calls it.
template <class Op, class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State merge_row(const Op& op, State state, int threads_per_row,
                                                   unsigned char* shared) {
  const int width = threads_per_row < 32 ? threads_per_row : 32;
  const int in_warp = static_cast<int>(threadIdx.x) % 32;
  for (int offset = width / 2; offset > 0; offset /= 2) {
    const State other = shuffle_down(state, offset, width);
    if (in_warp % width < offset) op.merge(state, other);
  }
  if (threads_per_row <= 32) return shuffle_first(state, width);
  State* partials = reinterpret_cast<State*>(shared);
  const int warps_per_row = threads_per_row / 32;
  const int first_warp = static_cast<int>(threadIdx.x) / threads_per_row * warps_per_row;
  __syncthreads();  // the previous merge has read its partials
  if (in_warp == 0) partials[threadIdx.x / 32] = state;
  __syncthreads();
  State total = in_warp < warps_per_row ? partials[first_warp + in_warp] : State{};
  for (int offset = 16; offset > 0; offset /= 2) {
    const State other = shuffle_down(total, offset, 32);
    if (in_warp < offset && in_warp + offset < warps_per_row) op.merge(total, other);
  }
  return shuffle_first(total, 32);
}

template <class P, int J, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void row_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                  registers<P, V>& regs, std::int64_t row, bool valid,
                                                  unsigned char* shared) {
  if constexpr (J < node_count<P>) {
    if (a.active >> J & 1u) {
      const int tpr = a.threads_per_row;
      const int lane = static_cast<int>(threadIdx.x) % tpr;
      const std::int64_t inner = a.space.inner;
      if constexpr (is_reduction_at<P, J>) {
        state_t<P, J> state{};
        if (valid)
          accumulate<P, J, V>(nodes, a, regs, row, std::int64_t{lane} * V, inner, std::int64_t{tpr} * V, state);
        const auto& op = get<J>(nodes).op;
        state = merge_row(op, state, tpr, shared);
        const auto result = op.finish(state, inner);
#pragma unroll
        for (int v = 0; v < V; ++v) values_of<J>(regs.nodes)[v] = static_cast<value_t<P, J>>(result);
        if (valid && lane == 0) {
          const decltype(result) values[1] = {result};
          store<P, J, 1>(a, position<std::int64_t>{row, 0}, values);
        }
      } else if (valid) {
#pragma unroll 4
        for (std::int64_t j = std::int64_t{lane} * V; j < inner; j += std::int64_t{tpr} * V)
          pointwise_node<P, J, V>(nodes, a, regs, position<std::int64_t>{row, j});
      }
    }
    row_nodes<P, J + 1, V>(nodes, a, regs, row, valid, shared);
  }
}

/// Copies the row of each placeholder the group caches into shared memory;
/// each thread copies the elements it later reads itself (no barrier needed).
template <class P, int I, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void fill_cache(const group_args<P>& a, unsigned char* cache, std::int64_t row) {
  if constexpr (I < memory_leaf_count<P>) {
    if (a.cached >> I & 1u) {
      using T = memory_leaf_t<P, I>;
      const operand& o = a.leaves[a.cache_source[I]];
      T* to = reinterpret_cast<T*>(cache + a.cache_offset[I]);
      const std::int64_t step = std::int64_t{a.threads_per_row} * V;
      const bool contiguous = innermost_stride(o, a.space) == 1;
#pragma unroll 4
      for (std::int64_t j = std::int64_t{static_cast<int>(threadIdx.x) % a.threads_per_row} * V; j < a.space.inner;
           j += step) {
        const T* from = static_cast<const T*>(o.data) + offset(o, a.space, position<std::int64_t>{row, j});
        T values[V];
        if (V > 1 && contiguous) {
          load_vector<V>(from, values);
        } else {
#pragma unroll
          for (int v = 0; v < V; ++v) values[v] = from[v * innermost_stride(o, a.space)];
        }
        store_vector<V>(to + j, values);
      }
    }
    fill_cache<P, I + 1, V>(a, cache, row);
  }
}

/// Row group: `threads_per_row` threads per row, `blockDim.x /
/// threads_per_row` rows per block; every node runs over the whole row in
/// order, each thread on the same elements in every pass (`V` at j = (lane +
/// k * tpr) * V: 16-byte loads when the rows are contiguous and aligned).
template <class P, int V>
__global__ void __launch_bounds__(1024)
    row_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int rows_per_block = static_cast<int>(blockDim.x) / a.threads_per_row;
  const int slot = static_cast<int>(threadIdx.x) / a.threads_per_row;
  unsigned char* cache = shared + a.states_bytes + slot * a.cache_row_bytes;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block; first < a.space.outer;
       first += static_cast<std::int64_t>(gridDim.x) * rows_per_block) {
    const std::int64_t row = first + slot;
    const bool valid = row < a.space.outer;
    registers<P, V> regs;
    if (a.cached != 0) {
      regs.cache = cache;
      if (valid) fill_cache<P, 0, V>(a, cache, row);
    }
    row_nodes<P, 0, V>(nodes, a, regs, valid ? row : 0, valid, shared);
  }
}

// ---------------------------------------------------------------- columns and splits

/// The partial state of reduction node J for kept element `k`, chunk `c`.
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE state_t<P, J>& partial(const group_args<P>& a, std::int64_t k, std::int64_t c) {
  return reinterpret_cast<state_t<P, J>*>(a.workspace + a.work_offset[J])[k * a.chunks + c];
}

template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void column_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                     std::int64_t column, unsigned char* shared) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (a.active >> J & 1u) {
        const std::int64_t rows = a.space.inner;
        const std::int64_t begin = rows * blockIdx.y / a.chunks, end = rows * (blockIdx.y + 1) / a.chunks;
        state_t<P, J> state{};
        const bool valid = column < a.space.outer;
        if (valid)
          accumulate<P, J, 1>(nodes, a, registers<P, 1>{}, column, begin + threadIdx.y, end, blockDim.y, state);
        // The blockDim.y states of a column, merged in order of their rows.
        auto* states = reinterpret_cast<state_t<P, J>*>(shared);
        __syncthreads();
        states[threadIdx.y * blockDim.x + threadIdx.x] = state;
        __syncthreads();
        if (threadIdx.y == 0 && valid) {
          const auto& op = get<J>(nodes).op;
          for (unsigned y = 1; y < blockDim.y; ++y) op.merge(state, states[y * blockDim.x + threadIdx.x]);
          partial<P, J>(a, column, blockIdx.y) = state;
        }
      }
    }
    column_nodes<P, J + 1>(nodes, a, column, shared);
  }
}

/// Column group: threads over columns (x), rows of a chunk over y; one
/// partial state per column and chunk (blockIdx.y).
template <class P>
__global__ void __launch_bounds__(256)
    column_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  column_nodes<P, 0>(nodes, a, static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, shared);
}

template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void split_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                    unsigned char* shared) {
  if constexpr (J < node_count<P>) {
    if constexpr (is_reduction_at<P, J>) {
      if (a.active >> J & 1u) {
        const std::int64_t row = blockIdx.y, inner = a.space.inner;
        const std::int64_t begin = inner * blockIdx.x / a.chunks, end = inner * (blockIdx.x + 1) / a.chunks;
        state_t<P, J> state{};
        accumulate<P, J, 1>(nodes, a, registers<P, 1>{}, row, begin + threadIdx.x, end, blockDim.x, state);
        state = merge_row(get<J>(nodes).op, state, static_cast<int>(blockDim.x), shared);
        if (threadIdx.x == 0) partial<P, J>(a, row, blockIdx.x) = state;
      }
    }
    split_nodes<P, J + 1>(nodes, a, shared);
  }
}

/// Split group: few long rows; block (x, y) reduces chunk x of row y.
template <class P>
__global__ void __launch_bounds__(512)
    split_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  split_nodes<P, 0>(nodes, a, shared);
}

template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void finish_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                     unsigned char* shared) {
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
          for (std::int64_t c = lane; c < a.chunks; c += tpr) op.merge(state, partial<P, J>(a, k, c));
        state = merge_row(op, state, tpr, shared);
        if (valid && lane == 0) {
          const auto result = op.finish(state, a.space.inner);
          const decltype(result) values[1] = {result};
          store<P, J, 1>(a, position<std::int64_t>{k, 0}, values);
        }
      }
    }
    finish_nodes<P, J + 1>(nodes, a, shared);
  }
}

/// Second stage of column and split groups: merges each kept element's
/// partial states in chunk order (`threads_per_row` threads each, a tree),
/// finishes and stores.
template <class P>
__global__ void __launch_bounds__(256)
    finish_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  finish_nodes<P, 0>(nodes, a, shared);
}

}  // namespace fusedsl::cuda_detail
