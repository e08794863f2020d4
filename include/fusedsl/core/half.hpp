/// @file half.hpp
/// 16-bit floating-point storage types, `half` (IEEE binary16) and `bfloat16`,
/// usable on the host and on the device. Arithmetic happens in float: both
/// convert implicitly to float, and from float (or any other arithmetic type,
/// rounded once) with round-to-nearest-even.
#pragma once
#include <concepts>     // std::floating_point, std::integral
#include <cstdint>      // std::uint16_t, std::uint32_t, std::uint64_t
#include <type_traits>  // std::is_signed_v, std::is_constant_evaluated

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE, FUSEDSL_DEVICE_CODE

namespace fusedsl {
namespace detail {

FUSEDSL_HOST_DEVICE constexpr std::uint32_t float_bits(float f) { return __builtin_bit_cast(std::uint32_t, f); }
FUSEDSL_HOST_DEVICE constexpr float bits_float(std::uint32_t u) { return __builtin_bit_cast(float, u); }

/// Drops `shift` low bits of `value`, rounding to nearest, ties to even.
FUSEDSL_HOST_DEVICE constexpr std::uint32_t shift_right_rne(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1u);
  return kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
}

/// `f` rounded to binary16 (nearest, ties to even) with integer operations:
/// constant evaluation and the host; the device's instruction is checked
/// against it (tests/cuda).
FUSEDSL_HOST_DEVICE constexpr std::uint16_t float_to_half_bits_integer(float f) {
  const std::uint32_t x = float_bits(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u)  // Inf stays Inf; NaN stays a (quiet) NaN
    return sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (ax >= 0x477ff000u)  // at or above halfway between 65504 and 65536: overflows to Inf
    return sign | 0x7c00u;
  if (ax < 0x38800000u) {               // below 2^-14: a half subnormal or zero
    if (ax < 0x33000000u) return sign;  // at most 2^-25 (ties to even zero)
    const std::uint32_t exponent = ax >> 23;
    const std::uint32_t mantissa = (ax & 0x7fffffu) | 0x800000u;
    return sign | static_cast<std::uint16_t>(shift_right_rne(mantissa, 126u - exponent));
  }
  // Normal: rebias the exponent (127 -> 15); a mantissa carry rolls into the exponent.
  return sign | static_cast<std::uint16_t>(shift_right_rne(ax - (112u << 23), 13u));
}

/// `f` rounded to binary16: on the device one instruction (the integer
/// code is some twenty, with branches), a NaN made the same quiet NaN as by
/// the integer code (with bit operations: a call of it here would be
/// computed for every value).
FUSEDSL_HOST_DEVICE constexpr std::uint16_t float_to_half_bits(float f) {
#if FUSEDSL_DEVICE_CODE
  if (!std::is_constant_evaluated()) {
    std::uint16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return f != f ? static_cast<std::uint16_t>(((float_bits(f) >> 16) & 0x8000u) | 0x7e00u) : h;
  }
#endif
  return float_to_half_bits_integer(f);
}

/// Binary16 bits widened to float (exact) with integer operations.
FUSEDSL_HOST_DEVICE constexpr float half_bits_to_float_integer(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return bits_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0) return bits_float(sign);
    exponent = 113;  // subnormal: normalize into a float exponent
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    return bits_float(sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13));
  }
  return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/// Binary16 bits widened to float: on the device one instruction, which
/// makes every NaN the same NaN, as torch's CUDA kernels do (keeping the sign
/// and payload took seven more instructions a value, and row kernels widen
/// each element once per pass); everything else as by the integer code.
FUSEDSL_HOST_DEVICE constexpr float half_bits_to_float(std::uint16_t h) {
#if FUSEDSL_DEVICE_CODE
  if (!std::is_constant_evaluated()) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
  }
#endif
  return half_bits_to_float_integer(h);
}

/// Without branches, so that loops storing bfloat16 vectorize: adding 0x7fff
/// plus the kept part's lowest bit carries into it exactly when the dropped
/// half is above halfway, or at halfway with the kept part odd (ties to
/// even); a NaN keeps its sign and payload's top bits and is made quiet.
FUSEDSL_HOST_DEVICE constexpr std::uint16_t float_to_bfloat16_bits_integer(float f) {
  const std::uint32_t x = float_bits(f);
  const std::uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const std::uint32_t nan_mask = 0u - static_cast<std::uint32_t>((x & 0x7fffffffu) > 0x7f800000u);
  return static_cast<std::uint16_t>((rounded & ~nan_mask) | (((x >> 16) | 0x40u) & nan_mask));
}

