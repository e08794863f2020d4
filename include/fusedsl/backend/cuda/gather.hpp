/// @file gather.hpp
/// How a CUDA kernel reads a node's operands and writes its values: the
/// value types of nodes and states, node and slot values in registers, a
/// position in the group's space and an operand's offset at it, vector
/// loads and stores, params, and `gather` and `store` themselves. Its own
/// header because every kernel class builds on it.
#pragma once
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <cstring>      // std::memcpy
#include <tuple>        // std::tuple_element_t
#include <type_traits>  // std::remove_pointer_t, std::conditional_t
#include <utility>      // std::declval

#include <fusedsl/backend/cuda/group_args.hpp>     // group_args, operand, space_args
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_t, loop_t, producer, distinct_at, slot_base
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/core/half.hpp>                   // bfloat16, half
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>               // evaluate
#include <fusedsl/expr/gather.hpp>                 // is_gathered_leaf, is_computed_leaf
#include <fusedsl/expr/traverse.hpp>  // leaf_slots, leaf_at, leaf_storage_t, node_storage_t, makes_node, loop_gathers

namespace fusedsl::cuda_detail {

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
/// The running value of scan node J: its input dtype's compute type.
template <class P, int J>
using scan_value_t = compute_t<kernel_numerics, node_t<P, J>::input_dtype>;

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

/// What a leaf slot of type `L` holds per element: its value, or for a
/// gathered leaf the offset of its element with the gathered axis at 0 (the
/// reader adds the index's: an indirect read, so nothing is loaded ahead).
template <class L>
using slot_t = std::conditional_t<is_gathered_leaf<L>, std::int64_t, leaf_storage_t<L>>;

/// The values of every leaf slot of a loop over `E` at `V` elements.
template <class E, int V, std::size_t S = 0, bool = (S < leaf_slots<E>())>
struct slot_values {
  slot_t<leaf_at<E, S>> v[V];
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

/// Reads gathered slot values at element `v` (evaluate's reader); a
/// gathered leaf's element through its operand (`leaves`: the loop's slots'
/// operands), at its slot's offset plus the index's along the gathered axis.
template <class E, int V>
struct gathered {
  const slot_values<E, V>& slots;
  int v;
  const operand* leaves;
  template <std::size_t K, class T>
  FUSEDSL_DEVICE FUSEDSL_FORCEINLINE T load() const {
    return slot_of<K>(slots)[v];
  }
  template <std::size_t K>
  FUSEDSL_DEVICE FUSEDSL_FORCEINLINE std::int64_t gathered_size() const {
    return leaves[K].gathered_size;
  }
  template <std::size_t K, class T>
  FUSEDSL_DEVICE FUSEDSL_FORCEINLINE T gather(std::int64_t index) const {
    return static_cast<const T*>(leaves[K].data)[slot_of<K>(slots)[v] + index * leaves[K].gathered_stride];
  }
};

/// Node J's loop `e` at element `v` of its gathered `slots`, as `C`. A loop
/// that gathers gives `C{}` where the element is past the space's end
/// (`inside` false: the last vector of a pointwise group, a row's last
/// chunk): its slots hold nothing there, and a gather would check an index
/// no element has. Other loops evaluate such elements too (no branch; the
/// kernels drop their values).
template <class C, class P, int J, class E, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE C evaluate_slots(const E& e, const group_args<P>& a, const slot_values<E, V>& slots,
                                                    int v, bool inside = true) {
  if constexpr (loop_gathers<E>)
    if (!inside) return C{};
  return static_cast<C>(evaluate<kernel_numerics, 0>(e, gathered<E, V>{slots, v, a.leaves + slot_base<P>[J]}));
}

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

/// `values` as `T`, each as `static_cast<T>` rounds it. float to bfloat16 or
/// half two at a time (one `cvt.rn.*x2.f32` a pair) on devices of compute
/// capability 8.0 and later, with the NaN of float_to_bfloat16_bits /
/// float_to_half_bits (its sign and payload kept) only where a pair holds a
/// NaN (a compare a pair, a test a vector), where one value at a time needs
/// its own NaN test and repacking (bench/RESULTS.md, "Half-precision rows on
/// the GPU"). The pairs go to `to` as whole 32-bit words: written 16 bits at
/// a time, they were split and packed again.
template <class T, int V, class C>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void convert_values(const C (&values)[V], T (&to)[V]) {
#if FUSEDSL_DEVICE_CODE && __CUDA_ARCH__ >= 800
  constexpr bool pairs =
      V % 2 == 0 && std::is_same_v<C, float> && (std::is_same_v<T, bfloat16> || std::is_same_v<T, half>);
#else
  constexpr bool pairs = false;
#endif
  if constexpr (pairs) {
    static_assert(sizeof(T) == 2);
    std::uint32_t packed[V / 2];  // values[2 i] in the low half of packed[i]
    bool nan = false;
#pragma unroll
    for (int v = 0; v < V; v += 2) {
#if FUSEDSL_DEVICE_CODE && __CUDA_ARCH__ >= 800
      if constexpr (std::is_same_v<T, bfloat16>)
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed[v / 2]) : "f"(values[v + 1]), "f"(values[v]));
      else asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed[v / 2]) : "f"(values[v + 1]), "f"(values[v]));
#endif
      const bool pair_nan = (values[v] != values[v]) | (values[v + 1] != values[v + 1]);  // one unordered compare
      nan = nan | pair_nan;
    }
    if (nan) {
#pragma unroll
      for (int v = 0; v < V; v += 2)
        packed[v / 2] =
            std::uint32_t{static_cast<T>(values[v]).bits} | std::uint32_t{static_cast<T>(values[v + 1]).bits} << 16;
    }
    std::memcpy(to, packed, sizeof(packed));
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) to[v] = static_cast<T>(values[v]);
  }
}

