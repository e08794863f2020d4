/// @file kernels.hpp
/// The CUDA kernels. Each kernel template holds the code of every node of a
/// program (program_nodes.hpp) and runs, in order, the nodes its group
/// names in `group_args::active` (a uniform branch per node): one launch
/// per group, whatever the group. Kernel classes:
/// - `pointwise_kernel`: nodes over one space, `V` elements per thread
///   (16-byte loads and stores when every operand is contiguous and
///   aligned, `V` = 1 otherwise), values between nodes in registers.
/// - `row_kernel`: reductions over the same axes with the pointwise nodes
///   over their operand: `threads_per_row` threads per row, each pass over
///   the row in chunks of a few vectors per thread, a tree of shuffles and
///   one barrier per reduction; rows of one chunk keep a placeholder that
///   several nodes read in registers (each element read once).
/// - `column_kernel` + `finish_kernel`: reductions over leading axes,
///   threads over vectors of columns (16-byte loads when contiguous and
///   aligned) and rows, partial states per chunk of rows (chunks enough to
///   fill the device), merged in a fixed order.
/// - `split_kernel` + `finish_kernel`: few long rows cut into chunks.
#pragma once
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <tuple>        // std::tuple_element_t
#include <type_traits>  // std::conditional_t, std::is_same_v, std::remove_cvref_t
#include <utility>      // std::integer_sequence

#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_t, loop_t, leaf_at, producer, node_objects
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>               // evaluate
#include <fusedsl/expr/reduction_ops.hpp>          // ops::moment

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
  std::uint64_t active = 0;         ///< nodes the group runs
  std::uint64_t in_registers = 0;   ///< nodes whose readers in this group take the value from registers
  std::uint64_t stores_target = 0;  ///< nodes that store their statement target's element type
  int cached = -1;                  ///< the placeholder the row kernel keeps in registers for the row (-1: none)
  int cache_source = -1;            ///< the slot whose address it is loaded from
  int threads_per_row = 1;          ///< row and finish kernels
  std::int64_t chunks = 1;          ///< column and split kernels: partial states per kept element
  char* workspace = nullptr;        ///< partial states
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
  // no loop (strides of missing axes are 0, their index too): clearly faster
  // row, column and full reductions on the H100.
  if (s.kept_rank <= 1 && s.reduced_rank <= 1)
    return at.row * static_cast<Index>(o.kept[0]) + at.j * static_cast<Index>(o.reduced[0]);
  return unravel_dot(at.row, s.kept_rank, s.kept, o.kept) + unravel_dot(at.j, s.reduced_rank, s.reduced, o.reduced);
}