/// `f` rounded to bfloat16: on devices of compute capability 8.0 and
/// later one instruction, a NaN made the same quiet NaN as by the integer code.
FUSEDSL_HOST_DEVICE constexpr std::uint16_t float_to_bfloat16_bits(float f) {
#if FUSEDSL_DEVICE_CODE && __CUDA_ARCH__ >= 800
  if (!std::is_constant_evaluated()) {
    std::uint16_t b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return f != f ? static_cast<std::uint16_t>((float_bits(f) >> 16) | 0x40u) : b;
  }
#endif
  return float_to_bfloat16_bits_integer(f);
}

FUSEDSL_HOST_DEVICE constexpr float bfloat16_bits_to_float(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

/// `v` rounded to float toward zero, with the lowest bit set when that dropped
/// anything ("round to odd"). Rounding the result once more, to half or
/// bfloat16 (13 or 16 fewer significand bits), gives exactly `v` rounded to
/// nearest even. Rounding `v` to the nearest float first instead can land on a
/// halfway point between two 16-bit values that `v` was not on, and then round
/// the wrong way (double rounding).
template <class T>
FUSEDSL_HOST_DEVICE constexpr float round_to_odd_float(T v) {
  if constexpr (std::integral<T>) {
    // The magnitude as 64 bits, cut to its top 24 bits (exact in float) with the cut-off bits made sticky.
    bool negative = false;
    auto magnitude = static_cast<std::uint64_t>(v);
    if constexpr (std::is_signed_v<T>) {
      negative = v < 0;
      if (negative) magnitude = 0u - magnitude;  // modular negation: also right for the most negative value
    }
    std::uint32_t shift = 0;
    bool sticky = false;
    while (magnitude >= (std::uint64_t{1} << 24)) {
      sticky = sticky || (magnitude & 1u);
      magnitude >>= 1;
      ++shift;
    }
    if (sticky) magnitude |= 1u;
    const float scaled = static_cast<float>(magnitude) * bits_float((127u + shift) << 23);  // times 2^shift, exact
    return negative ? -scaled : scaled;
  } else {
    if (v != v || v - v != 0) return static_cast<float>(v);  // NaN or infinite (inf - inf is NaN): converts exactly
    const T magnitude = v < 0 ? -v : v;
    const float float_max = bits_float(0x7f7fffffu);
    // Beyond every finite float: toward zero is float_max, which is odd already.
    // (Converting such a value to float would be undefined behaviour, which constexpr rejects.)
    if (magnitude > static_cast<T>(float_max)) return v < 0 ? -float_max : float_max;
    const float nearest = static_cast<float>(v);
    if (static_cast<T>(nearest) == v) return nearest;
    std::uint32_t bits = float_bits(nearest);
    if (static_cast<T>(nearest < 0 ? -nearest : nearest) > magnitude) --bits;  // rounded away from zero: step back
    return bits_float(bits | 1u);
  }
}

/// The shared shape of `half` and `bfloat16`: 16 bits of storage, float in and out.
template <std::uint16_t (*ToBits)(float), float (*FromBits)(std::uint16_t)>
struct float16_storage {
  /// No default member initializer: trivially default-constructible, as float is, so
  /// that a kernel's local array of them is not zero-filled on every chunk.
  /// `bfloat16{}` is still zero.
  std::uint16_t bits;

  constexpr float16_storage() = default;
  /// From float, rounding to nearest even.
  FUSEDSL_HOST_DEVICE constexpr float16_storage(float f) : bits(ToBits(f)) {}
  /// From any other arithmetic type, rounding to nearest even once (not first
  /// to float and then again). Implicit, like the float constructor: were it
  /// explicit, `half h = 0.1;` would still compile, through float, rounding twice.
  template <class T>
  requires(std::integral<T> || (std::floating_point<T> && !std::same_as<T, float>)) FUSEDSL_HOST_DEVICE
      constexpr float16_storage(T v)
      : bits(ToBits(round_to_odd_float(v))) {}
  /// Exact widening to float; all arithmetic goes through it.
  FUSEDSL_HOST_DEVICE constexpr operator float() const { return FromBits(bits); }

  /// Builds a value from its raw bit pattern.
  FUSEDSL_HOST_DEVICE static constexpr float16_storage from_bits(std::uint16_t b) {
    float16_storage r;
    r.bits = b;
    return r;
  }
};

}  // namespace detail

/// IEEE 754 binary16: 1 sign, 5 exponent, 10 mantissa bits.
using half = detail::float16_storage<detail::float_to_half_bits, detail::half_bits_to_float>;
/// Brain float: the upper 16 bits of a float (8 exponent, 7 mantissa bits).
using bfloat16 = detail::float16_storage<detail::float_to_bfloat16_bits, detail::bfloat16_bits_to_float>;

}  // namespace fusedsl
