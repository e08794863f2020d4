/// @file chunks.hpp
/// How a CPU loop evaluates a node a chunk of elements at a time: the
/// node's operands in a tile (`tile_operands`), every leaf made contiguous
/// for a chunk (`chunk_leaves`), the readers `evaluate` reads a chunk
/// through (plain, with the values of subexpressions that are invariant
/// along a row held, with a subexpression another loop of the group
/// computed) and the evaluation loops (`evaluate_chunk`). Its own header
/// because every kernel class (pointwise, rows, columns) and the
/// executor's fused group loops build on it.
#pragma once
#include <algorithm>    // std::max
#include <array>        // std::array
#include <cstddef>      // std::byte, std::size_t
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::is_same_v, std::is_void_v, std::is_floating_point_v, std::is_base_of_v
#include <utility>      // std::index_sequence, std::make_index_sequence

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE, FUSEDSL_NOINLINE, FUSEDSL_INDEPENDENT_ITERATIONS
#include <fusedsl/core/hana.hpp>           // hana::for_each, hana::unpack
#include <fusedsl/core/numerics.hpp>       // kernel_numerics, compute_t
#include <fusedsl/expr/evaluate.hpp>       // evaluate, reader_holds, detail::operand_first_slot
#include <fusedsl/expr/gather.hpp>         // is_computed_leaf, is_gathered_leaf, is_gather_node
#include <fusedsl/expr/pointwise_ops.hpp>  // ops::rule::floating
#include <fusedsl/expr/traverse.hpp>       // leaf_slots, leaf_types, loop_gathers, is_inlined, makes_node, children
#include <fusedsl/runtime/nodes.hpp>       // node_runtime

namespace fusedsl::cpu_detail {

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

/// Rows of `cols` elements that a loop takes as one chunk: short rows (a
/// quarter of a chunk or less) several at a time, so that a row of 3 or 10
/// elements does not pay a chunk's setup and a reduction's merge of its own.
inline std::int64_t rows_per_chunk(std::int64_t cols) { return cols > 0 && 4 * cols <= chunk ? chunk / cols : 1; }

/// `rows` values `row_step` apart from `from`, each repeated `C` times into
/// `to` (a column vector's rows of C): with C known the stores unroll.
template <int C, class T>
FUSEDSL_FORCEINLINE void repeat_along_fixed_rows(T* to, const T* from, std::int64_t rows, std::int64_t row_step) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (int j = 0; j < C; ++j) to[i * C + j] = from[i * row_step];
}

/// The same for `cols` of any width; widths 2 and 4 unroll (a loop over 2
/// copies of a value ran slower than the element-wise copy it replaces, and
/// for 3 the unrolled copy was slower than the loop; figures: bench/RESULTS.md).
template <class T>
FUSEDSL_FORCEINLINE void repeat_along_rows(T* to, const T* from, std::int64_t rows, std::int64_t row_step,
                                           std::int64_t cols) {
  switch (cols) {
    case 2: return repeat_along_fixed_rows<2>(to, from, rows, row_step);
    case 4: return repeat_along_fixed_rows<4>(to, from, rows, row_step);
    default:
      for (std::int64_t i = 0; i < rows; ++i) {
        const T value = from[i * row_step];
        for (std::int64_t j = 0; j < cols; ++j) to[i * cols + j] = value;
      }
  }
}

/// A gathered leaf's slot in a chunk: x's memory, its stride and size along
/// the gathered axis, and each element's offset with the axis at 0.
struct gathered_chunk {
  const void* data;
  std::int64_t stride, size;
  std::int64_t offset[chunk];
};

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
    // A bool read as a byte compared with 0: g++ vectorizes a comparison's mask, not a
    // bool loaded as such.
    if constexpr (std::is_same_v<T, bool>) return static_cast<const unsigned char*>(leaf[K])[i] != 0;
    else return static_cast<const T*>(leaf[K])[i];
  }
  template <std::size_t K>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE std::int64_t gathered_size() const {
    return static_cast<const gathered_chunk*>(leaf[K])->size;
  }
  template <std::size_t K, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE T gather(std::int64_t index) const {
    const auto& g = *static_cast<const gathered_chunk*>(leaf[K]);
    return static_cast<const T*>(g.data)[g.offset[i] + index * g.stride];
  }
};

