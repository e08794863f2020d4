/// @file kernels.hpp
/// The CPU loops that run one node over part of its iteration space: a
/// pointwise node over a range of its elements, a reduction over a range of
/// its kept elements (rows), split across chunks of the reduced elements,
/// or over column blocks. A fused kernel calls them tile by tile, so that
/// the data one node writes is still in cache when the next node reads it.
#pragma once
#include <algorithm>  // std::min, std::max
#include <cstddef>    // std::byte
#include <bit>        // std::countr_one
#include <cstdint>    // std::int64_t
#include <memory>     // std::uninitialized_default_construct_n
#include <numeric>    // std::gcd
#include <vector>     // std::vector

#if defined(__AVX__)
#  include <immintrin.h>  // _mm256_stream_si256, _mm256_loadu_si256, _mm_sfence
#elif defined(__SSE2__)
#  include <emmintrin.h>  // _mm_stream_si128, _mm_loadu_si128, _mm_sfence
#endif

#include <fusedsl/core/config.hpp>       // FUSEDSL_CPU_KERNEL, FUSEDSL_INDEPENDENT_ITERATIONS
#include <fusedsl/core/host_memory.hpp>  // allocate_host, host_array, host_alignment
#include <fusedsl/core/numerics.hpp>     // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>     // evaluate
#include <fusedsl/runtime/nodes.hpp>     // node_runtime

namespace fusedsl::cpu_detail {

using detail::allocate_host;
using detail::host_array;
using detail::node_runtime;

/// Independent accumulators per reduction row: 128 bytes of states (32
/// float sums, 16 double or i64 ones), 8 at least. The compiler keeps them
/// in four AVX2 vector registers, so that a chunk's additions are four
/// chains of dependent adds, not one: with 8 float lanes (one register) a
/// sum runs at the adder's latency, not at the memory's speed (figures:
/// bench/RESULTS.md). Merged in a fixed order
/// (results do not depend on the number of threads).
template <class State>
inline constexpr int reduction_lanes = std::max<int>(8, static_cast<int>(128 / sizeof(State)));

/// The operands of a node in one tile: memory (or scratch) and the tile's
/// offset correction per leaf slot, and the same for the output.
struct tile_operands {
  const void* const* data;
  const std::int64_t* bias;
  void* out;
  std::int64_t out_bias;
  bool may_stream = false;  ///< the output is memory that no loop of the group reads
};

/// Elements a loop evaluates at a time: every leaf is first made
/// contiguous for them (a pointer into memory, or a small local copy of a
/// broadcast or strided operand), so that the evaluation loop has unit
/// strides only: the compiler vectorizes it.
inline constexpr std::int64_t chunk = 128;

/// Outputs of at least this many bytes are written with non-temporal
/// stores, around the caches (when `may_stream`): no cache holds them
/// anyway, and an ordinary store first reads the line it writes, so that
/// streaming saves a fifth of the traffic of exp(a) * b + c.
inline constexpr std::int64_t streaming_bytes = std::int64_t{16} << 20;

#if defined(__SSE2__)
/// Bytes of one non-temporal store: 32 where the compile targets AVX
/// (-march=native, -mavx2), else 16; the AVX2 target clone is compiled from
/// the baseline's preprocessed text, so it stores 16. (32-byte stores make
/// `exp(a) * b + c` a little faster than 16-byte ones; bench/RESULTS.md.)
#  if defined(__AVX__)
inline constexpr std::size_t stream_bytes = 32;
#  else
inline constexpr std::size_t stream_bytes = 16;
#  endif

/// One non-temporal store of `stream_bytes` from `from` (any alignment) to
/// `to` (aligned to `stream_bytes`).
FUSEDSL_FORCEINLINE void stream_store(void* to, const void* from) {
#  if defined(__AVX__)
  _mm256_stream_si256(static_cast<__m256i*>(to), _mm256_loadu_si256(static_cast<const __m256i*>(from)));
#  else
  _mm_stream_si128(static_cast<__m128i*>(to), _mm_loadu_si128(static_cast<const __m128i*>(from)));
#  endif
}
#endif

/// Stores the `n` `values` at contiguous `out`, converted to Out; with
/// `stream`, in non-temporal stores where `out` is aligned (the caller
/// fences once it is done).
template <class Out, class V>
FUSEDSL_FORCEINLINE void store_chunk(Out* out, const V* values, std::int64_t n, bool stream) {
#if defined(__SSE2__)
  if constexpr (stream_bytes % sizeof(Out) == 0) {
    if (stream) {
      alignas(64) Out converted[chunk];
      const Out* from = converted;
      if constexpr (std::is_same_v<Out, V>) from = values;
      else
        for (std::int64_t i = 0; i < n; ++i) converted[i] = static_cast<Out>(values[i]);
      constexpr std::int64_t per_store = stream_bytes / sizeof(Out);
      std::int64_t i = 0;
      for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % stream_bytes != 0; ++i) out[i] = from[i];
      for (; i + per_store <= n; i += per_store) stream_store(out + i, from + i);
      for (; i < n; ++i) out[i] = from[i];
      return;
    }
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(values[i]);
}

/// Orders the non-temporal stores of this thread before what follows (the
/// barrier after which other threads read them). Once per thread and loop,
/// after its last tile: the loops that stream (pointwise_range,
/// pointwise_group_range) leave it to their caller, since a fence waits for
/// the stores to reach memory (one per tile of 8192 elements slows
/// `exp(a) * b + c` measurably; bench/RESULTS.md).
inline void fence_streaming_stores() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// Reads leaf slot K at element i of the current chunk. (Host-device only
/// because `evaluate`, which calls it, is: nvcc warns otherwise.)
///
/// The loops evaluate a local copy of their node: read through a reference,
/// its constants are loaded again after every store of the loop, which
/// might have changed them (the local copy speeds up a pointwise loop in the
/// L2 cache; bench/RESULTS.md).
struct chunk_reader {
  const void* const* leaf;
  std::int64_t i;
  template <std::size_t K, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE T load() const {
    return static_cast<const T*>(leaf[K])[i];
  }
};

/// Per-thread staging of one chunk of every leaf slot of expression `E`.
template <class E>
struct chunk_leaves {
  static constexpr std::size_t slots = leaf_slots<E>();
  static constexpr std::size_t widest = [] {
    std::size_t w = 1;
    hana::for_each(leaf_element_types<E>(), [&](auto t) { w = std::max(w, sizeof(typename decltype(t)::type)); });
    return w;
  }();
  alignas(64) std::byte staging[slots == 0 ? 1 : slots][chunk * widest];
  const void* leaf[slots + 1] = {};
  /// The element a slot's staging holds `spread[k]` copies of (a broadcast
  /// leaf), so that the next chunks of the same row do not copy it again:
  /// a row's reduction results are broadcast along it.
  const void* spread_from[slots + 1] = {};
  std::int64_t spread[slots + 1] = {};

