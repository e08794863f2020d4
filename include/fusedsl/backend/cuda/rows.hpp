/// @file rows.hpp
/// The CUDA row kernel class: `row_kernel` runs reductions and scans over
/// the same axes with the pointwise nodes over their operand,
/// `threads_per_row` threads per row, each pass over the row in chunks of a
/// few vectors per thread, a tree of shuffles and one barrier per reduction
/// (and per vector of a chunk of a scan); rows of one chunk keep a
/// placeholder that several nodes read in registers (each element read once),
/// and in the kernel's `Held` form, after a reduction's pass, that
/// reduction's operand values for the nodes that compute it too.
#pragma once
#include <algorithm>    // std::clamp, std::max
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint32_t
#include <cstring>      // std::memcpy
#include <type_traits>  // std::remove_pointer_t, std::remove_cvref_t, std::is_same_v
#include <utility>      // std::index_sequence, std::make_integer_sequence, std::declval

#include <fusedsl/backend/cuda/gather.hpp>  // node_values, slot_values, evaluate_slots, gather, load_vector, store, with_output
#include <fusedsl/backend/cuda/group_args.hpp>     // group_args, operand, space_args
#include <fusedsl/backend/cuda/merges.hpp>         // merge_row, merge_area_bytes, largest_state
#include <fusedsl/backend/cuda/program_nodes.hpp>  // memory_leaf_index, memory_leaf_t, producer, is_reduction_at
#include <fusedsl/backend/cuda/scans.hpp>          // scan_row
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/hana.hpp>                   // hana::at_c
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>               // evaluate, detail::operand_first_slot
#include <fusedsl/expr/gather.hpp>                 // is_computed_leaf, is_gather_node
#include <fusedsl/expr/traverse.hpp>  // leaf_slots, leaf_storage_t, is_inlined, computed_subexpressions, lists