template <class E>
constexpr bool chunk_invariant_candidate();

/// Marks in `unread` the leaf slots of `E` (numbered from First) that a loop
/// reading subexpression `Shared` from another loop's values (unless void),
/// and with `held` its invariant subexpressions (chunk_invariant_candidate)
/// held, never reads element by element.
template <class E, class Shared, bool held, std::size_t First, std::size_t N>
constexpr void mark_unread_slots(std::array<bool, N>& unread);
template <class E, class Shared, bool held, std::size_t First, std::size_t N, std::size_t... I>
constexpr void mark_unread_operand_slots(std::array<bool, N>& unread, std::index_sequence<I...>) {
  (mark_unread_slots<typename decltype(+hana::at_c<I>(detail::children<E>::value))::type, Shared, held,
                     detail::operand_first_slot<E, First, I>()>(unread),
   ...);
}
template <class E, class Shared, bool held, std::size_t First, std::size_t N>
constexpr void mark_unread_slots(std::array<bool, N>& unread) {
  if constexpr (std::is_same_v<E, Shared> || (held && chunk_invariant_candidate<E>())) {
    for (std::size_t k = First; k < First + leaf_slots<E>(); ++k) unread[k] = true;
  } else if constexpr (is_inlined<E> && !is_gather_node<E>) {
    mark_unread_operand_slots<E, Shared, held, First>(unread, std::make_index_sequence<E::op::arity>{});
  }
}

/// Per leaf slot of `E`: true when a loop over it that reads `Shared` from
/// elsewhere (unless void) and, with `held`, holds its invariant
/// subexpressions, never reads the slot's elements: `chunk_leaves::prepare`
/// then points the slot at its first element instead of copying it.
template <class E, class Shared, bool held>
inline constexpr std::array<bool, leaf_slots<E>() + 1> unread_slots = [] {
  std::array<bool, leaf_slots<E>() + 1> unread{};
  mark_unread_slots<E, Shared, held, 0>(unread);
  return unread;
}();

/// Per-thread staging of one chunk of every leaf slot of expression `E`.
template <class E>
struct chunk_leaves {
  static constexpr std::size_t slots = leaf_slots<E>();
  static constexpr std::size_t widest = [] {
    std::size_t w = 1;
    hana::for_each(leaf_types<E>(),
                   [&](auto t) { w = std::max(w, sizeof(leaf_storage_t<typename decltype(t)::type>)); });
    return w;
  }();
  static constexpr bool gathers = loop_gathers<E>;
  /// True when a slot is an index leaf or a gathered leaf: its chunk (values or
  /// offsets) is computed into the staging, never read in place, so no chunk
  /// may be longer than `chunk`.
  static constexpr bool computes_slots =
      hana::any_of(leaf_types<E>(), [](auto t) { return hana::bool_c<is_computed_leaf<typename decltype(t)::type>>; });
  alignas(64) std::byte
      staging[slots == 0 ? 1 : slots][gathers ? std::max(chunk * widest, sizeof(gathered_chunk)) : chunk * widest];
  const void* leaf[slots + 1] = {};
  /// The element a slot's staging holds `spread[k]` copies of (a broadcast
  /// leaf), so that the next chunks of the same row do not copy it again:
  /// a row's reduction results are broadcast along it. A negative count
  /// -n: the staging holds n elements of one row repeated (`prepare_rows`).
  const void* spread_from[slots + 1] = {};
  std::int64_t spread[slots + 1] = {};

