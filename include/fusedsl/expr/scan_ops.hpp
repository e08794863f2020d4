/// @file scan_ops.hpp
/// The scans (cumulative ops): dtype rules and combining functions. A scan
/// op is an associative `combine(a, b)` of the result over earlier
/// positions `a` and the value or result over later ones `b`, with an
/// `identity`: so a backend may combine sequentially (the CPU) or in a tree
/// (a CUDA block), and the oracle sequentially in double. `T` is the compute
/// type the operand is converted to (`input_dtype`).
#pragma once
#include <fusedsl/core/config.hpp>         // FUSEDSL_HOST_DEVICE
#include <fusedsl/core/dtype.hpp>          // dtype
#include <fusedsl/core/math.hpp>           // math::*
#include <fusedsl/expr/reduction_ops.hpp>  // reduction_base, ops::detail::widen_integers, lowest, highest

namespace fusedsl::ops {

/// Running sum (`!Product`) or product; integers and bool combine in i64
/// (torch.cumsum, torch.cumprod). Its flags (`adds_up`, `needs_floating`)
/// are a reduction's.
template <bool Product>
struct cumulative_arithmetic : reduction_base {
  static constexpr const char* name = Product ? "cumprod" : "cumsum";
  static constexpr bool adds_up = true;
  static constexpr dtype input_dtype(dtype x) { return detail::widen_integers(x); }
  static constexpr dtype result_dtype(dtype x) { return input_dtype(x); }
  template <class T>
  FUSEDSL_HOST_DEVICE static constexpr T identity() {
    return T(Product ? 1 : 0);
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T combine(T a, T b) const {
    if constexpr (Product) return math::wrap_mul(a, b);
    else return math::wrap_add(a, b);
  }
  constexpr bool operator==(const cumulative_arithmetic&) const = default;
};
using cumsum = cumulative_arithmetic<false>;
using cumprod = cumulative_arithmetic<true>;

/// Running maximum (`Largest`) or minimum of the values, in the operand's
/// dtype; NaN propagates to every later position (torch.cummax's values).
template <bool Largest>
struct cumulative_extreme : reduction_base {
  static constexpr const char* name = Largest ? "cummax" : "cummin";
  static constexpr dtype input_dtype(dtype x) { return x; }
  static constexpr dtype result_dtype(dtype x) { return x; }
  template <class T>
  FUSEDSL_HOST_DEVICE static constexpr T identity() {
    if constexpr (Largest) return detail::lowest<T>();
    else return detail::highest<T>();
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T combine(T a, T b) const {
    if constexpr (Largest) return math::nan_max(a, b);
    else return math::nan_min(a, b);
  }
  constexpr bool operator==(const cumulative_extreme&) const = default;
};
using cummax = cumulative_extreme<true>;
using cummin = cumulative_extreme<false>;

/// log(cumsum(exp(x))) of floating-point values: each step is
/// log(exp(a) + exp(b)) = max + log1p(exp(min - max)), which neither
/// overflows nor loses the small terms (torch.logcumsumexp).
struct logcumsumexp : reduction_base {
  static constexpr const char* name = "logcumsumexp";
  static constexpr bool adds_up = true;
  static constexpr bool needs_floating = true;
  static constexpr dtype input_dtype(dtype x) { return x; }
  static constexpr dtype result_dtype(dtype x) { return x; }
  template <class T>
  FUSEDSL_HOST_DEVICE static constexpr T identity() {
    return detail::lowest<T>();
  }
  template <class T>
  FUSEDSL_HOST_DEVICE constexpr T combine(T a, T b) const {
    if (math::is_nan(a) || math::is_nan(b)) return a + b;
    const T high = a < b ? b : a, low = a < b ? a : b;
    // -inf with -inf, and +inf with anything, have no difference to take.
    if (low == detail::lowest<T>() || high == detail::highest<T>()) return high;
    return high + math::log1p(math::exp(low - high));
  }
  constexpr bool operator==(const logcumsumexp&) const = default;
};

}  // namespace fusedsl::ops
