/// @file reduction_ops.hpp
/// The reductions: dtype rules and accumulators. An accumulator is a small
/// state with `add` (one element, with its position along the reduced
/// axes), `merge` (two partial states, for parallel reductions; the left
/// state covers the earlier positions) and `finish` (given the element count).
/// `T` is the compute type the input is converted to.
#pragma once
#include <algorithm>  // std::min
#include <cstdint>    // std::int64_t
#include <limits>     // std::numeric_limits

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE, FUSEDSL_ROLLED_LANES
#include <fusedsl/core/dtype.hpp>   // dtype
#include <fusedsl/core/math.hpp>    // math::*

namespace fusedsl::ops {

namespace detail {
template <class T>
FUSEDSL_HOST_DEVICE constexpr T highest() {
  if constexpr (std::numeric_limits<T>::has_infinity) return std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::max();
}
template <class T>
FUSEDSL_HOST_DEVICE constexpr T lowest() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  else return std::numeric_limits<T>::lowest();
}
/// Folds `lanes` (a power of two) partial results into v[0] pairwise, the
/// upper half into the lower: a chain of log2(lanes) dependent steps, not
/// lanes - 1, on every block a loop adds.
template <int lanes, class T, class Op>
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void fold_lanes(T* v, Op op) {
  static_assert(lanes > 0 && (lanes & (lanes - 1)) == 0, "fold_lanes: lanes must be a power of two");
  for (int width = lanes / 2; width > 0; width /= 2)
    for (int l = 0; l < width; ++l) op(v[l], v[l + width]);
}
/// `rows` rows of `cols` values at `v` into `t`, a column per position:
/// t[j * rows + i] = v[i * cols + j] (add_rows' short rows).
template <class T>
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void transpose_rows(T* t, const T* v, std::int64_t rows,
                                                                      std::int64_t cols) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) t[j * rows + i] = v[i * cols + j];
}
/// Integers and bool accumulate in i64, as torch.sum does.
constexpr dtype widen_integers(dtype x) { return is_floating_point(x) ? x : dtype::i64; }
/// Integers and bool compute in f32 (logsumexp).
constexpr dtype to_floating(dtype x) { return is_floating_point(x) ? x : dtype::f32; }
}  // namespace detail

/// What every reduction shares: the element-count requirement.
struct reduction_base {
  /// min, max, argmin and argmax have no value over zero elements.
  static constexpr bool needs_elements = false;
  /// Only floating-point operands (mean, var, std); integers must be cast first.
  static constexpr bool needs_floating = false;
  /// Adds values up (sum, prod, mean, var, std, logsumexp), so that
  /// `fx::accumulate<T>` may choose the type it adds in; max, min, argmax,
  /// argmin, any and all select a value and have nothing to round.
  static constexpr bool adds_up = false;
  constexpr bool operator==(const reduction_base&) const = default;
};