  /// The staging of node `n`'s loop over `E` (its gathered leaves' axes).
  explicit chunk_leaves(const detail::node_runtime& n) {
    if constexpr (gathers) {
      std::size_t k = 0;
      hana::for_each(leaf_types<E>(), [&](auto t) {
        if constexpr (is_gathered_leaf<typename decltype(t)::type>) {
          auto& g = *reinterpret_cast<gathered_chunk*>(staging[k]);
          g.stride = n.leaves[k].gathered_stride;
          g.size = n.leaves[k].gathered_size;
          leaf[k] = &g;
        }
        ++k;
      });
    }
  }

  /// Points slot K at `n` elements starting at `data[base]` with `step`:
  /// directly when the step is 1, else through a local copy. An index leaf's
  /// offsets are its values, a gathered leaf's are where its elements start:
  /// they are computed into the staging. A slot that the loop does not read
  /// element by element (`unread`, unread_slots) is pointed at its first
  /// element, not copied. (Slot by slot through functions, not a lambda: a
  /// lambda is not inlined into the kernels' x86-64-v3 clone, and the copies
  /// would run as the baseline compiled them, in a call per chunk.)
  void prepare(const void* const* data, const std::int64_t* base, const std::int64_t* step, std::int64_t n,
               const bool* unread = nullptr) {
    prepare_slots(data, base, step, n, unread, std::make_index_sequence<slots>{});
  }

  /// prepare, kept out of its caller: the column kernel's loops ran slower
  /// with it inlined (column sums; bench/RESULTS.md).
  FUSEDSL_NOINLINE void prepare_apart(const void* const* data, const std::int64_t* base, const std::int64_t* step,
                                      std::int64_t n) {
    prepare(data, base, step, n);
  }

  /// Points slot K at `rows` rows of `cols` elements, row i at `data[base + i * row_step]`
  /// with `step` along it, as one chunk (rows * cols <= chunk): directly when the rows
  /// are contiguous one after the other, else through a local copy. Not inlined: in
  /// the kernels' x86-64-v3 clone, a column vector's values repeated along rows of 3
  /// ran slower (add_col over rows of 3; bench/RESULTS.md).
  FUSEDSL_NOINLINE void prepare_rows(const void* const* data, const std::int64_t* base, const std::int64_t* row_step,
                                     const std::int64_t* step, std::int64_t rows, std::int64_t cols) {
    if (rows == 1) return prepare(data, base, step, cols);
    prepare_row_slots(data, base, row_step, step, rows, cols, std::make_index_sequence<slots>{});
  }

 private:
  template <std::size_t... K>
  FUSEDSL_FORCEINLINE void prepare_slots(const void* const* data, const std::int64_t* base, const std::int64_t* step,
                                         std::int64_t n, const bool* unread, std::index_sequence<K...>) {
    (prepare_slot<K>(data, base, step, n, unread), ...);
  }
  template <std::size_t k>
  FUSEDSL_FORCEINLINE void prepare_slot(const void* const* data, const std::int64_t* base, const std::int64_t* step,
                                        std::int64_t n, const bool* unread) {
    using L = leaf_at<E, k>;
    using T = leaf_storage_t<L>;
    T* to = reinterpret_cast<T*>(staging[k]);
    if constexpr (is_computed_leaf<L>) {
      std::int64_t* offset = computed_offsets<L>(k, data);
      for (std::int64_t i = 0; i < n; ++i) offset[i] = base[k] + i * step[k];
    } else {
      const T* from = static_cast<const T*>(data[k]) + base[k];
      if (step[k] == 1 || (unread && unread[k])) {
        leaf[k] = from;
      } else if (step[k] == 0) {
        if (spread_from[k] != from || spread[k] < n) {
          // The value in a local: `to` may alias `from` for the compiler, which then
          // guards the broadcast against that (bench/RESULTS.md, "Column variance
          // without a division per element": 72 -> 68 instructions a row of 64).
          const T value = from[0];
          for (std::int64_t i = 0; i < n; ++i) to[i] = value;  // vectorized: a broadcast
          spread_from[k] = from;
          spread[k] = n;
        }
        leaf[k] = to;
      } else {
        for (std::int64_t i = 0; i < n; ++i) to[i] = from[i * step[k]];
        spread_from[k] = nullptr;
        leaf[k] = to;
      }
    }
  }