namespace fusedsl::cuda_detail {

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

/// Bytes per element of the row a thread of the vectorized row kernel
/// holds: the cached placeholder's (several nodes read it), else the
/// smallest element type of the group (`V` of them fill 16 bytes).
template <class P, int V>
inline constexpr int row_element_bytes = [] {
  const int cached = cache_element_bytes<P>(std::make_integer_sequence<int, memory_leaf_count<P>>{});
  return cached > 0 ? cached : 16 / V;
}();
/// Elements of a row each thread of the row kernel takes per pass over a
/// chunk of the row (`chunk_vectors` vectors of `V`, their loads in flight
/// together), and holds of the cached placeholder: FUSEDSL_CUDA_ROW_BYTES
/// of the row (at least 16, at most 32 elements), so that a row's fixed
/// costs (its merges, the chunk's bookkeeping) are shared by as many
/// elements as registers allow. The scalar kernel (`V` == 1) takes 4: its
/// general offsets per element made it four times larger (to compile) with 16.
template <class P, int V, int Bytes = FUSEDSL_CUDA_ROW_BYTES>
inline constexpr int chunk_elements = [] {
  if constexpr (V > 1) return std::max(V, std::clamp(Bytes / row_element_bytes<P, V>, 16, 32));
  else return 4;
}();
/// Elements of a row each thread of the row kernel's `Packed` form takes:
/// FUSEDSL_CUDA_PACKED_ROW_BYTES of it.
template <class P, int V>
inline constexpr int packed_chunk_elements = chunk_elements<P, V, FUSEDSL_CUDA_PACKED_ROW_BYTES>;
template <class P, int... J>
constexpr int count_reductions(std::integer_sequence<int, J...>) {
  return (0 + ... + (is_reduction_at<P, J> ? 1 : 0));
}
/// True when the row kernel's `Packed` form can serve row groups of `P`
/// (and is instantiated): vectorized, more elements per thread than the
/// other form takes (f32 rows, not half ones), and two or more reductions
/// in `P` (the host's rule: executor.hpp).
template <class P, int V>
inline constexpr bool has_packed_form = [] {
  constexpr int elements = chunk_elements<P, V>, packed = packed_chunk_elements<P, V>;
  return FUSEDSL_CUDA_PACKED_ROW_MIN > 0 && V > 1 && packed > elements &&
         count_reductions<P>(std::make_integer_sequence<int, node_count<P>>{}) >= 2;
}();

/// What pointwise node J of `P` saves by reading reduction R's operand
/// instead of computing it, where it computes that operand too (an inlined
/// expression, in R's compute type): the operand's computed subexpressions;
/// 0 otherwise. R must come before J, in J's statement.
template <class P, int J, int R>
constexpr int operand_savings() {
  if constexpr (R >= J || !is_reduction_at<P, R> || node_table<P>[R].statement != node_table<P>[J].statement) {
    return 0;
  } else {
    using A = loop_t<P, R>;
    if constexpr (!is_inlined<A> || !std::is_same_v<compute_t<kernel_numerics, A::value_dtype>,
                                                    compute_t<kernel_numerics, node_t<P, R>::input_dtype>>)
      return 0;
    else
      return lists<A>(typename computed_subexpressions<loop_t<P, J>>::type{})
                 ? list_length(typename computed_subexpressions<A>::type{})
                 : 0;
  }
}
template <class P, int J, int... R>
constexpr int find_held_source(std::integer_sequence<int, R...>) {
  if constexpr (is_reduction_at<P, J> || is_scan_at<P, J>) {
    return -1;
  } else {
    constexpr int saves[] = {operand_savings<P, J, R>()..., 0};
    int best = -1;
    for (int r = 0; r < static_cast<int>(sizeof...(R)); ++r)
      if (saves[r] > 0 && (best < 0 || saves[r] > saves[best])) best = r;
    return best;
  }
}
/// The reduction whose operand pointwise node J also computes (softmax's
/// exp(x - max) in its sum and in its value; the one that saves the most),
/// or -1. In rows of one chunk the row kernel's `Held` form keeps the
/// operand values of one such reduction (`held_reduction`) in the registers
/// of the row cache, and J reads them instead of computing them again.
template <class P, int J>
inline constexpr int held_source = find_held_source<P, J>(std::make_integer_sequence<int, node_count<P>>{});

/// The type of the operand values reduction R keeps for the row.
template <class P, int R>
using held_t = compute_t<kernel_numerics, node_t<P, R>::input_dtype>;
template <class P, int R, int... J>
constexpr bool read_by_any(std::integer_sequence<int, J...>) {
  return ((held_source<P, J> == R) || ...);
}
/// True when some node of `P` reads reduction R's operand values.
template <class P, int R>
inline constexpr bool keeps_operand = read_by_any<P, R>(std::make_integer_sequence<int, node_count<P>>{});
template <class P, int... R>
constexpr int first_kept(std::integer_sequence<int, R...>) {
  const bool kept[] = {keeps_operand<P, R>..., false};
  for (int r = 0; r < static_cast<int>(sizeof...(R)); ++r)
    if (kept[r]) return r;
  return -1;
}
/// The reduction whose operand values the row kernel's `Held` form keeps
/// (the first that some node reads them from), or -1: that form is
/// instantiated only for programs that have one.
template <class P>
inline constexpr int held_reduction = first_kept<P>(std::make_integer_sequence<int, node_count<P>>{});
template <class P, int J>
constexpr int held_bytes_of() {
  if constexpr (held_source<P, J> >= 0) return static_cast<int>(sizeof(held_t<P, held_source<P, J>>));
  else return 0;
}
template <class P, int... J>
constexpr int largest_held_bytes(std::integer_sequence<int, J...>) {
  return std::max({0, held_bytes_of<P, J>()...});
}

/// True when leaf slot `S` of expression `E` (its slots numbered from
/// `First`) lies in a subexpression `A` (there a reader that holds `A`
/// reads nothing of it).
template <class A, std::size_t S, std::size_t First, class E>
constexpr bool slot_inside();
template <class A, std::size_t S, std::size_t First, class E, std::size_t... I>
constexpr bool slot_inside_operands(std::index_sequence<I...>) {
  return (slot_inside<A, S, detail::operand_first_slot<E, First, I>(),
                      std::remove_cvref_t<decltype(hana::at_c<I>(std::declval<const E&>().args))>>() ||
          ...);
}
template <class A, std::size_t S, std::size_t First, class E>
constexpr bool slot_inside() {
  if constexpr (std::is_same_v<E, A>) return First <= S && S < First + leaf_slots<E>();
  else if constexpr (is_inlined<E> && !is_gather_node<E>)
    return slot_inside_operands<A, S, First, E>(std::make_index_sequence<E::op::arity>{});
  else return false;
}
/// True when leaf slot `S` of node J lies in the operand it reads from its
/// held source.
template <class P, int J, std::size_t S>
constexpr bool held_slot() {
  if constexpr (held_source<P, J> >= 0) return slot_inside<loop_t<P, held_source<P, J>>, S, 0, loop_t<P, J>>();
  else return false;
}

/// The row kernel's registers: the reductions' results for the current
/// row, and the thread's `chunk_elements` elements of the row of the cached
/// placeholder (raw bytes: which placeholder it is is known at run time
/// only; one placeholder, so that a program's others cost no registers),
/// which in the kernel's `Held` form hold the operand values of
/// `held_reduction` after its pass (one set of registers for both).
template <class P, int V, int Elements = chunk_elements<P, V>>
struct row_registers {
  static constexpr int cache_words =
      std::max((Elements * cache_element_bytes<P>(std::make_integer_sequence<int, memory_leaf_count<P>>{}) + 3) / 4,
               Elements* largest_held_bytes<P>(std::make_integer_sequence<int, node_count<P>>{}) / 4);
  node_values<P, 1> nodes;
  std::uint32_t cache[cache_words > 0 ? cache_words : 1];
};

/// Where the row kernel's thread works: a chunk of a row. Its vector k
/// starts at element `base + at(k)` of the row: vector `lane + k *
/// threads_per_row` of the chunk, so that a warp's accesses are consecutive.
struct chunk {
  std::int64_t row = 0, base = 0;  ///< the row, the chunk's first element
  int first = 0, step = 0;         ///< lane * V, threads_per_row * V
  /// Element of the chunk where vector k starts (32 bits: a chunk has at most 1024 * 32 elements).
  FUSEDSL_DEVICE FUSEDSL_FORCEINLINE int at(int k) const { return first + k * step; }
};

/// True when all of the thread's vectors of chunk `c` lie in the row: its
/// passes then run without a test per vector.
template <class P, int V, int Elements = chunk_elements<P, V>>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE bool full_chunk(const space_args& s, const chunk& c) {
  return c.base + c.at(Elements / V - 1) < s.inner;
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
template <class P, int J, std::size_t S, int V, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void gather_uniform(const group_args<P>& a,
                                                       const row_registers<P, V, Elements>& regs, const chunk& c,
                                                       slot_values<loop_t<P, J>, 1>& out) {
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
template <class P, int J, std::size_t S, int V, bool Full, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void gather_vector(const group_args<P>& a, const row_registers<P, V, Elements>& regs,
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
    if constexpr (is_computed_leaf<L>)
      computed_offsets<false, V>(o, a.space, position<std::int64_t>{c.row, c.base + c.at(k)}, to);
    else if (!done) load_vector_at<V, Full>(a.space, o, c, k, to);
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
  if (!Full && j >= a.space.inner) return;
  with_output<P, J>(a, [&](auto* data) {
    using T = std::remove_pointer_t<decltype(data)>;
    T converted[V];
    convert_values(values, converted);
    if constexpr (V > 1) store_vector<V>(data + chunk_offset(o, c) + c.at(k), converted);
    else data[offset(o, a.space, position<std::int64_t>{c.row, j})] = converted[0];
  });
}

/// Loads the thread's elements of the row of the cached placeholder
/// (placeholder I or a later one) into `regs.cache`: all loads in flight
/// together, with a test per vector only where the chunk reaches past the
/// row's end (`full_chunk`).
template <class P, int I, int V, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void load_cache(const group_args<P>& a, row_registers<P, V, Elements>& regs,
                                                   const chunk& c) {
  if constexpr (I < memory_leaf_count<P>) {
    if constexpr (cacheable<P, I>) {
      if (a.cached == I) {
        using T = memory_leaf_t<P, I>;
        T values[Elements] = {};
        const operand& o = a.leaves[a.cache_source];
        if (full_chunk<P, V, Elements>(a.space, c)) {
#pragma unroll
          for (int k = 0; k < Elements / V; ++k) load_vector_at<V, true>(a.space, o, c, k, values + k * V);
        } else {
#pragma unroll
          for (int k = 0; k < Elements / V; ++k) load_vector_at<V, false>(a.space, o, c, k, values + k * V);
        }
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
/// once per chunk, not once per element). `Keep` (`held_reduction` in the
/// kernel's `Held` form): the values then replace the row cache in `regs`,
/// for the nodes that read them (`held_source`).
template <class P, int J, int V, bool Full, bool Keep = false, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void accumulate_chunk(const node_objects<P>& nodes, const group_args<P>& a,
                                                         row_registers<P, V, Elements>& regs, const chunk& c,
                                                         state_t<P, J>& state) {
  using N = node_t<P, J>;
  using E = loop_t<P, J>;
  using C = compute_t<kernel_numerics, N::input_dtype>;
  constexpr int K = Elements / V;
  const N& r = get<J>(nodes);
  slot_values<E, 1> uniform{};
  gather_uniform<P, J, 0, V>(a, regs, c, uniform);
  C values[K * V];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    slot_values<E, V> slots{};
    gather_vector<P, J, 0, V, Full>(a, regs, c, k, uniform, slots);
    const bool inside = Full || c.base + c.at(k) < a.space.inner;
#pragma unroll
    for (int v = 0; v < V; ++v) values[k * V + v] = evaluate_slots<C, P, J>(r.arg, a, slots, v, inside);
  }
  if constexpr (Keep) {
    static_assert(sizeof(values) <= sizeof(regs.cache));
    std::memcpy(regs.cache, values, sizeof(values));
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

/// Scan node J over chunk `c` of the row: the thread's vectors gathered
/// and evaluated first (the identity past the row's end, and for a thread
/// without a row, `!valid`), then vector k of every thread of the row (the
/// chunk's elements k * threads_per_row * V onwards, in lane order) at a
/// time: each thread combines its V values in order, `scan_row` gives it
/// the lanes before it, and each element is `carry` (the earlier vectors
/// and chunks) with the lanes before it, then its own prefix. Every thread
/// of the block calls it, the same number of times.
template <class P, int J, int V, bool Full, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void scan_chunk(const node_objects<P>& nodes, const group_args<P>& a,
                                                   const row_registers<P, V, Elements>& regs, const chunk& c,
                                                   bool valid, scan_value_t<P, J>& carry, unsigned char* shared,
                                                   int& turn) {
  using E = loop_t<P, J>;
  using C = scan_value_t<P, J>;
  using Op = typename node_t<P, J>::op_type;
  constexpr int K = Elements / V;
  const auto& s = get<J>(nodes);
  slot_values<E, 1> uniform{};
  if (valid) gather_uniform<P, J, 0, V>(a, regs, c, uniform);
  C values[K * V];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const bool inside = valid && (Full || c.base + c.at(k) < a.space.inner);
    slot_values<E, V> slots{};
    if (inside) gather_vector<P, J, 0, V, Full>(a, regs, c, k, uniform, slots);
#pragma unroll
    for (int v = 0; v < V; ++v)
      values[k * V + v] = inside ? evaluate_slots<C, P, J>(s.arg, a, slots, v) : Op::template identity<C>();
  }
  const int area = merge_area_bytes(static_cast<int>(blockDim.x), largest_state<P>);
#pragma unroll 1
  for (int k = 0; k < K; ++k) {
    C prefix[V], running = Op::template identity<C>();
#pragma unroll
    for (int v = 0; v < V; ++v) prefix[v] = running = s.op.combine(running, values[k * V + v]);
    const row_prefix<C> lanes = scan_row(s.op, running, a.threads_per_row, shared, area, turn);
    const C start = s.op.combine(carry, lanes.before);
#pragma unroll
    for (int v = 0; v < V; ++v) prefix[v] = s.op.combine(start, prefix[v]);
    carry = s.op.combine(carry, lanes.total);
    if (valid) store_vector_at<P, J, V, Full>(a, c, k, prefix);
  }
}

/// Reads node J's slots as `gathered` does, except subexpression `A`, its
/// held source's operand (`held_source`), which it takes from `values`: that
/// reduction's values at the vector.
template <class A, class E, int V>
struct held_reader : gathered<E, V> {
  const compute_t<kernel_numerics, A::value_dtype>* values;
  template <class X, std::size_t First>
  static constexpr bool holds = std::is_same_v<X, A>;
  template <class X, std::size_t First>
  FUSEDSL_DEVICE FUSEDSL_FORCEINLINE auto held(const X&) const {
    return values[this->v];
  }
};

/// Pointwise node J over the thread's vectors of chunk `c`, a vector at a
/// time; `Held`: with its held source's operand values from `regs.cache`.
template <class P, int J, int V, bool Full, bool Held, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void pointwise_chunk(const node_objects<P>& nodes, const group_args<P>& a,
                                                        const row_registers<P, V, Elements>& regs, const chunk& c) {
  using E = loop_t<P, J>;
  using C = compute_t<kernel_numerics, E::value_dtype>;
  const E& e = loop_of<distinct_at<P, J>>(get<J>(nodes));
  slot_values<E, 1> uniform{};
  gather_uniform<P, J, 0, V>(a, regs, c, uniform);
#pragma unroll
  for (int k = 0; k < Elements / V; ++k) {
    slot_values<E, V> slots{};
    gather_vector<P, J, 0, V, Full>(a, regs, c, k, uniform, slots);
    C values[V];
    const bool inside = Full || c.base + c.at(k) < a.space.inner;
    if constexpr (Held) {
      constexpr int R = held_source<P, J>;
      held_t<P, R> held[V];
      std::memcpy(held, reinterpret_cast<const unsigned char*>(regs.cache) + k * sizeof(held), sizeof(held));
      const operand* leaves = a.leaves + slot_base<P>[J];
#pragma unroll
      for (int v = 0; v < V; ++v) {
        if constexpr (loop_gathers<E>) {
          if (!inside) {
            values[v] = C{};
            continue;
          }
        }
        values[v] =
            static_cast<C>(evaluate<kernel_numerics, 0>(e, held_reader<loop_t<P, R>, E, V>{{slots, v, leaves}, held}));
      }
    } else {
#pragma unroll
      for (int v = 0; v < V; ++v) values[v] = evaluate_slots<C, P, J>(e, a, slots, v, inside);
    }
    store_vector_at<P, J, V, Full>(a, c, k, values);
  }
}

/// Pointwise node J over the row, a chunk at a time.
template <class P, int J, int V, bool Held, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void pointwise_row(const node_objects<P>& nodes, const group_args<P>& a,
                                                      const row_registers<P, V, Elements>& regs, chunk c,
                                                      std::int64_t inner, std::int64_t size) {
#pragma unroll 1
  for (; c.base < inner; c.base += size) {
    if (full_chunk<P, V, Elements>(a.space, c)) pointwise_chunk<P, J, V, true, Held>(nodes, a, regs, c);
    else pointwise_chunk<P, J, V, false, Held>(nodes, a, regs, c);
  }
}

/// Pointwise node J over the rows (`group_args::per_row`) at `row`: its one
/// value there, from the row's reductions' results in `regs` (the group's
/// reductions all come before it) and memory, stored. One thread per row
/// runs it, the one that stores the reductions' results: no other node of
/// the group reads it (the host's condition), so no barrier.
template <class P, int J>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void row_value(const node_objects<P>& nodes, const group_args<P>& a,
                                                  const node_values<P, 1>& regs, std::int64_t row) {
  using E = loop_t<P, J>;
  using C = compute_t<kernel_numerics, E::value_dtype>;
  const position<std::int64_t> at{row, 0};
  slot_values<E, 1> slots{};
  gather<P, J, 0, 1>(a, regs, at, slots);
  const C values[1] = {evaluate_slots<C, P, J>(loop_of<distinct_at<P, J>>(get<J>(nodes)), a, slots, 0)};
  store<P, J, 1>(a, at, values);
}

template <class P, int J, int V, bool Held, int Elements>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void row_nodes(const node_objects<P>& nodes, const group_args<P>& a,
                                                  row_registers<P, V, Elements>& regs, std::int64_t row, bool valid,
                                                  int lane, unsigned char* shared, int& turn) {
  if constexpr (J < node_count<P>) {
    if (a.active >> J & 1u) {
      const int tpr = a.threads_per_row;
      const std::int64_t inner = a.space.inner, size = std::int64_t{tpr} * Elements;
      chunk c{row, 0, lane * V, tpr * V};
      // A chunk at a time (rows of one chunk are the fast case): unrolled,
      // the loop would keep several chunks' values in registers.
      if constexpr (is_reduction_at<P, J>) {
        state_t<P, J> state{};
        constexpr bool keep = Held && J == held_reduction<P>;
        if (valid)
#pragma unroll 1
          for (; c.base < inner; c.base += size) {
            if (full_chunk<P, V, Elements>(a.space, c)) accumulate_chunk<P, J, V, true, keep>(nodes, a, regs, c, state);
            else accumulate_chunk<P, J, V, false, keep>(nodes, a, regs, c, state);
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
      } else if constexpr (is_scan_at<P, J>) {
        // Every thread, with a row or not, over the same chunks, and every thread of the
        // block on the same path (the whole chunk in the row or not, not the thread's
        // part of it): scan_chunk's shuffles and barriers wait for all of them.
        scan_value_t<P, J> carry = node_t<P, J>::op_type::template identity<scan_value_t<P, J>>();
#pragma unroll 1
        for (; c.base < inner; c.base += size) {
          if (c.base + size <= inner) scan_chunk<P, J, V, true>(nodes, a, regs, c, valid, carry, shared, turn);
          else scan_chunk<P, J, V, false>(nodes, a, regs, c, valid, carry, shared, turn);
        }
      } else if (a.per_row >> J & 1u) {
        if (valid && lane == 0) row_value<P, J>(nodes, a, regs.nodes, row);
      } else if (valid) {
        pointwise_row<P, J, V, Held && held_source<P, J> == held_reduction<P>>(nodes, a, regs, c, inner, size);
      }
    }
    row_nodes<P, J + 1, V, Held>(nodes, a, regs, row, valid, lane, shared, turn);
  }
}

/// Row group: `threads_per_row` threads per row, `blockDim.x /
/// threads_per_row` rows per block; every node runs over the whole row in
/// order, in chunks of `threads_per_row * chunk_elements<P, V>` elements, each
/// thread on the same `V`-element vectors of a chunk in every pass (16-byte
/// loads when the rows are contiguous and aligned). A row of one chunk
/// keeps the cached placeholder (read by several nodes) in registers: read
/// from memory once. Launch bound FUSEDSL_CUDA_ROW_THREADS (1024: at most
/// 64 registers; rows of 16384 f32 in one chunk). `threads_per_row` is a
/// power of two: the prologue shifts and masks (integer divisions cost
/// about 25 instructions each, per row where a block has one pass). The
/// vectorized kernel (`V` > 1) serves spaces of at most one kept and one
/// reduced axis only (`load_chunk`). `Held` (rows of one chunk,
/// vectorized): `held_reduction` keeps its operand's values in place of the
/// row cache after its pass, and the nodes whose `held_source` it is read
/// them (a form of its own, so that neither form keeps the cache and those
/// values alive together). `Packed` (vectorized rows of one chunk of
/// `packed_chunk_elements`): blocks of at most FUSEDSL_CUDA_PACKED_ROW_THREADS,
/// FUSEDSL_CUDA_PACKED_ROW_MIN_BLOCKS of them per multiprocessor, each thread
/// on twice the elements: a row's merges and passes shared by as many
/// elements as Triton's one warp per row of 1024 floats gives its threads.
template <class P, int V, bool Held = false, bool Packed = false>
__global__ void __launch_bounds__(Packed ? FUSEDSL_CUDA_PACKED_ROW_THREADS : FUSEDSL_CUDA_ROW_THREADS,
                                  Packed ? FUSEDSL_CUDA_PACKED_ROW_MIN_BLOCKS : FUSEDSL_CUDA_ROW_MIN_BLOCKS)
    row_kernel(const __grid_constant__ node_objects<P> nodes, const __grid_constant__ group_args<P> a) {
  extern __shared__ __align__(16) unsigned char shared[];
  const int shift = __ffs(a.threads_per_row) - 1;
  const int rows_per_block = static_cast<int>(blockDim.x) >> shift;
  const int slot = static_cast<int>(threadIdx.x) >> shift;
  const int lane = static_cast<int>(threadIdx.x) & (a.threads_per_row - 1);
  int turn = 0;
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block; first < a.space.outer;
       first += static_cast<std::int64_t>(gridDim.x) * rows_per_block) {
    const std::int64_t row = first + slot;
    const bool valid = row < a.space.outer;
    row_registers<P, V, Packed ? packed_chunk_elements<P, V> : chunk_elements<P, V>> regs;
    if (valid && a.cached >= 0) load_cache<P, 0, V>(a, regs, chunk{row, 0, lane * V, a.threads_per_row * V});
    row_nodes<P, 0, V, Held>(nodes, a, regs, valid ? row : 0, valid, lane, shared, turn);
  }
}

}  // namespace fusedsl::cuda_detail
