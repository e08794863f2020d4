/// @file math.hpp
/// The scalar functions that pointwise ops compute with, on the host and the
/// device, for any compute type (float, double, integers). One place, so that
/// a backend can swap in faster versions without touching the ops.
#pragma once
#include <cmath>        // std::exp, std::log, ...
#include <limits>       // std::numeric_limits
#include <type_traits>  // std::make_unsigned_t, std::is_integral_v

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE

namespace fusedsl::math {

/// Integer arithmetic wraps around (two's complement) as in PyTorch, without
/// the undefined behaviour of signed overflow in C++.
template <class T>
FUSEDSL_HOST_DEVICE constexpr T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
FUSEDSL_HOST_DEVICE constexpr T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <class T>
FUSEDSL_HOST_DEVICE constexpr T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    // Unsigned types narrower than int promote to signed int: widen to unsigned long long first.
    return static_cast<T>(static_cast<U>(static_cast<unsigned long long>(static_cast<U>(a)) *
                                         static_cast<unsigned long long>(static_cast<U>(b))));
  } else {
    return static_cast<T>(a * b);
  }
}
template <class T>
FUSEDSL_HOST_DEVICE constexpr T wrap_neg(T a) {
  return wrap_sub(T(0), a);
}

/// NaN test that also accepts integers (never NaN).
template <class T>
FUSEDSL_HOST_DEVICE constexpr bool is_nan(T a) {
  if constexpr (std::is_floating_point_v<T>) return a != a;
  else return false;
}

/// max and min that propagate NaN, as torch.maximum / torch.minimum do.
template <class T>
FUSEDSL_HOST_DEVICE constexpr T nan_max(T a, T b) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
  return a < b ? b : a;
}
template <class T>
FUSEDSL_HOST_DEVICE constexpr T nan_min(T a, T b) {
  if (is_nan(a) || is_nan(b)) return is_nan(a) ? a : b;
  return b < a ? b : a;
}

template <class T> FUSEDSL_HOST_DEVICE T exp(T a) { return std::exp(a); }
template <class T> FUSEDSL_HOST_DEVICE T log(T a) { return std::log(a); }
template <class T> FUSEDSL_HOST_DEVICE T log1p(T a) { return std::log1p(a); }
template <class T> FUSEDSL_HOST_DEVICE T expm1(T a) { return std::expm1(a); }
template <class T> FUSEDSL_HOST_DEVICE T sqrt(T a) { return std::sqrt(a); }
template <class T> FUSEDSL_HOST_DEVICE T rsqrt(T a) { return T(1) / std::sqrt(a); }
/// Floating-point pow from the standard library; integer pow by repeated
/// squaring with wrap-around, where a negative exponent gives 0 unless the
/// base is 1 or -1 (the integer part of the exact result).
template <class T> FUSEDSL_HOST_DEVICE constexpr T pow(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(a, b);
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else {
    if (b < T(0)) return a == T(1) ? T(1) : a == T(-1) ? ((b & T(1)) ? T(-1) : T(1)) : T(0);
    T result = 1;
    for (; b != T(0); b = static_cast<T>(b >> 1), a = wrap_mul(a, a))
      if (b & T(1)) result = wrap_mul(result, a);
    return result;
  }
}
template <class T> FUSEDSL_HOST_DEVICE T sin(T a) { return std::sin(a); }
template <class T> FUSEDSL_HOST_DEVICE T cos(T a) { return std::cos(a); }
template <class T> FUSEDSL_HOST_DEVICE T tanh(T a) { return std::tanh(a); }
template <class T> FUSEDSL_HOST_DEVICE T erf(T a) { return std::erf(a); }
template <class T> FUSEDSL_HOST_DEVICE T sigmoid(T a) { return T(1) / (T(1) + std::exp(-a)); }
template <class T> FUSEDSL_HOST_DEVICE T abs(T a) {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(a);
  else return a < T(0) ? wrap_neg(a) : a;
}
/// gelu with the exact erf form: x/2 (1 + erf(x/sqrt(2))).
template <class T> FUSEDSL_HOST_DEVICE T gelu_erf(T a) {
  return T(0.5) * a * (T(1) + std::erf(a * T(0.70710678118654752440)));
}
/// gelu with the tanh approximation: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
template <class T> FUSEDSL_HOST_DEVICE T gelu_tanh(T a) {
  return T(0.5) * a * (T(1) + std::tanh(T(0.79788456080286535588) * (a + T(0.044715) * a * a * a)));
}
template <class T> FUSEDSL_HOST_DEVICE T silu(T a) { return a / (T(1) + std::exp(-a)); }

}  // namespace fusedsl::math
