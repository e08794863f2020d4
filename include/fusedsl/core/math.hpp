/// @file math.hpp
/// The scalar functions that pointwise ops compute with, on the host and the
/// device, for any compute type (float, double, integers). One place, so that
/// a backend can swap in faster versions without touching the ops.
///
/// float (and double, where the target vectorizes it) transcendentals on
/// the host are those of vector_math.hpp: branch-free, so that loops calling
/// them vectorize without -ffast-math, with errors of a few ulps
/// (docs/math.md). On the device (nvcc's device pass) they forward to the
/// CUDA math library, and other types (integers, f16/bf16 wrappers) keep the
/// std:: functions.
#pragma once
#include <cmath>        // std::exp, std::log, ...
#include <limits>       // std::numeric_limits
#include <type_traits>  // std::make_unsigned_t, std::is_integral_v, std::is_constant_evaluated

#include <fusedsl/core/config.hpp>       // FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE, FUSEDSL_CUDA_IEEE_DIVISION
#include <fusedsl/core/fault.hpp>        // detail::report_fault
#include <fusedsl/core/simd_sqrt.hpp>    // fusedsl_sqrtf, fusedsl_sqrt, FUSEDSL_SIMD_SQRT
#include <fusedsl/core/vector_math.hpp>  // vector_math::exp, ...

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

/// c ? a : b with both arms computed: a blend of bits for floating types and
/// integers. A `?:` may become a branch that stops a loop's vectorization
/// (vector_math::detail::select says how), as in `where(x > 0, erf(x), x)`.
template <class T>
FUSEDSL_HOST_DEVICE constexpr T select(bool c, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return vector_math::detail::select(c, a, b);
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    const U m = U(0) - static_cast<U>(c);  // all ones where c
    return static_cast<T>((static_cast<U>(a) & m) | (static_cast<U>(b) & ~m));
  } else {
    return c ? a : b;
  }
}

/// max and min that propagate NaN, as torch.maximum / torch.minimum do (b
/// if b is NaN, else a if a is). Two selects between values already
/// computed, each on one comparison: g++ turns each into a compare and a
/// blend also where it vectorizes a row's lanes as a block (SLP), which the
/// blend of bits on `(a < b) | (b != b)` leaves scalar (a row max of 64
/// floats four times slower).
template <class T>
FUSEDSL_HOST_DEVICE constexpr T nan_max(T a, T b) {
#if FUSEDSL_DEVICE_CODE && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, float>) {
    if (!std::is_constant_evaluated()) {  // one instruction, not a compare, a NaN test and a select
      float m;
      asm("max.NaN.f32 %0, %1, %2;" : "=f"(m) : "f"(a), "f"(b));
      return m;
    }
  }
#endif
  const T larger = a < b ? b : a;
  return is_nan(b) ? b : larger;
}
template <class T>
FUSEDSL_HOST_DEVICE constexpr T nan_min(T a, T b) {
#if FUSEDSL_DEVICE_CODE && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, float>) {
    if (!std::is_constant_evaluated()) {
      float m;
      asm("min.NaN.f32 %0, %1, %2;" : "=f"(m) : "f"(a), "f"(b));
      return m;
    }
  }
#endif
  const T smaller = b < a ? b : a;
  return is_nan(b) ? b : smaller;
}