/// True for params (their value travels in the kernel's arguments).
template <class L>
inline constexpr bool is_param_leaf = !requires {
  L::role_of;
}
&&!makes_node<L> && !requires { std::declval<L>().view; }
&&!is_computed_leaf<L>;

/// A computed leaf's slot (`is_computed_leaf`) at `at` and the V - 1
/// positions after it along the kept axes (`AlongKept`) or the reduced ones:
/// its operand's offsets there. An index leaf's operand is a virtual tensor
/// of stride 1 along its axis (its values, no memory); a gathered leaf's is
/// x's memory with stride 0 along the gathered axis (where the element's
/// line starts; the reader adds the index).
template <bool AlongKept, int V, class Index, class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void computed_offsets(const operand& o, const space_args& s,
                                                         const position<Index>& at, T* to) {
#pragma unroll
  for (int v = 0; v < V; ++v)
    to[v] =
        static_cast<T>(offset(o, s, AlongKept ? position<Index>{at.row + v, at.j} : position<Index>{at.row, at.j + v}));
}
/// A param's value.
template <class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE T param_value(const operand& o) {
  T value;
  std::memcpy(&value, &o.value, sizeof(T));
  return value;
}

/// Fills `to` with slot `S` of node J at `V` elements when no memory is
/// read: a param (from the launch's arguments), or a node's value that this
/// group holds in registers (`a.in_registers`; `regs` holds `R` values per
/// node: `V`, or 1 in the row kernels, which hold reductions' results only,
/// `ReductionsOnly`). False: the slot is to be read from memory.
template <class P, int J, std::size_t S, bool ReductionsOnly, int R, class T, int V>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE bool gather_held(const group_args<P>& a, const node_values<P, R>& regs, T (&to)[V]) {
  using L = leaf_at<loop_t<P, J>, S>;
  if constexpr (is_param_leaf<L>) {
    const T value = param_value<T>(a.leaves[slot_base<P>[J] + static_cast<int>(S)]);
#pragma unroll
    for (int v = 0; v < V; ++v) to[v] = value;
    return true;
  } else {
    constexpr int from_node = producer<P, J, L>();
    if constexpr (from_node >= 0) {
      if constexpr (!ReductionsOnly || is_reduction_at<P, from_node>) {
        if (a.in_registers >> from_node & 1u) {
#pragma unroll
          for (int v = 0; v < V; ++v) to[v] = values_of<from_node>(regs)[R == 1 ? 0 : v];
          return true;
        }
      }
    }
    return false;
  }
}