/// Sum; integers and bool sum in i64.
struct sum : reduction_base {
  static constexpr const char* name = "sum";
  static constexpr bool adds_up = true;
  static constexpr dtype input_dtype(dtype x) { return detail::widen_integers(x); }
  static constexpr dtype result_dtype(dtype x) { return input_dtype(x); }
  template <class T>
  struct state {
    T acc = T(0);
  };
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    s.acc = math::wrap_add(s.acc, v);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void merge(state<T>& s, const state<T>& o) const {
    s.acc = math::wrap_add(s.acc, o.acc);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T finish(const state<T>& s, std::int64_t) const {
    return s.acc;
  }
  constexpr bool operator==(const sum&) const = default;
};

/// Product; integers and bool multiply in i64.
struct prod : reduction_base {
  static constexpr const char* name = "prod";
  static constexpr bool adds_up = true;
  static constexpr dtype input_dtype(dtype x) { return detail::widen_integers(x); }
  static constexpr dtype result_dtype(dtype x) { return input_dtype(x); }
  template <class T>
  struct state {
    T acc = T(1);
  };
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    s.acc = math::wrap_mul(s.acc, v);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void merge(state<T>& s, const state<T>& o) const {
    s.acc = math::wrap_mul(s.acc, o.acc);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T finish(const state<T>& s, std::int64_t) const {
    return s.acc;
  }
  constexpr bool operator==(const prod&) const = default;
};

/// Arithmetic mean of floating-point values (NaN over zero elements).
struct mean : reduction_base {
  static constexpr const char* name = "mean";
  static constexpr bool adds_up = true;
  static constexpr bool needs_floating = true;
  static constexpr dtype input_dtype(dtype x) { return x; }
  static constexpr dtype result_dtype(dtype x) { return x; }
  template <class T>
  struct state {
    T acc = T(0);
  };
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    s.acc += v;
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void merge(state<T>& s, const state<T>& o) const {
    s.acc += o.acc;
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T finish(const state<T>& s, std::int64_t n) const {
    return s.acc / T(n);
  }
  constexpr bool operator==(const mean&) const = default;
};

/// Largest value; NaN propagates (torch.amax).
struct max : reduction_base {
  static constexpr const char* name = "max";
  static constexpr bool needs_elements = true;
  static constexpr dtype input_dtype(dtype x) { return x; }
  static constexpr dtype result_dtype(dtype x) { return x; }
  template <class T>
  struct state {
    T acc = detail::lowest<T>();
  };
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    s.acc = math::nan_max(s.acc, v);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void merge(state<T>& s, const state<T>& o) const {
    s.acc = math::nan_max(s.acc, o.acc);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T finish(const state<T>& s, std::int64_t) const {
    return s.acc;
  }
  constexpr bool operator==(const max&) const = default;
};

/// Smallest value; NaN propagates (torch.amin).
struct min : reduction_base {
  static constexpr const char* name = "min";
  static constexpr bool needs_elements = true;
  static constexpr dtype input_dtype(dtype x) { return x; }
  static constexpr dtype result_dtype(dtype x) { return x; }
  template <class T>
  struct state {
    T acc = detail::highest<T>();
  };
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    s.acc = math::nan_min(s.acc, v);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void merge(state<T>& s, const state<T>& o) const {
    s.acc = math::nan_min(s.acc, o.acc);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T finish(const state<T>& s, std::int64_t) const {
    return s.acc;
  }
  constexpr bool operator==(const min&) const = default;
};

/// Position of the largest (`Largest`) or smallest value along the reduced
/// axes, flattened; the first one on ties; NaN counts as the extreme value,
/// as in torch.argmax / torch.argmin.
template <bool Largest>
struct arg_extreme : reduction_base {
  static constexpr const char* name = Largest ? "argmax" : "argmin";
  static constexpr bool needs_elements = true;
  static constexpr dtype input_dtype(dtype x) { return x; }
  static constexpr dtype result_dtype(dtype) { return dtype::i64; }
  template <class T>
  struct state {
    T best = T(0);
    std::int64_t index = -1;
  };
  template <class T>
  FUSEDSL_HOST_DEVICE static constexpr bool beats(T v, T best) {
    if (math::is_nan(best)) return false;
    if (math::is_nan(v)) return true;
    return Largest ? best < v : v < best;
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t i) const {
    if (s.index < 0 || beats(v, s.best)) s = {v, i};
  }
  /// Adds the `count` values `v` at positions `at`, `at + 1`, ... in two passes
  /// that vectorize, where add's branches do not: the block's extreme value
  /// (NaN before any), then the first position that holds it.
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void add_block(state<T>& s, const T* v, std::int64_t count,
                                                                   std::int64_t at) const {
    if (count <= 0) return;
    constexpr int lanes = 16;
    const auto extreme = [](T a, T b) { return Largest ? math::nan_max(a, b) : math::nan_min(a, b); };
    T e[lanes];
    for (int l = 0; l < lanes; ++l) e[l] = v[0];
    std::int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      FUSEDSL_ROLLED_LANES
      for (int l = 0; l < lanes; ++l) e[l] = extreme(e[l], v[i + l]);
    }
    for (; i < count; ++i) e[0] = extreme(e[0], v[i]);
    detail::fold_lanes<lanes>(e, [&](T& a, const T& b) { a = extreme(a, b); });
    const T best = e[0];
    // A min over 32-bit positions (a block is at most a CPU chunk): as wide as the values.
    const int n = static_cast<int>(count);
    int first = n;
    // j where v[j] holds it, else n, in arithmetic: a `?:` on a float comparison becomes a branch
    if (math::is_nan(best))
      for (int j = 0; j < n; ++j) first = std::min(first, j + (n - j) * static_cast<int>(!math::is_nan(v[j])));
    else
      for (int j = 0; j < n; ++j) first = std::min(first, j + (n - j) * static_cast<int>(v[j] != best));
    if (s.index < 0 || beats(best, s.best)) s = {best, at + first};
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void merge(state<T>& s, const state<T>& o) const {
    if (o.index < 0) return;
    const bool tie = !beats(o.best, s.best) && !beats(s.best, o.best);
    if (s.index < 0 || beats(o.best, s.best) || (tie && o.index < s.index)) s = o;
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr std::int64_t finish(const state<T>& s, std::int64_t) const {
    return s.index;
  }
  constexpr bool operator==(const arg_extreme&) const = default;
};
using argmax = arg_extreme<true>;
using argmin = arg_extreme<false>;

/// True if any (`Any`) or all (`!Any`) values are nonzero.
template <bool Any>
struct logical_reduction : reduction_base {
  static constexpr const char* name = Any ? "any" : "all";
  static constexpr dtype input_dtype(dtype) { return dtype::boolean; }
  static constexpr dtype result_dtype(dtype) { return dtype::boolean; }
  template <class T>
  struct state {
    bool acc = !Any;
  };
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    s.acc = Any ? (s.acc || v) : (s.acc && v);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void merge(state<T>& s, const state<T>& o) const {
    add(s, o.acc, 0);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr bool finish(const state<T>& s, std::int64_t) const {
    return s.acc;
  }
  constexpr bool operator==(const logical_reduction&) const = default;
};
using any = logical_reduction<true>;
using all = logical_reduction<false>;

/// Variance (`!Root`) or standard deviation (`Root`) with Welford's update,
/// dividing by `count - correction` (1 by default, as in PyTorch).
template <bool Root>
struct moment : reduction_base {
  static constexpr const char* name = Root ? "std" : "var";
  static constexpr bool adds_up = true;
  static constexpr bool needs_floating = true;
  static constexpr dtype input_dtype(dtype x) { return x; }
  static constexpr dtype result_dtype(dtype x) { return x; }
  double correction = 1;
  template <class T>
  struct state {
    T mean = T(0);
    T m2 = T(0);
    T n = T(0);
  };
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    s.n += T(1);
    const T delta = v - s.mean;
    s.mean += delta / s.n;
    s.m2 += delta * (v - s.mean);
  }
  /// Adds `v` as the state's `n`-th value, given `inverse` = 1 / n: where
  /// many states hold the same count (the CPU's column kernel, a value per
  /// column and row), their caller divides once for all of them, and each
  /// add multiplies instead of dividing (a vector division per element was
  /// most of a column variance's time).
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add_nth(state<T>& s, T v, T n, T inverse) const {
    s.n = n;
    const T delta = v - s.mean;
    s.mean += delta * inverse;
    s.m2 += delta * (v - s.mean);
  }
  /// Adds `count` values at once (a loop's chunk): their mean, then their
  /// squared deviations from it, merged as a partial state. The same
  /// accuracy as Welford's update with one division per block instead of
  /// one per element, and loops a compiler vectorizes. (Always inlined: out of
  /// line, the CPU kernels' AVX2 clones would call its baseline SSE code.)
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void add_block(state<T>& s, const T* v, std::int64_t count) const {
    constexpr int lanes = 8;  // independent partial sums: the loops vectorize without reassociation
    const std::int64_t whole = count - count % lanes;
    T sum[lanes] = {}, squares[lanes] = {};
    for (std::int64_t i = 0; i < whole; i += lanes)  // vectorized: mean of a block
      for (int l = 0; l < lanes; ++l) sum[l] += v[i + l];
    for (std::int64_t i = whole; i < count; ++i) sum[i - whole] += v[i];
    detail::fold_lanes<lanes>(sum, [](T& a, T b) { a += b; });
    const T mean = sum[0] / T(count);
    for (std::int64_t i = 0; i < whole; i += lanes)  // vectorized: squares of a block
      for (int l = 0; l < lanes; ++l) squares[l] += (v[i + l] - mean) * (v[i + l] - mean);
    for (std::int64_t i = whole; i < count; ++i) squares[i - whole] += (v[i] - mean) * (v[i] - mean);
    detail::fold_lanes<lanes>(squares, [](T& a, T b) { a += b; });
    merge(s, state<T>{mean, squares[0], T(count)});
  }
  /// Adds `rows` short rows of `cols` values (row i at v + i * cols, rows * cols <=
  /// capacity) into the fresh states s[0..rows): the rows transposed into a column
  /// per position, so that every step (the sums, the means, the squared deviations,
  /// the states) is a loop across the rows that the compiler vectorizes; each row
  /// adds in order of its elements, as add_block's two passes.
  template <int capacity, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void add_rows(state<T>* s, const T* v, std::int64_t rows,
                                                                  std::int64_t cols) const {
    T t[capacity], sum[capacity], m2[capacity];
    detail::transpose_rows(t, v, rows, cols);
    for (std::int64_t i = 0; i < rows; ++i) sum[i] = T(0), m2[i] = T(0);
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) sum[i] += t[j * rows + i];  // vectorized: sums of short rows
    for (std::int64_t i = 0; i < rows; ++i) sum[i] /= T(cols);            // the means
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i)  // vectorized: squares of short rows
        m2[i] += (t[j * rows + i] - sum[i]) * (t[j * rows + i] - sum[i]);
    for (std::int64_t i = 0; i < rows; ++i) s[i] = state<T>{sum[i], m2[i], T(cols)};  // a fresh state merged
  }
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void merge(state<T>& s, const state<T>& o) const {
    if (o.n == T(0)) return;
    if (s.n == T(0)) {
      s = o;
      return;
    }
    const T n = s.n + o.n;
    const T delta = o.mean - s.mean;
    s.mean += delta * (o.n / n);
    s.m2 += o.m2 + delta * delta * (s.n * o.n / n);
    s.n = n;
  }
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr T finish(const state<T>& s, std::int64_t count) const {
    // PyTorch divides by max(0, count - correction): no elements (or too
    // few for the correction) give NaN (0 / 0) or inf, never a negative
    // divisor (0 / -1 would be -0, a wrong "variance" of an empty axis).
    const T dof = T(count) - T(correction);
    const T variance = s.m2 / (dof > T(0) ? dof : T(0));
    if constexpr (Root) return math::sqrt(variance);
    else return variance;
  }
  constexpr bool operator==(const moment&) const = default;
};
using var = moment<false>;
using std_dev = moment<true>;

/// log(sum(exp(x))) computed online: a running max and a sum scaled to it.
struct logsumexp : reduction_base {
  static constexpr const char* name = "logsumexp";
  static constexpr bool adds_up = true;
  static constexpr dtype input_dtype(dtype x) { return detail::to_floating(x); }
  static constexpr dtype result_dtype(dtype x) { return input_dtype(x); }
  template <class T>
  struct state {
    T max = detail::lowest<T>();
    T sum = T(0);
  };
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void merge(state<T>& s, const state<T>& o) const {
    if (math::is_nan(o.max) || math::is_nan(s.max)) {
      s.max = math::is_nan(s.max) ? s.max : o.max;
      return;
    }
    if (o.max == detail::lowest<T>()) return;  // o holds no finite mass
    if (s.max == detail::lowest<T>()) {        // nor does s (its sum is 0): no exp to take
      s = o;
      return;
    }
    if (s.max == o.max) {
      s.sum += o.sum;
      return;
    }
    if (s.max < o.max) {
      s.sum = s.sum * math::exp(s.max - o.max) + o.sum;
      s.max = o.max;
    } else s.sum += o.sum * math::exp(o.max - s.max);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr void add(state<T>& s, T v, std::int64_t) const {
    merge(s, state<T>{v, T(1)});
  }
  /// True when values whose max is `max` decide the result or add nothing to it
  /// (NaN, +inf, or all -inf): their sum of exp(v - max) is not taken.
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE static constexpr bool decided_by_max(T max) {
    return math::is_nan(max) || max == detail::highest<T>() || max == detail::lowest<T>();
  }
  /// Adds `count` values at once (a loop's chunk): their max, then the sum of
  /// exp(v - max), merged as a partial state, as Inductor's two passes do
  /// within the block: element by element, the rescaling's branch and
  /// scalar exp do not vectorize. (Always inlined, as moment's.)
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void add_block(state<T>& s, const T* v, std::int64_t count) const {
    // Independent partial results, one 32-byte vector of them: the loops vectorize
    // without reassociation, and a short row's fold is short (the max loop stays a
    // loop: FUSEDSL_ROLLED_LANES).
    constexpr int lanes = static_cast<int>(32 / sizeof(T));
    const std::int64_t whole = count - count % lanes;
    T top[lanes], sum[lanes] = {};
    for (int l = 0; l < lanes; ++l) top[l] = detail::lowest<T>();
    for (std::int64_t i = 0; i < whole; i += lanes) {
      FUSEDSL_ROLLED_LANES
      for (int l = 0; l < lanes; ++l) top[l] = math::nan_max(top[l], v[i + l]);  // vectorized: max of a block
    }
    for (std::int64_t i = whole; i < count; ++i) top[i - whole] = math::nan_max(top[i - whole], v[i]);
    detail::fold_lanes<lanes>(top, [](T& a, T b) { a = math::nan_max(a, b); });
    const T max = top[0];
    if (decided_by_max(max)) {
      merge(s, state<T>{max, T(1)});
      return;
    }
    for (std::int64_t i = 0; i < whole; i += lanes)
      for (int l = 0; l < lanes; ++l) sum[l] += math::exp(v[i + l] - max);  // vectorized: exp of a block
    for (std::int64_t i = whole; i < count; ++i) sum[i - whole] += math::exp(v[i] - max);
    detail::fold_lanes<lanes>(sum, [](T& a, T b) { a += b; });
    merge(s, state<T>{max, sum[0]});
  }
  /// Adds `rows` short rows of `cols` values (row i at v + i * cols, rows * cols <=
  /// capacity) into states s[0..rows): the rows transposed into a column per
  /// position, so that each row's max and its sum of exp(v - max) are loops across
  /// the rows that the compiler vectorizes (element by element: a scalar exp and a
  /// rescaling each); each row adds in order of its elements.
  template <int capacity, class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr void add_rows(state<T>* s, const T* v, std::int64_t rows,
                                                                  std::int64_t cols) const {
    T t[capacity], top[capacity], sum[capacity];
    detail::transpose_rows(t, v, rows, cols);
    for (std::int64_t i = 0; i < rows; ++i) top[i] = detail::lowest<T>(), sum[i] = T(0);
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) top[i] = math::nan_max(top[i], t[j * rows + i]);  // vectorized
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i) sum[i] += math::exp(t[j * rows + i] - top[i]);  // vectorized
    for (std::int64_t i = 0; i < rows; ++i) merge(s[i], state<T>{top[i], decided_by_max(top[i]) ? T(1) : sum[i]});
  }
  template <class T>
  FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr T finish(const state<T>& s, std::int64_t) const {
    if (math::is_nan(s.max) || s.max == detail::highest<T>()) return s.max;
    return s.max + math::log(s.sum);
  }
  constexpr bool operator==(const logsumexp&) const = default;
};

/// Reduction `Base` accumulating in dtype `Acc` (`fx::accumulate<T>`): the
/// operand converts to `Acc`'s compute type and adds up in it; the result
/// keeps `Base`'s dtype, rounded once, when it is stored. A type of its own,
/// so that every backend and the oracle take `Acc` from `input_dtype` as for
/// any reduction, and `sum(x)` and the sum of x in double are different nodes.
template <class Base, dtype Acc>
struct accumulate_in : Base {
  static constexpr dtype accumulation = Acc;
  static constexpr dtype input_dtype(dtype) { return Acc; }
  static constexpr dtype result_dtype(dtype x) { return Base::result_dtype(x); }
  constexpr bool operator==(const accumulate_in&) const = default;
};

}  // namespace fusedsl::ops