namespace detail {
/// The host uses vector_math for float, and for double where the target
/// vectorizes it (vector_math::double_vectorizes: x86-64 with SSE4.2, e.g.
/// -march=native) or where the CPU kernels have an AVX2 clone
/// (FUSEDSL_CPU_DISPATCH: the default flags), which vectorizes it, where std::
/// would call glibc for every element; the baseline clone, for CPUs without
/// AVX2, runs it scalar. The device pass of nvcc and every other type use
/// the standard (or CUDA) math functions.
#if FUSEDSL_DEVICE_CODE
template <class T>
inline constexpr bool host_vector_math = false;
#else
template <class T>
inline constexpr bool host_vector_math = std::is_same_v<T, float> ||
                                         (std::is_same_v<T, double> &&
                                          (vector_math::double_vectorizes || FUSEDSL_CPU_DISPATCH));
#endif
/// sqrt on the host where std::sqrt does not vectorize (without
/// -fno-math-errno, std::sqrt vectorizes to the instruction): with g++ on
/// x86-64 fusedsl_sqrtf and fusedsl_sqrt (simd_sqrt.hpp), the instruction
/// through its vector variants; elsewhere, for float, vector_math::sqrt where
/// it is the faster one, with AVX2 or newer (8 or 16 lanes: Adam's update
/// runs faster than with the scalar std::sqrt; figures: bench/RESULTS.md).
/// With SSE2 / SSE4 (4 lanes) that emulation costs twice the scalar sqrt
/// instruction, and a loop with it runs slower vectorized than the scalar
/// loop with std::sqrt. Same bits in every case. double keeps std::sqrt
/// there.
#if FUSEDSL_NO_MATH_ERRNO || FUSEDSL_DEVICE_CODE
template <class T>
inline constexpr bool simd_sqrt = false;
template <class T>
inline constexpr bool host_sqrt = false;
#elif FUSEDSL_SIMD_SQRT
template <class T>
inline constexpr bool simd_sqrt = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
inline constexpr bool host_sqrt = false;
#elif defined(__AVX2__) || FUSEDSL_CPU_DISPATCH
template <class T>
inline constexpr bool simd_sqrt = false;
template <class T>
inline constexpr bool host_sqrt = std::is_same_v<T, float>&& host_vector_math<T>;
#else
template <class T>
inline constexpr bool simd_sqrt = false;
template <class T>
inline constexpr bool host_sqrt = false;
#endif
}  // namespace detail

// Always inlined: a call left in a loop stops its vectorization.
#define FUSEDSL_MATH_FN FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE

template <class T>
FUSEDSL_MATH_FN T exp(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::exp(a);
  else return std::exp(a);
}
template <class T>
FUSEDSL_MATH_FN T log(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::log(a);
  else return std::log(a);
}
template <class T>
FUSEDSL_MATH_FN T log2(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::log2(a);
  else return std::log2(a);
}
template <class T>
FUSEDSL_MATH_FN T log10(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::log10(a);
  else return std::log10(a);
}
template <class T>
FUSEDSL_MATH_FN T exp2(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::exp2(a);
  else return std::exp2(a);
}
template <class T>
FUSEDSL_MATH_FN T log1p(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::log1p(a);
  else return std::log1p(a);
}
template <class T>
FUSEDSL_MATH_FN T expm1(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::expm1(a);
  else return std::expm1(a);
}
/// Square root, correctly rounded. On the host fusedsl_sqrtf, fusedsl_sqrt
/// or vector_math::sqrt (bit for bit std::sqrt), since without -fno-math-errno
/// g++ turns std::sqrt into a call that sets errno and keeps the loop scalar
/// (see detail::simd_sqrt and detail::host_sqrt for which, and when
/// std::sqrt is kept).
template <class T>
FUSEDSL_MATH_FN T sqrt(T a) {
#if FUSEDSL_SIMD_SQRT  // declared only here
  if constexpr (detail::simd_sqrt<T> && std::is_same_v<T, float>) return fusedsl_sqrtf(a);
  else if constexpr (detail::simd_sqrt<T>) return fusedsl_sqrt(a);
#endif
  if constexpr (detail::host_sqrt<T>) return vector_math::sqrt(a);
  else return std::sqrt(a);
}
/// 1 / sqrt(a): float on the host vector_math::rsqrt, correctly rounded
/// whatever the flags (T(1) / std::sqrt(a), as PyTorch's CPU rsqrt, rounds
/// twice: up to 1.49 ulp).
template <class T>
FUSEDSL_MATH_FN T rsqrt(T a) {
  if constexpr (std::is_same_v<T, float> && detail::host_vector_math<T>) return vector_math::rsqrt(a);
  else return T(1) / math::sqrt(a);
}
/// a / b. CUDA kernels divide floats with PTX's `div.full.f32` (within 2
/// ulp over the whole range, as torch.compile's Triton kernels divide), so
/// that a divisor constant over a row costs one reciprocal per row and a
/// multiply per element; FUSEDSL_CUDA_IEEE_DIVISION restores IEEE division.
/// The host and other types divide as IEEE 754 does.
template <class T>
FUSEDSL_MATH_FN constexpr T divide(T a, T b) {
#if FUSEDSL_DEVICE_CODE && !FUSEDSL_CUDA_IEEE_DIVISION
  if constexpr (std::is_same_v<T, float>) {
    if (!std::is_constant_evaluated()) {
      float q;
      asm("div.full.f32 %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));
      return q;
    }
  }
#endif
  return a / b;
}
/// Floating-point pow from the standard library; integer pow by repeated
/// squaring with wrap-around, where a negative exponent gives 0 unless the
/// base is 1 or -1 (the integer part of the exact result).
template <class T>
FUSEDSL_HOST_DEVICE constexpr T pow(T a, T b) {
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
template <class T>
FUSEDSL_MATH_FN T sin(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::sin(a);
  else return std::sin(a);
}
template <class T>
FUSEDSL_MATH_FN T cos(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::cos(a);
  else return std::cos(a);
}
template <class T>
FUSEDSL_MATH_FN T tanh(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::tanh(a);
  else return std::tanh(a);
}
template <class T>
FUSEDSL_MATH_FN T erf(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::erf(a);
  else return std::erf(a);
}
template <class T>
FUSEDSL_MATH_FN T erfc(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::erfc(a);
  else return std::erfc(a);
}
template <class T>
FUSEDSL_MATH_FN T atan2(T a, T b) {
  if constexpr (detail::host_vector_math<T>) return vector_math::atan2(a, b);
  else return std::atan2(a, b);
}
/// sqrt(a^2 + b^2) without overflow or underflow in between; +Inf if either is
/// infinite (NaN or not). float on the host: in double, where the squares are
/// exact and cannot overflow (no library call, unlike std::hypot).
template <class T>
FUSEDSL_MATH_FN T hypot(T a, T b) {
  if constexpr (std::is_same_v<T, float> && !FUSEDSL_DEVICE_CODE) {
    const float h = static_cast<float>(std::sqrt(double(a) * double(a) + double(b) * double(b)));
    const bool inf = std::fabs(a) == std::numeric_limits<float>::infinity() ||
                     std::fabs(b) == std::numeric_limits<float>::infinity();
    return select(inf, std::numeric_limits<float>::infinity(), h);
  } else {
    return std::hypot(a, b);
  }
}
/// a b + c rounded once (floating types); integers wrap around, bool is a && b || c.
template <class T>
FUSEDSL_HOST_DEVICE T fma(T a, T b, T c) {
  if constexpr (std::is_floating_point_v<T>) return std::fma(a, b, c);
  else if constexpr (std::is_same_v<T, bool>) return (a && b) || c;
  else return wrap_add(wrap_mul(a, b), c);
}
/// C's remainder a - b trunc(a / b), the sign of a (torch.fmod): exact for
/// floating types (NaN for b = 0); integers report division by zero
/// (detail::fault) and give 0 there, and INT_MIN % -1 is 0 (no overflow trap).
template <class T>
FUSEDSL_HOST_DEVICE T fmod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else {
    if (b == T(0)) {
      fusedsl::detail::report_fault(fusedsl::detail::fault::integer_division_by_zero);
      return T(0);
    }
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1)) return T(0);
    return static_cast<T>(a % b);
  }
}
/// Python's remainder a - b floor(a / b), the sign of b (torch.remainder, `%`):
/// fmod, plus b where the signs differ.
template <class T>
FUSEDSL_HOST_DEVICE T remainder(T a, T b) {
  const T r = fmod(a, b);
  return r != T(0) && ((r < T(0)) != (b < T(0))) ? static_cast<T>(r + b) : r;
}
/// 1/(1 + e^-a), without overflow for large |a| on the host.
template <class T>
FUSEDSL_MATH_FN T sigmoid(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::sigmoid(a);
  else return T(1) / (T(1) + std::exp(-a));
}
template <class T>
FUSEDSL_HOST_DEVICE T abs(T a) {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(a);
  else return a < T(0) ? wrap_neg(a) : a;
}
/// gelu with the exact erf form: x/2 (1 + erf(x/sqrt(2))) (on the host
/// computed as x/2 erfc(-x/sqrt 2) for x < 0, without cancellation).
template <class T>
FUSEDSL_MATH_FN T gelu_erf(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::gelu_erf(a);
  else return T(0.5) * a * (T(1) + std::erf(a * T(0.70710678118654752440)));
}
/// gelu with the tanh approximation: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
/// (on the host computed as x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3))).
template <class T>
FUSEDSL_MATH_FN T gelu_tanh(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::gelu_tanh(a);
  else return T(0.5) * a * (T(1) + std::tanh(T(0.79788456080286535588) * (a + T(0.044715) * a * a * a)));
}
/// x sigmoid(x) = x / (1 + e^-x).
template <class T>
FUSEDSL_MATH_FN T silu(T a) {
  if constexpr (detail::host_vector_math<T>) return vector_math::silu(a);
  else return a / (T(1) + std::exp(-a));
}