/// `V` elements of `T` from `from` (16-byte aligned when `V * sizeof(T)` is
/// a multiple of 16: one 16-byte load per 16 bytes).
template <int V, class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void load_vector(const T* from, T* to) {
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
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void store_vector(T* to, const T* from) {
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
/// registers (`V` per node).
template <class P, int V>
struct registers {
  node_values<P, V> nodes;
};

/// True for params (their value travels in the kernel's arguments).
template <class L>
inline constexpr bool is_param_leaf = !requires {
  L::role_of;
}
&&!makes_node<L> && !requires { std::declval<L>().view; };
/// A param's value.
template <class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE T param_value(const operand& o) {
  T value;
  std::memcpy(&value, &o.value, sizeof(T));
  return value;
}

/// Gathers slot `S` (and the following ones) of node J at `at` (`V`
/// consecutive elements along the innermost kept axis when `V` > 1, the
/// operand's stride along it then 0 or 1: pointwise groups, columns).
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
    bool done = false;
    if constexpr (is_param_leaf<L>) {
      const T value = param_value<T>(o);
#pragma unroll
      for (int v = 0; v < V; ++v) to[v] = value;
      done = true;
    } else if constexpr (from_node >= 0) {
      if (a.in_registers >> from_node & 1u) {
#pragma unroll
        for (int v = 0; v < V; ++v) to[v] = values_of<from_node>(regs.nodes)[v];
        done = true;
      }
    }
    if (!done) {
      const T* base = static_cast<const T*>(o.data) + offset(o, a.space, at);
      if constexpr (V == 1) {
        to[0] = *base;
      } else if (o.kept[a.space.kept_rank - 1] == 0) {
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

/// True for var and std (`ops::moment`).
template <class Op>
inline constexpr bool is_moment = false;
template <bool Root>
inline constexpr bool is_moment<ops::moment<Root>> = true;

/// `op.merge(s, o)`, except for var and std over floats: Chan's merge with
/// one fast division (`__fdividef`, exact for the power-of-two counts of
/// full rows) instead of two IEEE divisions, and no branches. With IEEE
/// divisions these merges are about a quarter of layernorm's instructions
/// (docs/backends-cuda.md).
template <class Op, class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void merge_states(const Op& op, State& s, const State& o) {
  if constexpr (is_moment<Op> && std::is_same_v<State, typename Op::template state<float>>) {
    // Empty states (n = 0) have mean and m2 0: w = 0 keeps s; s empty takes o (w = 1 within 2 ulp).
    const float n = s.n + o.n, w = n > 0.0f ? __fdividef(o.n, n) : 0.0f, delta = o.mean - s.mean;
    s.mean += delta * w;
    s.m2 += o.m2 + delta * delta * (s.n * w);
    s.n = n;
  } else {
    op.merge(s, o);
  }
}

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

/// Bytes of one of `merge_row`'s two shared-memory areas: a state per warp
/// of `threads` threads, the largest state being `state_bytes`.
FUSEDSL_HOST_DEVICE constexpr int merge_area_bytes(int threads, int state_bytes) {
  return ((threads + 31) / 32 * state_bytes + 15) / 16 * 16;
}

/// Merges the states of the `threads_per_row` threads (a power of two) of
/// each row of the block in a fixed tree: shuffles inside warps, then the
/// warps' states through shared memory; every thread gets its row's total.
/// Every thread of the block calls it. Consecutive merges write their
/// warps' states to the two areas of `shared` in turns (`turn`): so one
/// barrier per merge suffices (a warp writing the area of the merge before
/// last has passed the last merge's barrier, so every warp has read it).
template <class Op, class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State merge_row(const Op& op, State state, int threads_per_row,
                                                   unsigned char* shared, int area_bytes, int& turn) {
  // Powers of two: masks and shifts, not integer divisions (about 25 instructions each).
  const int width = threads_per_row < 32 ? threads_per_row : 32;
  const int in_warp = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  for (int offset = width / 2; offset > 0; offset /= 2) {
    const State other = shuffle_down(state, offset, width);
    if ((in_warp & (width - 1)) < offset) merge_states(op, state, other);
  }
  if (threads_per_row <= 32) return shuffle_first(state, width);
  State* partials = reinterpret_cast<State*>(shared + (turn++ & 1) * area_bytes);
  const int warps_per_row = threads_per_row >> 5;
  if (in_warp == 0) partials[warp] = state;
  __syncthreads();
  State total = in_warp < warps_per_row ? partials[(warp & ~(warps_per_row - 1)) + in_warp] : State{};
  // log2(warps_per_row) steps (3 for rows of 8 warps), not 5.
  for (int offset = warps_per_row / 2; offset > 0; offset /= 2) {
    const State other = shuffle_down(total, offset, 32);
    if (in_warp < offset) merge_states(op, total, other);
  }
  return shuffle_first(total, 32);
}

/// Bytes of reduction node J's state (0 for other nodes).
template <class P, int J>
constexpr int state_bytes_of() {
  if constexpr (is_reduction_at<P, J>) return static_cast<int>(sizeof(state_t<P, J>));
  else return 0;
}
template <class P, int... J>
constexpr int largest_state_bytes(std::integer_sequence<int, J...>) {
  int largest = 1;
  ((largest = largest < state_bytes_of<P, J>() ? state_bytes_of<P, J>() : largest), ...);
  return largest;
}
/// The largest state of `P`'s reductions (bytes; 1 without any).
template <class P>
inline constexpr int largest_state = largest_state_bytes<P>(std::make_integer_sequence<int, node_count<P>>{});

/// Shared memory of a kernel of `threads` threads that merges states with
/// `merge_row`: its two areas.
template <class P>
constexpr int merge_shared_bytes(int threads) {
  return 2 * merge_area_bytes(threads, largest_state<P>);
}

/// Elements of a row each thread of the vectorized row kernel takes per
/// pass over a chunk of the row (`row_elements / V` vectors of `V`, their
/// loads in flight together), and holds of the cached placeholder: 256
/// threads hold a row of 4096 in one chunk, as Triton's persistent
/// reductions do.
inline constexpr int row_elements = 16;
/// Vectors of `V` elements per thread and chunk: 16 elements when
/// vectorized; 4 for the scalar kernel, whose general offsets per element
/// made it four times larger (to compile) with 16.
template <int V>
inline constexpr int chunk_vectors = V > 1 ? row_elements / V : 4;
/// Elements per thread and chunk.
template <int V>
inline constexpr int chunk_elements = V* chunk_vectors<V>;

template <class P, int J, int I, std::size_t... S>
constexpr bool reads_placeholder(std::index_sequence<S...>) {
  return ((memory_leaf_index<P, leaf_at<loop_t<P, J>, S>>() == I) || ...);
}
template <class P, int I, int... J>
constexpr int readers_of(std::integer_sequence<int, J...>) {
  return (0 + ... + (reads_placeholder<P, J, I>(std::make_index_sequence<leaf_slots<loop_t<P, J>>()>{}) ? 1 : 0));
}
/// True when two or more nodes of `P` read placeholder I: a row group may
/// cache it (`group_args::cached`). Only these cost cache registers and code.
template <class P, int I>
inline constexpr bool cacheable = readers_of<P, I>(std::make_integer_sequence<int, node_count<P>>{}) >= 2;
template <class P, int... I>
constexpr int cache_element_bytes(std::integer_sequence<int, I...>) {
  int bytes = 0;
  ((bytes = cacheable<P, I> && static_cast<int>(sizeof(memory_leaf_t<P, I>)) > bytes
                ? static_cast<int>(sizeof(memory_leaf_t<P, I>))
                : bytes),
   ...);
  return bytes;
}

/// The row kernel's registers: the reductions' results for the current
/// row, and the thread's `row_elements` elements of the row of the cached
/// placeholder (raw bytes: which placeholder it is is known at run time
/// only; one placeholder, so that a program's others cost no registers).
template <class P>
struct row_registers {
  static constexpr int cache_words =
      (row_elements * cache_element_bytes<P>(std::make_integer_sequence<int, memory_leaf_count<P>>{}) + 3) / 4;
  node_values<P, 1> nodes;
  std::uint32_t cache[cache_words > 0 ? cache_words : 1];
};

/// Where the row kernel's thread works: a chunk of a row. Its vector k
/// starts at element `base + at(k)` of the row: vector `lane + k *
/// threads_per_row` of the chunk, so that a warp's accesses are consecutive.
struct chunk {
  std::int64_t row = 0, base = 0;  ///< the row, the chunk's first element
  int first = 0, step = 0;         ///< lane * V, threads_per_row * V
  /// Element of the chunk where vector k starts (32 bits: a chunk has at most 1024 * row_elements).
  FUSEDSL_DEVICE FUSEDSL_FORCEINLINE int at(int k) const { return first + k * step; }
};

/// True when all of the thread's vectors of chunk `c` lie in the row: its
/// passes then run without a test per vector.
template <int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE bool full_chunk(const space_args& s, const chunk& c) {
  return c.base + c.at(chunk_vectors<V> - 1) < s.inner;
}

/// The offset of the start of chunk `c`'s row in `o`, for `V` > 1: 32
/// bits (the host vectorizes only groups whose offsets fit: one 32-bit
/// multiply-add, not 64-bit ones per vector), at most one kept and one
/// reduced axis, along which `o` steps by 0 or 1.
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE int chunk_offset(const operand& o, const chunk& c) {
  return static_cast<int>(c.row) * static_cast<int>(o.kept[0]) +
         static_cast<int>(c.base) * static_cast<int>(o.reduced[0]);
}

/// Loads vector k of the thread's vectors of chunk `c` of operand `o` into
/// `to` (`Full`: it lies in the row; else one past the row's end is left
/// as it is).
template <int V, bool Full, class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void load_vector_at(const space_args& s, const operand& o, const chunk& c, int k,
                                                       T* to) {
  if constexpr (V > 1) {
    const T* from = static_cast<const T*>(o.data) + chunk_offset(o, c);
    if (o.reduced[0] == 0) {
      const T value = *from;
#pragma unroll
      for (int v = 0; v < V; ++v) to[v] = value;
    } else if (Full || c.base + c.at(k) < s.inner) {
      load_vector<V>(from + c.at(k), to);
    }
  } else {
    const std::int64_t j = c.base + c.at(k);
    if (Full || j < s.inner) to[0] = static_cast<const T*>(o.data)[offset(o, s, position<std::int64_t>{c.row, j})];
  }
}

/// True when slot `L` of a row group's node holds the same value along a
/// row: a param, or a reduction's result (`V` > 1: the host vectorizes a
/// row group only when every reduction it reads is constant along its rows).
template <class P, class L, int J, int V>
inline constexpr bool uniform_leaf = is_param_leaf<L> || (V > 1 && [] {
                                       if constexpr (producer<P, J, L>() >= 0)
                                         return is_reduction_at<P, producer<P, J, L>()>;
                                       else return false;
                                     }());

/// Gathers the slots of node J that are constant along the row
/// (`uniform_leaf`) once per chunk: every element then reads the same
/// value, so the compiler computes expressions of them once (layernorm's
/// rsqrt(var + eps), not one per element).
template <class P, int J, std::size_t S, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void gather_uniform(const group_args<P>& a, const row_registers<P>& regs,
                                                       const chunk& c, slot_values<loop_t<P, J>, 1>& out) {
  using E = loop_t<P, J>;
  if constexpr (S < leaf_slots<E>()) {
    using L = leaf_at<E, S>;
    using T = leaf_storage_t<L>;
    const operand& o = a.leaves[slot_base<P>[J] + static_cast<int>(S)];
    if constexpr (is_param_leaf<L>) {
      slot_of<S>(out)[0] = param_value<T>(o);
    } else if constexpr (uniform_leaf<P, L, J, V>) {
      constexpr int from_node = producer<P, J, L>();
      slot_of<S>(out)[0] = a.in_registers >> from_node & 1u ? static_cast<T>(values_of<from_node>(regs.nodes)[0])
                                                            : static_cast<const T*>(o.data)[chunk_offset(o, c)];
    }
    gather_uniform<P, J, S + 1, V>(a, regs, c, out);
  }
}

/// Gathers slot `S` (and the following ones) of node J at vector k of the
/// thread's vectors of chunk `c`: a value constant along the row
/// (`uniform`), a reduction's result in registers, the cached placeholder,
/// or memory.
template <class P, int J, std::size_t S, int V, bool Full>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void gather_vector(const group_args<P>& a, const row_registers<P>& regs,
                                                      const chunk& c, int k,
                                                      const slot_values<loop_t<P, J>, 1>& uniform,
                                                      slot_values<loop_t<P, J>, V>& out) {
  using E = loop_t<P, J>;
  if constexpr (S < leaf_slots<E>()) {
    using L = leaf_at<E, S>;
    using T = leaf_storage_t<L>;
    auto& to = slot_of<S>(out);
    const operand& o = a.leaves[slot_base<P>[J] + static_cast<int>(S)];
    constexpr int from_node = producer<P, J, L>();
    constexpr int placeholder = memory_leaf_index<P, L>();
    bool done = false;
    if constexpr (uniform_leaf<P, L, J, V>) {
#pragma unroll
      for (int v = 0; v < V; ++v) to[v] = slot_of<S>(uniform)[0];
      done = true;
    } else if constexpr (from_node >= 0) {
      // Row groups keep their reductions' results in registers, never pointwise nodes' values.
      if constexpr (is_reduction_at<P, from_node>) {
        if (a.in_registers >> from_node & 1u) {
#pragma unroll
          for (int v = 0; v < V; ++v) to[v] = values_of<from_node>(regs.nodes)[0];
          done = true;
        }
      }
    } else if constexpr (placeholder >= 0) {
      if constexpr (cacheable<P, placeholder>) {
        if (a.cached == placeholder) {
          std::memcpy(to, reinterpret_cast<const unsigned char*>(regs.cache) + k * V * sizeof(T), sizeof(to));
          done = true;
        }
      }
    }
    if (!done) load_vector_at<V, Full>(a.space, o, c, k, to);
    gather_vector<P, J, S + 1, V, Full>(a, regs, c, k, uniform, out);
  }
}

/// Stores node J's `V` values at vector k of the thread's vectors of chunk
/// `c`: its target's element type or its own.
template <class P, int J, int V, bool Full, class C>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void store_vector_at(const group_args<P>& a, const chunk& c, int k,
                                                        const C (&values)[V]) {
  const operand& o = a.outs[J];
  const std::int64_t j = c.base + c.at(k);
  if (o.data == nullptr || (!Full && j >= a.space.inner)) return;
  const auto put = [&](auto* data) {
    using T = std::remove_pointer_t<decltype(data)>;
    T converted[V];
#pragma unroll
    for (int v = 0; v < V; ++v) converted[v] = static_cast<T>(values[v]);
    if constexpr (V > 1) store_vector<V>(data + chunk_offset(o, c) + c.at(k), converted);
    else data[offset(o, a.space, position<std::int64_t>{c.row, j})] = converted[0];
  };
  if (a.stores_target >> J & 1u) put(static_cast<target_element_t<P, J>*>(const_cast<void*>(o.data)));
  else if constexpr (distinct_at<P, J> >= 0) put(static_cast<value_t<P, J>*>(const_cast<void*>(o.data)));
}

/// Loads the thread's elements of the row of the cached placeholder
/// (placeholder I or a later one) into `regs.cache`: all loads in flight together.
template <class P, int I, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void load_cache(const group_args<P>& a, row_registers<P>& regs, const chunk& c) {
  if constexpr (I < memory_leaf_count<P>) {
    if constexpr (cacheable<P, I>) {
      if (a.cached == I) {
        using T = memory_leaf_t<P, I>;
        T values[chunk_elements<V>] = {};
#pragma unroll
        for (int k = 0; k < chunk_vectors<V>; ++k)
          load_vector_at<V, false>(a.space, a.leaves[a.cache_source], c, k, values + k * V);
        std::memcpy(regs.cache, values, sizeof(values));
        return;
      }
    }
    load_cache<P, I + 1, V>(a, regs, c);
  }
}

/// Adds reduction node J's operand over the thread's vectors of chunk `c`
/// into `state`, in element order: all gathered and evaluated first (loads
/// in flight together), then added; with the op's `add_block` when it has
/// one and every vector lies in the row (var's Welford update then divides
/// once per chunk, not once per element).
template <class P, int J, int V, bool Full>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void accumulate_chunk(const node_objects<P>& nodes, const group_args<P>& a,
                                                         const row_registers<P>& regs, const chunk& c,
                                                         state_t<P, J>& state) {
  using N = node_t<P, J>;
  using E = loop_t<P, J>;
  using C = compute_t<kernel_numerics, N::input_dtype>;
  constexpr int K = chunk_vectors<V>;
  const N& r = get<J>(nodes);
  slot_values<E, 1> uniform{};
  gather_uniform<P, J, 0, V>(a, regs, c, uniform);
  C values[K * V];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    slot_values<E, V> slots{};
    gather_vector<P, J, 0, V, Full>(a, regs, c, k, uniform, slots);
#pragma unroll
    for (int v = 0; v < V; ++v)
      values[k * V + v] = static_cast<C>(evaluate<kernel_numerics, 0>(r.arg, gathered<E, V>{slots, v}));
  }
  if constexpr (Full && requires { r.op.add_block(state, values, std::int64_t{K * V}); }) {
    r.op.add_block(state, values, std::int64_t{K * V});
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const std::int64_t j = c.base + c.at(k);
      if (Full || j < a.space.inner)
#pragma unroll
        for (int v = 0; v < V; ++v) r.op.add(state, values[k * V + v], j + v);
    }
  }
}

/// Pointwise node J over the thread's vectors of chunk `c`, a vector at a time.
template <class P, int J, int V, bool Full>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void pointwise_chunk(const node_objects<P>& nodes, const group_args<P>& a,
                                                        const row_registers<P>& regs, const chunk& c) {
  using E = loop_t<P, J>;
  const E& e = loop_of<distinct_at<P, J>>(get<J>(nodes));
  slot_values<E, 1> uniform{};
  gather_uniform<P, J, 0, V>(a, regs, c, uniform);
#pragma unroll
  for (int k = 0; k < chunk_vectors<V>; ++k) {
    slot_values<E, V> slots{};
    gather_vector<P, J, 0, V, Full>(a, regs, c, k, uniform, slots);
    compute_t<kernel_numerics, E::value_dtype> values[V];
#pragma unroll
    for (int v = 0; v < V; ++v) values[v] = evaluate<kernel_numerics, 0>(e, gathered<E, V>{slots, v});
    store_vector_at<P, J, V, Full>(a, c, k, values);
  }
}

template <class P, int J, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void row_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                  row_registers<P>& regs, std::int64_t row, bool valid, int lane,
                                                  unsigned char* shared, int& turn) {
  if constexpr (J < node_count<P>) {
    if (a.active >> J & 1u) {
      const int tpr = a.threads_per_row;
      const std::int64_t inner = a.space.inner, size = std::int64_t{tpr} * chunk_elements<V>;
      chunk c{row, 0, lane * V, tpr * V};
      // A chunk at a time (rows of one chunk are the fast case): unrolled,
      // the loop would keep several chunks' values in registers.
      if constexpr (is_reduction_at<P, J>) {
        state_t<P, J> state{};
        if (valid)
#pragma unroll 1
          for (; c.base < inner; c.base += size) {
            if (full_chunk<V>(a.space, c)) accumulate_chunk<P, J, V, true>(nodes, a, regs, c, state);
            else accumulate_chunk<P, J, V, false>(nodes, a, regs, c, state);
          }
        const auto& op = get<J>(nodes).op;
        state =
            merge_row(op, state, tpr, shared, merge_area_bytes(static_cast<int>(blockDim.x), largest_state<P>), turn);
        const auto result = op.finish(state, inner);
        values_of<J>(regs.nodes)[0] = static_cast<value_t<P, J>>(result);
        if (valid && lane == 0) {
          const decltype(result) values[1] = {result};
          store<P, J, 1>(a, position<std::int64_t>{row, 0}, values);
        }
      } else if (valid) {
#pragma unroll 1
        for (; c.base < inner; c.base += size) {
          if (full_chunk<V>(a.space, c)) pointwise_chunk<P, J, V, true>(nodes, a, regs, c);
          else pointwise_chunk<P, J, V, false>(nodes, a, regs, c);
        }
      }
    }
    row_nodes<P, J + 1, V>(nodes, a, regs, row, valid, lane, shared, turn);
  }
}

/// Row group: `threads_per_row` threads per row, `blockDim.x /
/// threads_per_row` rows per block; every node runs over the whole row in
/// order, in chunks of `threads_per_row * chunk_elements<V>` elements, each
/// thread on the same `V`-element vectors of a chunk in every pass (16-byte
/// loads when the rows are contiguous and aligned). A row of one chunk
/// keeps the cached placeholder (read by several nodes) in registers: read
/// from memory once. Launch bound 1024 (rows of 16384 in one chunk): at
/// most 64 registers. The vectorized kernel (`V` > 1) serves spaces of at
/// most one kept and one reduced axis only (`load_chunk`).
template <class P, int V>
__global__ void __launch_bounds__(1024)
    row_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int rows_per_block = static_cast<int>(blockDim.x) / a.threads_per_row;
  const int slot = static_cast<int>(threadIdx.x) / a.threads_per_row;
  const int lane = static_cast<int>(threadIdx.x) % a.threads_per_row;
  int turn = 0;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block; first < a.space.outer;
       first += static_cast<std::int64_t>(gridDim.x) * rows_per_block) {
    const std::int64_t row = first + slot;
    const bool valid = row < a.space.outer;
    row_registers<P> regs;
    if (valid && a.cached >= 0) load_cache<P, 0, V>(a, regs, chunk{row, 0, lane * V, a.threads_per_row * V});
    row_nodes<P, 0, V>(nodes, a, regs, valid ? row : 0, valid, lane, shared, turn);
  }
}

// ---------------------------------------------------------------- columns and splits

/// The partial state of reduction node J for kept element `k`, chunk `c`.
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE state_t<P, J>& partial(const group_args<P>& a, std::int64_t k, std::int64_t c) {
  return reinterpret_cast<state_t<P, J>*>(a.workspace + a.work_offset[J])[k * a.chunks + c];
}

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
          if (threadIdx.y == 0 && valid) partial<P, J>(a, column + v, blockIdx.y) = total;
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

/// Split group: few long rows; block (x, y) reduces chunk x of row y.
template <class P>
__global__ void __launch_bounds__(512)
    split_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  int turn = 0;
  split_nodes<P, 0>(nodes, a, shared, turn);
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