  /// Points slot K at `n` elements starting at `data[base]` with `step`:
  /// directly when the step is 1, else through a local copy.
  void prepare(const void* const* data, const std::int64_t* base, const std::int64_t* step, std::int64_t n) {
    std::size_t k = 0;
    hana::for_each(leaf_element_types<E>(), [&](auto t) {
      using T = typename decltype(t)::type;
      const T* from = static_cast<const T*>(data[k]) + base[k];
      T* to = reinterpret_cast<T*>(staging[k]);
      if (step[k] == 1) {
        leaf[k] = from;
      } else if (step[k] == 0) {
        if (spread_from[k] != from || spread[k] < n) {
          for (std::int64_t i = 0; i < n; ++i) to[i] = from[0];
          spread_from[k] = from;
          spread[k] = n;
        }
        leaf[k] = to;
      } else {
        for (std::int64_t i = 0; i < n; ++i) to[i] = from[i * step[k]];
        spread_from[k] = nullptr;
        leaf[k] = to;
      }
      ++k;
    });
  }
};

/// True for a pointwise subexpression computed in floating point whose
/// leaves are all reduction results, realized values, 0-d tensors, params
/// or constants: over a chunk whose node leaves are broadcast (step 0, as
/// a row's reduction results are along the row) it has one value, which
/// the loop then computes once (`rsqrt(var + eps)` of layernorm).
template <class E>
constexpr bool chunk_invariant_candidate() {
  if constexpr (!is_inlined<E>) {
    return false;
  } else if constexpr (!std::is_floating_point_v<compute_t<kernel_numerics, E::value_dtype>>) {
    return false;
  } else {
    return hana::unpack(detail::children<E>::value, [](auto... c) {
      return (([]<class C>(hana::basic_type<C>) {
                if constexpr (is_inlined<C>) return chunk_invariant_candidate<C>();
                else return is_constant_node<C> || makes_node<C> || C::rank == 0;
              }(c)) &&
              ...);
    });
  }
}

/// True when some subexpression of `E` is a chunk_invariant_candidate: only
/// then does a loop look for values to hold (a scalar evaluation per row).
template <class E>
constexpr bool has_invariant_candidates() {
  if constexpr (!is_inlined<E>) {
    return false;
  } else if constexpr (chunk_invariant_candidate<E>()) {
    return true;
  } else {
    return hana::unpack(detail::children<E>::value,
                        [](auto... c) { return (has_invariant_candidates<typename decltype(c)::type>() || ...); });
  }
}

/// Reads a chunk like chunk_reader, and holds the values of the chunk's
/// invariant subexpressions (indexed by their first leaf slot).
struct held_chunk_reader {
  const void* const* leaf;
  std::int64_t i;
  const double* table;  ///< the held values, by first leaf slot
  template <class E, std::size_t First>
  static constexpr bool holds = chunk_invariant_candidate<E>();
  template <std::size_t K, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE T load() const {
    return static_cast<const T*>(leaf[K])[i];
  }
  template <class E, std::size_t First>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE double held(const E&) const {
    return table[First];
  }
};

/// Computes the invariant subexpressions of a chunk at its first element
/// into `held`, and clears `invariant` if one of them reads a leaf that
/// moves along the chunk (then the chunk is evaluated element by element).
struct invariant_recorder {
  const void* const* leaf;
  const std::int64_t* step;
  double* table;  ///< receives the held values, by first leaf slot
  bool* invariant;
  template <class E, std::size_t First>
  static constexpr bool holds = chunk_invariant_candidate<E>();
  template <std::size_t K, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE T load() const {
    return static_cast<const T*>(leaf[K])[0];
  }
  template <class E, std::size_t First>
  FUSEDSL_HOST_DEVICE double held(const E& e) const {
    for (std::size_t k = First; k < First + leaf_slots<E>(); ++k) *invariant = *invariant && step[k] == 0;
    const double value = evaluate<kernel_numerics, First>(e, chunk_reader{leaf, 0});
    table[First] = value;
    return value;
  }
};

/// The value type a loop computes expression `E` in.
template <class E>
using loop_value_t = compute_t<kernel_numerics, E::value_dtype>;

/// Reads as `Base` does, but takes the values of subexpression `A` from
/// `values` (indexed like the chunk) instead of computing them: another
/// loop of the same group computed them over the same elements.
template <class A, class Base>
struct shared_operand_reader : Base {
  const loop_value_t<A>* values;
  template <class E, std::size_t First>
  static constexpr bool holds = std::is_same_v<E, A> || detail::reader_holds<Base, E, First>::value;
  template <class E, std::size_t First>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE auto held(const E& e) const {
    if constexpr (std::is_same_v<E, A>) return values[this->i];
    else return Base::template held<E, First>(e);
  }
};

/// `base`, reading subexpression `Shared` from `shared` unless `Shared` is void.
template <class Shared, class Base>
FUSEDSL_FORCEINLINE auto sharing(const Base& base, const void* shared) {
  if constexpr (std::is_void_v<Shared>) return base;
  else return shared_operand_reader<Shared, Base>{base, static_cast<const loop_value_t<Shared>*>(shared)};
}

/// Element `i` of the values of subexpression `Shared` at `shared`.
template <class Shared>
const void* shared_at(const void* shared, std::int64_t i) {
  if constexpr (std::is_void_v<Shared>) return nullptr;
  else return static_cast<const loop_value_t<Shared>*>(shared) + i;
}

/// `values[i] = e` at the n elements of the prepared chunk (subexpression
/// `Shared`, if not void, read from `shared`). `values` may be the output
/// in memory, and a leaf the same elements (an in-place update).
template <class Shared = void, class E, class V>
FUSEDSL_FORCEINLINE void evaluate_chunk(const E& e, const void* const* leaf, V* values, std::int64_t n,
                                        const void* shared = nullptr) {
  FUSEDSL_INDEPENDENT_ITERATIONS
  for (std::int64_t i = 0; i < n; ++i)  // vectorized: evaluate_chunk
    values[i] = static_cast<V>(evaluate<kernel_numerics, 0>(e, sharing<Shared>(chunk_reader{leaf, i}, shared)));
}

/// evaluate_chunk with the chunk's invariant subexpressions taken from
/// `held` (copied first, so that the loop sees them as constants).
template <class Shared = void, class E, class V>
FUSEDSL_FORCEINLINE void evaluate_chunk_held(const E& e, const void* const* leaf, const double* held, V* values,
                                             std::int64_t n, const void* shared = nullptr) {
  double local[leaf_slots<E>() + 1];
  for (std::size_t k = 0; k <= leaf_slots<E>(); ++k) local[k] = held[k];
  FUSEDSL_INDEPENDENT_ITERATIONS
  for (std::int64_t i = 0; i < n; ++i)  // vectorized: evaluate_chunk_held
    values[i] =
        static_cast<V>(evaluate<kernel_numerics, 0>(e, sharing<Shared>(held_chunk_reader{leaf, i, local}, shared)));
}

/// The row-major multi-index of flat position `flat` over `sizes`.
inline shape unravel(std::int64_t flat, const shape& sizes) {
  shape index = sizes;
  for (int d = sizes.rank() - 1; d >= 0; --d) {
    if (flat < sizes[d]) {  // the rest is 0: no division (a tile starts on a row's first element or inside it)
      index[d] = flat;
      flat = 0;
      continue;
    }
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  return index;
}

/// Steps multi-index `index` over `sizes` to its next row-major position
/// along axes [0, last]; the axes after `last` are left as they are.
inline void step_index(shape& index, const shape& sizes, int last) {
  for (int d = last; d >= 0; --d) {
    if (++index[d] < sizes[d]) return;
    index[d] = 0;
  }
}

/// The innermost entry of `s` (strides or a multi-index) over a space of
/// rank `rank`; 0 for rank 0, whose one element has no axis to step along.
inline std::int64_t innermost(const shape& s, int rank) { return rank == 0 ? 0 : s[rank - 1]; }

inline std::int64_t dot(const shape& index, const shape& strides) {
  std::int64_t offset = 0;
  for (int d = 0; d < index.rank(); ++d) offset += index[d] * strides[d];
  return offset;
}

/// The values of a chunk's invariant subexpressions (`held`, by first leaf
/// slot) and whether they stand for their subexpressions (`invariant`):
/// recorded at a row's first chunk, valid along the row.
template <class E>
struct chunk_invariants {
  double held[leaf_slots<E>() + 1] = {};
  bool invariant = false;
};

/// Node `e` (its loop expression) over one chunk of `m` elements whose
/// leaves are prepared, stored at `out` with step `out_step`, converted to
/// Out (with `stream`, around the caches). With `row_start`, it first
/// records the chunk's invariant subexpressions. Unless `Shared` is void,
/// the values of subexpression `Shared` are read from `shared`.
template <class Out, class Shared, class E>
FUSEDSL_FORCEINLINE void pointwise_chunk(const E& e, const chunk_leaves<E>& leaves, const std::int64_t* step,
                                         chunk_invariants<E>& held, bool row_start, Out* out, std::int64_t out_step,
                                         bool stream, std::int64_t m, const void* shared) {
  using value_type = loop_value_t<E>;
  if constexpr (has_invariant_candidates<E>()) {
    if (row_start) {  // a held value is the same along the row: record it at the row's first chunk
      held.invariant = true;
      (void)evaluate<kernel_numerics, 0>(e, invariant_recorder{leaves.leaf, step, held.held, &held.invariant});
    }
  }
  // Contiguous outputs of the loop's own type are written in place; the
  // others (strided, converted or streamed) are staged in `values`: a copy
  // through `values` is a large share of Adam's group's time.
  alignas(64) value_type values[chunk];
  value_type* into = values;
  if constexpr (std::is_same_v<Out, value_type>)
    if (out_step == 1 && !stream) into = out;
  if (held.invariant) evaluate_chunk_held<Shared>(e, leaves.leaf, held.held, into, m, shared);
  else evaluate_chunk<Shared>(e, leaves.leaf, into, m, shared);
  if (into == values) {
    if (out_step == 1) store_chunk(out, values, m, stream);
    else
      for (std::int64_t i = 0; i < m; ++i) out[i * out_step] = static_cast<Out>(values[i]);
  }
}

/// True when node `n`'s output, `Out` elements, is to be written around the
/// caches: allowed (`may_stream`), contiguous and at least streaming_bytes.
template <class Out>
bool streams_output(const node_runtime& n, bool may_stream) {
  const int r = n.space.rank();
  return may_stream && innermost(n.out.strides, r) == 1 &&
         n.out_sizes.numel() * std::int64_t{sizeof(Out)} >= streaming_bytes;
}

/// Pointwise node `e` (its loop expression) over the flat elements
/// [begin, end) of `n.space`, storing `Out` elements. Unless `Shared` is
/// void, the values of its subexpression `Shared` are read from `shared`
/// (element `begin` first) instead of computed. A streamed output is the
/// caller's to fence.
template <class Out, class Shared = void, class E>
FUSEDSL_CPU_KERNEL void pointwise_range(const E& expression, const node_runtime& n, const tile_operands& t,
                                        std::int64_t begin, std::int64_t end, const void* shared = nullptr) {
  const E e = expression;  // a local copy: see chunk_reader
  constexpr std::size_t slots = leaf_slots<E>();
  const shape& space = n.space;
  const int r = space.rank();
  const std::int64_t row = r == 0 ? 1 : space[r - 1];
  std::int64_t step[slots + 1], base[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) step[k] = innermost(n.leaves[k].strides, r);
  const std::int64_t out_step = innermost(n.out.strides, r);
  Out* out = static_cast<Out*>(t.out);
  chunk_leaves<E> leaves;
  chunk_invariants<E> held;
  std::int64_t done_elements = 0;  // since `begin`: where the chunk's shared values are
  const bool stream = streams_output<Out>(n, t.may_stream);
  shape index = unravel(begin, space);
  while (begin < end) {
    const std::int64_t run = std::min(end - begin, row - innermost(index, r));
    for (std::size_t k = 0; k < slots; ++k) base[k] = dot(index, n.leaves[k].strides) - t.bias[k];
    std::int64_t out_at = dot(index, n.out.strides) - t.out_bias;
    for (std::int64_t done = 0; done < run; done += chunk) {
      const std::int64_t m = std::min(chunk, run - done);
      leaves.prepare(t.data, base, step, m);
      pointwise_chunk<Out, Shared>(e, leaves, step, held, done == 0, out + out_at, out_step, stream, m,
                                   shared_at<Shared>(shared, done_elements));
      done_elements += m;
      for (std::size_t k = 0; k < slots; ++k) base[k] += m * step[k];
      out_at += m * out_step;
    }
    begin += run;
    if (r > 0) {  // next row of the space
      index[r - 1] = 0;
      step_index(index, space, r - 2);
    }
  }
}

/// The axes of a reduction node: kept ones, then reduced ones, in order.
struct reduction_axes {
  int kept[max_rank], reduced[max_rank];
  int n_kept = 0, n_reduced = 0;
  shape kept_sizes, reduced_sizes;

  explicit reduction_axes(const node_runtime& n) {
    for (int d = 0; d < n.space.rank(); ++d) {
      if (n.reduced_mask & (1u << d)) reduced[n_reduced++] = d, reduced_sizes.push_back(n.space[d]);
      else kept[n_kept++] = d, kept_sizes.push_back(n.space[d]);
    }
  }
  /// Offset of the kept element `row` (flat over the kept axes) for `strides`.
  std::int64_t row_offset(std::int64_t row, const shape& strides) const {
    std::int64_t offset = 0;
    for (int j = n_kept - 1; j >= 0; --j) {
      const std::int64_t i = kept_sizes[j] == 0 ? 0 : row % kept_sizes[j];
      row = kept_sizes[j] == 0 ? 0 : row / kept_sizes[j];
      offset += i * strides[kept[j]];
    }
    return offset;
  }
};

/// True when reduction `R`'s accumulator adds a whole chunk of values at
/// once (`add_block`), which it does better than element by element.
template <class R, class State>
inline constexpr bool takes_blocks = requires(const R& r, State& s,
                                              const compute_t<kernel_numerics, R::input_dtype>* v) {
  r.op.add_block(s, v, std::int64_t{});
};

/// Adds the `m` values `value(i)` of a chunk at reduced elements `at`,
/// `at + 1`, ... to `lanes`. Lane l takes elements l, l + lanes, ...: a
/// fixed assignment, so the order of additions is the same on every run.
template <class R, class State, class Value>
FUSEDSL_FORCEINLINE void add_to_lanes(const R& r, State* lanes, std::int64_t m, std::int64_t at, const Value& value) {
  constexpr int n_lanes = reduction_lanes<State>;
  std::int64_t i = 0;
  for (; i + n_lanes <= m; i += n_lanes)
    for (int l = 0; l < n_lanes; ++l)  // vectorized: reduction lanes
      r.op.add(lanes[l], value(i + l), at + i + l);
  for (; i < m; ++i) r.op.add(lanes[i % n_lanes], value(i), at + i);
}

/// Accumulates reduction `r` of kept element `row` over reduced elements
/// [j0, j1) (flat, row-major over the reduced axes) into `state`. With
/// `kept` (the row's element 0), the operand's values are also stored
/// there, for a later loop of the group that reads the same operand.
template <class R, class State>
FUSEDSL_CPU_KERNEL void accumulate(const R& reduction, const node_runtime& n, const reduction_axes& axes,
                                   const tile_operands& t, std::int64_t row, std::int64_t j0, std::int64_t j1,
                                   State& state, compute_t<kernel_numerics, R::input_dtype>* kept = nullptr) {
  const R r = reduction;  // a local copy: see chunk_reader
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const int last = axes.n_reduced - 1;
  const std::int64_t row_len = last < 0 ? 1 : axes.reduced_sizes[last];
  std::int64_t row_base[slots + 1], base[slots + 1], step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) {
    row_base[k] = axes.row_offset(row, n.leaves[k].strides) - t.bias[k];
    step[k] = last < 0 ? 0 : n.leaves[k].strides[axes.reduced[last]];
  }
  constexpr int n_lanes = reduction_lanes<State>;
  State lanes[n_lanes] = {};
  lanes[0] = state;
  chunk_leaves<Arg> leaves;
  shape index = unravel(j0, axes.reduced_sizes);
  std::int64_t j = j0;
  while (j < j1) {
    const std::int64_t start = last < 0 ? 0 : index[last];
    const std::int64_t run = std::min(j1 - j, row_len - start);
    for (std::size_t k = 0; k < slots; ++k) {
      base[k] = row_base[k];
      for (int m = 0; m < axes.n_reduced; ++m) base[k] += index[m] * n.leaves[k].strides[axes.reduced[m]];
    }
    for (std::int64_t done = 0; done < run; done += chunk) {
      const std::int64_t m = std::min(chunk, run - done);
      leaves.prepare(t.data, base, step, m);
      alignas(64) acc_type local[chunk];
      acc_type* values = kept ? kept + (j + done) : local;
      if (kept || takes_blocks<R, State>) evaluate_chunk(r.arg, leaves.leaf, values, m);
      if constexpr (takes_blocks<R, State>) r.op.add_block(lanes[0], values, m);
      else if (kept) add_to_lanes(r, lanes, m, j + done, [&](std::int64_t i) { return values[i]; });
      else
        add_to_lanes(r, lanes, m, j + done, [&](std::int64_t i) {
          return static_cast<acc_type>(evaluate<kernel_numerics, 0>(r.arg, chunk_reader{leaves.leaf, i}));
        });
      for (std::size_t k = 0; k < slots; ++k) base[k] += m * step[k];
    }
    j += run;
    if (last >= 0) {
      index[last] = 0;
      step_index(index, axes.reduced_sizes, last - 1);
    }
  }
  // Pairwise, the upper part into the lower, so that the first rounds
  // vectorize and a chain of dependent merges is log2(n_lanes) long: merged
  // one after the other, the 31 scalar merges of a float max would take most
  // of a 1024-element row's time. A fixed order, as the lanes.
  for (int width = n_lanes; width > 1;) {
    const int upper = width / 2, lower = width - upper;
    for (int l = 0; l < upper; ++l) r.op.merge(lanes[l], lanes[lower + l]);  // vectorized: lane merges
    width = lower;
  }
  state = lanes[0];
}

template <class R>
using reduction_state = typename R::op_type::template state<compute_t<kernel_numerics, R::input_dtype>>;

/// Reduction node `r` for kept elements [begin, end), storing `Out`
/// elements. With `kept`, its operand's values too, row after row.
template <class Out, class R>
void reduction_rows(const R& r, const node_runtime& n, const tile_operands& t, std::int64_t begin, std::int64_t end,
                    void* kept = nullptr) {
  const reduction_axes axes(n);
  Out* out = static_cast<Out*>(t.out);
  auto* kept_values = static_cast<compute_t<kernel_numerics, R::input_dtype>*>(kept);
  for (std::int64_t row = begin; row < end; ++row) {
    reduction_state<R> state{};
    accumulate(r, n, axes, t, row, 0, n.inner, state, kept_values ? kept_values + (row - begin) * n.inner : nullptr);
    out[axes.row_offset(row, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(state, n.inner));
  }
}

/// Chunks a long reduction is split into: fixed, so that results do not
/// depend on the number of threads.
inline constexpr std::int64_t split_chunks = 64;

/// Reduction node `r` with few kept elements and many reduced ones: each
/// row's reduced range is cut into `split_chunks` parts reduced in
/// parallel, then merged in order.
template <class Out, class R>
void reduction_split(const R& r, const node_runtime& n, const tile_operands& t) {
  const reduction_axes axes(n);
  Out* out = static_cast<Out*>(t.out);
  std::vector<reduction_state<R>> partial(static_cast<std::size_t>(split_chunks));
  for (std::int64_t row = 0; row < n.outer; ++row) {
#pragma omp parallel for schedule(static)
    for (std::int64_t c = 0; c < split_chunks; ++c) {
      partial[static_cast<std::size_t>(c)] = {};
      accumulate(r, n, axes, t, row, n.inner * c / split_chunks, n.inner * (c + 1) / split_chunks,
                 partial[static_cast<std::size_t>(c)]);
    }
    reduction_state<R> state = partial[0];
    for (std::int64_t c = 1; c < split_chunks; ++c) r.op.merge(state, partial[static_cast<std::size_t>(c)]);
    out[axes.row_offset(row, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(state, n.inner));
  }
}

/// Columns a column-reduction task covers: the states of a block stay in
/// the L1/L2 cache while whole rows of the block stream past them.
inline constexpr std::int64_t column_block = 2048;

/// Parts the reduced rows of a column reduction are cut into, so that a
/// reduction with few column blocks still has a task per thread: fixed by
/// the sizes alone (64 tasks at least, rows of 16 or more per part), never
/// by the thread count, so results do not depend on it.
inline std::int64_t column_parts(std::int64_t columns, std::int64_t rows) {
  const std::int64_t blocks = (columns + column_block - 1) / column_block;
  return std::clamp<std::int64_t>(64 / std::max<std::int64_t>(blocks, 1), 1, std::max<std::int64_t>(rows / 16, 1));
}

/// Column blocks this narrow or narrower add two rows per pass: their
/// per-row work, not their memory, bounds them.
inline constexpr std::int64_t narrow_columns = 64;

/// Adds reduced elements (rows) [j0, j1) of columns [c0, c1) into
/// `states[c - c0]`: each row's columns are read in order, a chunk at a time.
template <class R>
FUSEDSL_CPU_KERNEL void accumulate_columns(const R& reduction, const node_runtime& n, const reduction_axes& axes,
                                           const tile_operands& t, std::int64_t c0, std::int64_t c1, std::int64_t j0,
                                           std::int64_t j1, reduction_state<R>* states) {
  const R r = reduction;  // a local copy: see chunk_reader
  using Arg = std::remove_cvref_t<decltype(r.arg)>;
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const int last = axes.n_kept - 1;  // the innermost kept axis: contiguous columns
  const std::int64_t row_len = axes.kept_sizes[last];
  chunk_leaves<Arg> leaves, next;
  std::int64_t row_base[slots + 1], base[slots + 1], step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) step[k] = n.leaves[k].strides[axes.kept[last]];
  // The chunks of columns [c0, c1), each on one innermost kept row: the same
  // for every reduced row, so their offsets are worked out once, here, and
  // not per row (a division per chunk is a noticeable share of an in-cache column sum).
  // Leaves that all step by 1 are read in place, so their chunks may be as
  // wide as the row: the per-chunk work then comes once per row, not per
  // 128 columns.
  struct column_chunk {
    std::int64_t first, width, offset[slots + 1];
  };
  const bool in_place = std::all_of(step, step + slots, [](std::int64_t s) { return s == 1; });
  const std::int64_t widest = in_place ? c1 - c0 : chunk;
  std::vector<column_chunk> chunks;
  for (std::int64_t c = c0; c < c1;) {
    column_chunk& cc = chunks.emplace_back();
    cc.first = c - c0;
    cc.width = std::min({widest, c1 - c, row_len - c % row_len});
    for (std::size_t k = 0; k < slots; ++k) cc.offset[k] = axes.row_offset(c, n.leaves[k].strides);
    c += cc.width;
  }
  // Rows come in runs along the innermost reduced axis, over which each
  // leaf's row offset steps by a constant: narrow rows are mostly per-row
  // work, so that work is an addition per leaf, not a multi-index.
  const int inner = axes.n_reduced - 1;
  const bool pairs = c1 - c0 <= narrow_columns;
  std::int64_t row_step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) row_step[k] = n.leaves[k].strides[axes.reduced[inner]];
  const auto value = [&](const chunk_leaves<Arg>& from, std::int64_t i) {  // column i of a prepared row
    return static_cast<acc_type>(evaluate<kernel_numerics, 0>(r.arg, chunk_reader{from.leaf, i}));
  };
  shape reduced_index = unravel(j0, axes.reduced_sizes);
  for (std::int64_t j = j0; j < j1;) {
    const std::int64_t run_end = j + std::min(j1 - j, axes.reduced_sizes[inner] - reduced_index[inner]);
    for (std::size_t k = 0; k < slots; ++k) {
      row_base[k] = -t.bias[k];
      for (int m = 0; m < axes.n_reduced; ++m) row_base[k] += reduced_index[m] * n.leaves[k].strides[axes.reduced[m]];
    }
    // Narrow rows two at a time, for half the per-row work: each state is
    // loaded and stored once for both and takes them in row order, as one
    // row at a time would. (One row at a time is much slower for rows of
    // 256 to 1024 floats; bench/RESULTS.md.)
    while (j < run_end) {
      const bool two = pairs && j + 1 < run_end;
      for (const column_chunk& cc : chunks) {
        for (std::size_t k = 0; k < slots; ++k) base[k] = row_base[k] + cc.offset[k];
        leaves.prepare(t.data, base, step, cc.width);
        reduction_state<R>* s = states + cc.first;
        if (two) {
          for (std::size_t k = 0; k < slots; ++k) base[k] += row_step[k];
          next.prepare(t.data, base, step, cc.width);
          for (std::int64_t i = 0; i < cc.width; ++i) {  // vectorized: column states
            // A local state, so that it is stored once: with both adds on
            // s[i], GCC stores it after each (much slower).
            reduction_state<R> both = s[i];
            r.op.add(both, value(leaves, i), j);
            r.op.add(both, value(next, i), j + 1);
            s[i] = both;
          }
        } else {
          for (std::int64_t i = 0; i < cc.width; ++i) r.op.add(s[i], value(leaves, i), j);  // vectorized: column states
        }
      }
      const std::int64_t done = two ? 2 : 1;
      for (std::size_t k = 0; k < slots; ++k) row_base[k] += done * row_step[k];
      j += done;
    }
    reduced_index[inner] = 0;  // the next run
    step_index(reduced_index, axes.reduced_sizes, inner - 1);
  }
}

/// Column reduction `r` (reduced leading axes, kept trailing ones), the
/// whole node: tasks of (column block, part of the rows) add whole rows of
/// their block into their own states, read in memory order; the parts of
/// each column are then merged in order.
template <class Out, class R>
void reduction_columns(const R& r, const node_runtime& n, const tile_operands& t) {
  const reduction_axes axes(n);
  const std::int64_t columns = n.outer, rows = n.inner;
  const std::int64_t parts = column_parts(columns, rows);
  const std::int64_t blocks = (columns + column_block - 1) / column_block;
  // Each part's states start on a cache line; each task sets up its own, in
  // the thread that adds into them.
  using state = reduction_state<R>;
  constexpr auto per_line = static_cast<std::int64_t>(host_alignment / std::gcd(host_alignment, sizeof(state)));
  const std::int64_t part_stride = (columns + per_line - 1) / per_line * per_line;
  const host_array<state> partial(allocate_host<state>(static_cast<std::size_t>(parts * part_stride)));
  Out* out = static_cast<Out*>(t.out);
#pragma omp parallel if (columns * rows > chunk * chunk)
  {
#pragma omp for schedule(static)
    for (std::int64_t task = 0; task < blocks * parts; ++task) {
      const std::int64_t block = task / parts, part = task % parts;
      const std::int64_t c0 = block * column_block, c1 = std::min(columns, c0 + column_block);
      state* states = partial.get() + part * part_stride + c0;
      std::uninitialized_default_construct_n(states, c1 - c0);
      accumulate_columns(r, n, axes, t, c0, c1, rows * part / parts, rows * (part + 1) / parts, states);
    }
    // Part 0 of a chunk of columns takes the other parts in order, part by
    // part: each part's states are read in memory order, in a loop that
    // vectorizes (column by column, the parts lie `part_stride` states
    // apart, and the merges would be a scalar chain: a noticeable share of a
    // column sum's time).
#pragma omp for schedule(static)
    for (std::int64_t c0 = 0; c0 < columns; c0 += chunk) {
      const std::int64_t width = std::min(chunk, columns - c0);
      state* first = partial.get() + c0;
      for (std::int64_t part = 1; part < parts; ++part) {
        const state* other = partial.get() + part * part_stride + c0;
        for (std::int64_t c = 0; c < width; ++c) r.op.merge(first[c], other[c]);  // vectorized: column parts
      }
      for (std::int64_t c = 0; c < width; ++c)
        out[axes.row_offset(c0 + c, n.out.strides) - t.out_bias] = static_cast<Out>(r.op.finish(first[c], rows));
    }
  }
}

}  // namespace fusedsl::cpu_detail