/// How `to_integral` rounds.
enum class rounding { floor, ceil, trunc, half_even };
/// `a` rounded to an integral value: floating types as std::floor,
/// std::ceil, std::trunc or std::nearbyint (halves to even, as torch.round,
/// in the default rounding mode); integers and bool are integral already.
template <rounding R, class T>
FUSEDSL_HOST_DEVICE T to_integral(T a) {
  if constexpr (!std::is_floating_point_v<T>) return a;
  else if constexpr (R == rounding::floor) return std::floor(a);
  else if constexpr (R == rounding::ceil) return std::ceil(a);
  else if constexpr (R == rounding::trunc) return std::trunc(a);
  else return std::nearbyint(a);
}
/// -1, 0 or 1 by the sign of `a`; 0 for NaN and for -0, as torch.sign.
template <class T>
FUSEDSL_HOST_DEVICE constexpr T sign(T a) {
  if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<int>(T(0) < a) - static_cast<int>(a < T(0)));
  else return static_cast<T>(a != T(0));
}
/// ~a for integers, !a for bool (as torch's ~ on bool tensors).
template <class T>
FUSEDSL_HOST_DEVICE constexpr T bitwise_not(T a) {
  if constexpr (std::is_same_v<T, bool>) return !a;
  else return static_cast<T>(~a);
}
/// a << b as torch computes it: 0 when b is negative or at least the width
/// of T; the bits shifted out are lost (no undefined behaviour).
template <class T>
FUSEDSL_HOST_DEVICE constexpr T shift_left(T a, T b) {
  constexpr T width = static_cast<T>(8 * sizeof(T));
  bool out = b >= width;
  if constexpr (std::is_signed_v<T>) out = out || b < T(0);
  using U = std::make_unsigned_t<T>;
  return out ? T(0) : static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<int>(b)));
}
/// a >> b as torch computes it: arithmetic for signed types; when b is
/// negative or at least the width of T, the sign fill (-1 or 0).
template <class T>
FUSEDSL_HOST_DEVICE constexpr T shift_right(T a, T b) {
  constexpr T width = static_cast<T>(8 * sizeof(T));
  bool out = b >= width;
  T fill = T(0);
  if constexpr (std::is_signed_v<T>) out = out || b < T(0), fill = a < T(0) ? T(-1) : T(0);
  return out ? fill : static_cast<T>(a >> static_cast<int>(b));
}

#undef FUSEDSL_MATH_FN

}  // namespace fusedsl::math