  template <std::size_t... K>
  FUSEDSL_FORCEINLINE void prepare_row_slots(const void* const* data, const std::int64_t* base,
                                             const std::int64_t* row_step, const std::int64_t* step, std::int64_t rows,
                                             std::int64_t cols, std::index_sequence<K...>) {
    (prepare_row_slot<K>(data, base, row_step, step, rows, cols), ...);
  }
  template <std::size_t k>
  FUSEDSL_FORCEINLINE void prepare_row_slot(const void* const* data, const std::int64_t* base,
                                            const std::int64_t* row_step, const std::int64_t* step, std::int64_t rows,
                                            std::int64_t cols) {
    using L = leaf_at<E, k>;
    using T = leaf_storage_t<L>;
    T* to = reinterpret_cast<T*>(staging[k]);
    if constexpr (is_computed_leaf<L>) {
      std::int64_t* offset = computed_offsets<L>(k, data);
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) offset[i * cols + j] = base[k] + i * row_step[k] + j * step[k];
      return;
    }
    const T* from = static_cast<const T*>(data[k]) + base[k];
    if (step[k] == 1 && row_step[k] == cols) {
      spread_from[k] = nullptr;
      leaf[k] = from;
    } else if (row_step[k] == 0) {  // one row repeated (a row vector): copied once while it stays
      if (spread_from[k] != from || spread[k] != -rows * cols) {
        for (std::int64_t i = 0; i < rows; ++i)
          for (std::int64_t j = 0; j < cols; ++j) to[i * cols + j] = from[j * step[k]];
        spread_from[k] = from;
        spread[k] = -rows * cols;  // negative: rows repeated, not one element
      }
      leaf[k] = to;
    } else if (step[k] == 0) {  // one value per row (a column vector), repeated along it
      spread_from[k] = nullptr;
      repeat_along_rows(to, from, rows, row_step[k], cols);
      leaf[k] = to;
    } else {
      spread_from[k] = nullptr;
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) to[i * cols + j] = from[i * row_step[k] + j * step[k]];
      leaf[k] = to;
    }
  }

  /// Where slot `k`, an index leaf (L) or a gathered leaf, takes its chunk's
  /// offsets (the gathered leaf's memory at `data[k]`), pointing the slot there.
  template <class L>
  std::int64_t* computed_offsets(std::size_t k, const void* const* data) {
    if constexpr (is_gathered_leaf<L>) {
      auto& g = *reinterpret_cast<gathered_chunk*>(staging[k]);
      g.data = data[k];
      return g.offset;
    } else {
      leaf[k] = staging[k];
      return reinterpret_cast<std::int64_t*>(staging[k]);
    }
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
  } else if constexpr (leaf_slots<E>() == 0) {
    // Held values are keyed by first leaf slot, which a constant-only
    // subexpression shares with its neighbour; the compiler folds it anyway.
    return false;
  } else {
    return hana::unpack(detail::children<E>::value, [](auto... c) {
      return (([]<class C>(hana::basic_type<C>) {
                if constexpr (is_inlined<C>) return leaf_slots<C>() == 0 || chunk_invariant_candidate<C>();
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

/// Reads a chunk like chunk_reader and holds its invariant subexpressions
/// (chunk_invariant_candidate): the readers below add where their values are.
struct holding_chunk_reader {
  const void* const* leaf;
  std::int64_t i;
  template <class E, std::size_t First>
  static constexpr bool holds = chunk_invariant_candidate<E>();
  template <std::size_t K, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE T load() const {
    return chunk_reader{leaf, i}.template load<K, T>();
  }
  template <std::size_t K>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE std::int64_t gathered_size() const {
    return chunk_reader{leaf, i}.template gathered_size<K>();
  }
  template <std::size_t K, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE T gather(std::int64_t index) const {
    return chunk_reader{leaf, i}.template gather<K, T>(index);
  }
};

/// Holds the values of the chunk's invariant subexpressions (indexed by their
/// first leaf slot): one value each for the whole chunk.
struct held_chunk_reader : holding_chunk_reader {
  const double* table;  ///< the held values, by first leaf slot
  template <class E, std::size_t First>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE double held(const E&) const {
    return table[First];
  }
};

/// True when no leaf of subexpression `C` (slots from First) moves along
/// the chunk (`step`, each slot's step along it, is 0 for all of them).
template <std::size_t First, class C>
FUSEDSL_HOST_DEVICE constexpr bool stays_along(const std::int64_t* step) {
  for (std::size_t k = First; k < First + leaf_slots<C>(); ++k)
    if (step[k] != 0) return false;
  return true;
}

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
  template <std::size_t K>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE std::int64_t gathered_size() const {
    return chunk_reader{leaf, 0}.template gathered_size<K>();
  }
  template <std::size_t K, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE T gather(std::int64_t index) const {
    return chunk_reader{leaf, 0}.template gather<K, T>(index);
  }
  template <class E, std::size_t First>
  FUSEDSL_HOST_DEVICE double held(const E& e) const {
    *invariant = *invariant && stays_along<First, E>(step);
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
        static_cast<V>(evaluate<kernel_numerics, 0>(e, sharing<Shared>(held_chunk_reader{{leaf, i}, local}, shared)));
}

/// Calls `f.template operator()<First>(c)` for each subexpression `c` of `e`
/// that a reader holding chunk_invariant_candidates holds (the outermost
/// ones), its leaf slots numbered from First as `evaluate` numbers them.
/// No lambdas here nor in the functors: a lambda is not inlined into a
/// kernel's x86-64-v3 clone (FUSEDSL_CPU_KERNEL), and its loops would run
/// as the baseline compiled them.
template <std::size_t First, class E, class F>
FUSEDSL_FORCEINLINE void for_each_held(const E& e, F& f);
template <std::size_t First, class E, class F, std::size_t... I>
FUSEDSL_FORCEINLINE void for_each_held_operand(const E& e, F& f, std::index_sequence<I...>) {
  (for_each_held<detail::operand_first_slot<E, First, I>()>(hana::at_c<I>(e.args), f), ...);
}
template <std::size_t First, class E, class F>
FUSEDSL_FORCEINLINE void for_each_held(const E& e, F& f) {
  if constexpr (chunk_invariant_candidate<E>()) f.template operator()<First>(e);
  else if constexpr (is_inlined<E> && !is_gather_node<E>)
    for_each_held_operand<First>(e, f, std::make_index_sequence<E::op::arity>{});
}

/// True when `E` computes a floating-point function (a division, square
/// root, exponential, ...: an op of rule::floating) somewhere in its loop.
template <class E>
constexpr bool computes_math() {
  if constexpr (!is_inlined<E>) {
    return false;
  } else {
    return std::is_base_of_v<ops::rule::floating, typename E::op> ||
           hana::unpack(detail::children<E>::value,
                        [](auto... c) { return (computes_math<typename decltype(c)::type>() || ...); });
  }
}

/// True when an invariant subexpression of `E` that a reader holds computes
/// a floating-point function: only such ones are worth computing once per
/// row of a chunk of short rows (evaluate_rows_held), where holding costs a
/// few steps per row.
template <class E>
constexpr bool holds_math() {
  if constexpr (!is_inlined<E>) {
    return false;
  } else if constexpr (chunk_invariant_candidate<E>()) {
    return computes_math<E>();
  } else {
    return hana::unpack(detail::children<E>::value,
                        [](auto... c) { return (holds_math<typename decltype(c)::type>() || ...); });
  }
}

/// Where a chunk of several rows keeps its invariant subexpressions' values
/// (by first leaf slot: subexpression C's as loop_value_t<C>, one per element
/// of the chunk, each row's repeated along it).
using rows_held_values = std::byte[chunk * sizeof(double)];

/// Takes the values of the invariant subexpressions of a chunk of several
/// rows from `rows_held` (one per element: each row's, repeated along it).
struct rows_held_chunk_reader : holding_chunk_reader {
  const rows_held_values* rows_held;
  template <class E, std::size_t First>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE loop_value_t<E> held(const E&) const {
    return reinterpret_cast<const loop_value_t<E>*>(rows_held[First])[i];
  }
};

/// Clears `invariant` unless every leaf of the held subexpressions it is
/// called with has step 0 along a row (for_each_held).
struct held_along_rows {
  const std::int64_t* step;
  bool invariant = true;
  template <std::size_t First, class C>
  void operator()(const C&) {
    invariant = invariant && stays_along<First, C>(step);
  }
};

/// Row i's value of a leaf of type `T` at `data + base + i * row_step`, for
/// `rows` rows, side by side into `to`; returns `to`.
template <class T>
FUSEDSL_FORCEINLINE const void* rows_side_by_side(const void* data, std::int64_t base, std::int64_t row_step,
                                                  std::int64_t rows, std::byte* to) {
  T* values = reinterpret_cast<T*>(to);
  const T* from = static_cast<const T*>(data) + base;
  for (std::int64_t i = 0; i < rows; ++i) values[i] = from[i * row_step];
  return values;
}

/// Held subexpression `c` of `E` (its `sizeof...(J)` leaf slots from First)
/// for `rows` rows (at most a chunk), row i's leaves at `data[k] + base[k] +
/// i * row_step[k]` (elements of each slot's storage type), into `per_row`:
/// the rows' leaf values side by side, then one loop over the rows, which
/// vectorizes.
template <class E, std::size_t First, class C, std::size_t... J>
FUSEDSL_FORCEINLINE void held_per_row(const C& c, const void* const* data, const std::int64_t* base,
                                      const std::int64_t* row_step, std::int64_t rows, loop_value_t<C>* per_row,
                                      std::index_sequence<J...>) {
  alignas(64) std::byte row_values[sizeof...(J) + 1][chunk * sizeof(double)];
  const void* row_leaf[leaf_slots<E>() + 1] = {};
  ((row_leaf[First + J] =
        rows_side_by_side<leaf_storage_t<leaf_at<E, First + J>>>(data[First + J], base[First + J], row_step[First + J],
                                                                 rows, row_values[J])),
   ...);
  for (std::int64_t i = 0; i < rows; ++i)  // vectorized: held per row
    per_row[i] = evaluate<kernel_numerics, First>(c, chunk_reader{row_leaf, i});
}

/// Computes each held subexpression of `E` it is called with (for_each_held)
/// once per row of a prepared chunk of `rows` rows of `cols` elements (`leaf`),
/// into `rows_held` (by first leaf slot), repeated along each row.
template <class E>
struct rows_holder {
  const void* const* leaf;
  std::int64_t rows, cols;
  rows_held_values* rows_held;
  template <std::size_t First, class C>
  FUSEDSL_FORCEINLINE void operator()(const C& c) {
    std::int64_t base[leaf_slots<E>() + 1] = {}, row_step[leaf_slots<E>() + 1];
    for (std::int64_t& s : row_step) s = cols;
    using V = loop_value_t<C>;
    V per_row[chunk];
    held_per_row<E, First>(c, leaf, base, row_step, rows, per_row, std::make_index_sequence<leaf_slots<C>()>{});
    repeat_along_rows(reinterpret_cast<V*>(rows_held[First]), per_row, rows, 1, cols);
  }
};

/// Evaluates `e` over a prepared chunk of `rows` rows of `cols` elements
/// into `values` when its invariant subexpressions are invariant along the
/// rows (every leaf of theirs has step 0 along a row: `step`), computing
/// each of them once per row, not once per element (the rsqrt of an
/// rmsnorm over rows of 4 to 32); returns false, computing nothing, when not.
template <class Shared = void, class E, class V>
FUSEDSL_FORCEINLINE bool evaluate_rows_held(const E& e, const void* const* leaf, const std::int64_t* step, V* values,
                                            std::int64_t rows, std::int64_t cols, const void* shared = nullptr) {
  held_along_rows check{step};
  for_each_held<0>(e, check);
  if (!check.invariant) return false;
  alignas(64) rows_held_values rows_held[leaf_slots<E>() + 1];
  rows_holder<E> hold{leaf, rows, cols, rows_held};
  for_each_held<0>(e, hold);
  const std::int64_t n = rows * cols;
  FUSEDSL_INDEPENDENT_ITERATIONS
  for (std::int64_t i = 0; i < n; ++i)  // vectorized: evaluate_rows_held
    values[i] = static_cast<V>(
        evaluate<kernel_numerics, 0>(e, sharing<Shared>(rows_held_chunk_reader{{leaf, i}, rows_held}, shared)));
  return true;
}

/// The values of a chunk's invariant subexpressions (`held`, by first leaf
/// slot) and whether they stand for their subexpressions (`invariant`):
/// recorded at a row's first chunk, valid along the row.
template <class E>
struct chunk_invariants {
  double held[leaf_slots<E>() + 1] = {};
  bool invariant = false;
};

/// Rows whose invariant subexpressions a loop records in one pass before it
/// evaluates them (`record_rows`): one loop over the rows per subexpression,
/// which vectorizes, instead of a chain of dependent scalar steps (an rsqrt)
/// between two rows' element loops.
inline constexpr std::int64_t recorded_rows = 32;

/// Computes each held subexpression of `E` it is called with (for_each_held)
/// for `rows` rows, row i's leaves starting at `data[k] + base[k] + i *
/// row_step[k]`, into `held[i]` (by first leaf slot), in one loop over the
/// rows, not row by row (bench/RESULTS.md, "Values held per row over short rows").
template <class E>
struct rows_recorder {
  const void* const* data;
  const std::int64_t *base, *row_step;
  std::int64_t rows;
  chunk_invariants<E>* held;
  template <std::size_t First, class C>
  FUSEDSL_FORCEINLINE void operator()(const C& c) {
    loop_value_t<C> per_row[recorded_rows];
    held_per_row<E, First>(c, data, base, row_step, rows, per_row, std::make_index_sequence<leaf_slots<C>()>{});
    for (std::int64_t i = 0; i < rows; ++i) held[i].held[First] = per_row[i];
  }
};

/// The invariant subexpressions of `rows` (at most recorded_rows) rows, row
/// i's leaves starting at `data[k] + base[k] + i * row_step[k]` (elements of
/// each slot's storage type), recorded into `held[i]` (the values
/// invariant_recorder records for one chunk); true when they are invariant
/// along the rows (the leaves' steps along a row, `step`).
template <class E>
FUSEDSL_FORCEINLINE bool record_rows(const E& e, const void* const* data, const std::int64_t* base,
                                     const std::int64_t* row_step, const std::int64_t* step, std::int64_t rows,
                                     chunk_invariants<E>* held) {
  held_along_rows check{step};
  for_each_held<0>(e, check);
  rows_recorder<E> record{data, base, row_step, rows, held};
  for_each_held<0>(e, record);
  return check.invariant;
}

}  // namespace fusedsl::cpu_detail