/// Gathers slot `S` (and the following ones) of node J at `at` (node values
/// held in registers: `regs`): `V` > 1
/// consecutive elements along the innermost kept axis (columns), or of the
/// flattened space (pointwise groups: `at.row` is its flat index), each
/// operand as its `access` says; only the first `count` of them when the
/// space ends before the vector does (pointwise groups). `AlongLast`: every
/// access is `along_last` (the column kernel: the host vectorizes columns
/// only so), and the other forms, an offset per element of the vector, are
/// not compiled (nvcc's time: bench/RESULTS.md, "nvcc per program").
template <class P, int J, std::size_t S, int V, bool AlongLast = false, class Index>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void gather(const group_args<P>& a, const node_values<P, V>& regs,
                                               const position<Index>& at, slot_values<loop_t<P, J>, V>& out,
                                               int count = V) {
  using E = loop_t<P, J>;
  if constexpr (S < leaf_slots<E>()) {
    using L = leaf_at<E, S>;
    using T = leaf_storage_t<L>;
    auto& to = slot_of<S>(out);
    const operand& o = a.leaves[slot_base<P>[J] + static_cast<int>(S)];
    if constexpr (is_computed_leaf<L>) {
      computed_offsets<true, V>(o, a.space, at, to);
    } else if (!gather_held<P, J, S, false>(a, regs, to)) {
      const T* data = static_cast<const T*>(o.data);
      if constexpr (V == 1) {
        to[0] = data[offset(o, a.space, at)];
      } else if (!AlongLast && o.access == vector_access::contiguous) {
        if (count == V) load_vector<V>(data + at.row, to);
        else
#pragma unroll
          for (int v = 0; v < V; ++v)
            if (v < count) to[v] = data[at.row + v];
      } else if (!AlongLast && o.access == vector_access::elements) {
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (v < count) to[v] = data[offset(o, a.space, position<Index>{at.row + v, at.j})];
      } else if (o.kept[a.space.kept_rank - 1] == 0) {
        const T value = data[offset(o, a.space, at)];
#pragma unroll
        for (int v = 0; v < V; ++v) to[v] = value;
      } else {
        load_vector<V>(data + offset(o, a.space, at), to);
      }
    }
    gather<P, J, S + 1, V, AlongLast>(a, regs, at, out, count);
  }
}

/// Calls `f` with node J's output as the element type it stores (its
/// target's or its own), if it stores one.
template <class P, int J, class F>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void with_output(const group_args<P>& a, F&& f) {
  const operand& o = a.outs[J];
  if (o.data == nullptr) return;
  if (a.stores_target >> J & 1u) f(static_cast<target_element_t<P, J>*>(const_cast<void*>(o.data)));
  else if constexpr (distinct_at<P, J> >= 0) f(static_cast<value_t<P, J>*>(const_cast<void*>(o.data)));
}

/// Stores node J's `V` values at `at` (the first `count` of them), as
/// `gather` reads them: its target's element type or its own.
template <class P, int J, int V, class Index, class C>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void store(const group_args<P>& a, const position<Index>& at, const C (&values)[V],
                                              int count = V) {
  const operand& o = a.outs[J];
  with_output<P, J>(a, [&](auto* data) {
    using T = std::remove_pointer_t<decltype(data)>;
    T converted[V];
    convert_values(values, converted);
    if constexpr (V == 1) {
      data[offset(o, a.space, at)] = converted[0];
    } else if (o.access == vector_access::elements) {
#pragma unroll
      for (int v = 0; v < V; ++v)
        if (v < count) data[offset(o, a.space, position<Index>{at.row + v, at.j})] = converted[v];
    } else {
      T* to = data + (o.access == vector_access::contiguous ? at.row : offset(o, a.space, at));
      if (count == V) store_vector<V>(to, converted);
      else
#pragma unroll
        for (int v = 0; v < V; ++v)
          if (v < count) to[v] = converted[v];
    }
  });
}

}  // namespace fusedsl::cuda_detail
