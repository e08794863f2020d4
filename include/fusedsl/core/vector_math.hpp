/// @file vector_math.hpp
/// Transcendental functions for float and double that a compiler can
/// auto-vectorize without -ffast-math: straight-line code, selects instead of
/// branches (`c ? a : b` on values already computed), integer work only on
/// the bits of the same lane (shifts, adds, masks), no tables, no calls.
/// A plain `for` loop over `exp(a[i]) * b[i] + c[i]` compiled with g++ -O3
/// vectorizes with SSE2 already (4 floats), and with AVX2 / AVX-512 under
/// -march=native (bench/math, bench/RESULTS.md "CPU math functions").
///
/// Methods: Cody-Waite range reduction (the constants split so that the
/// products with the reduction integer are exact, with or without FMA
/// contraction) and minimax polynomials fitted by bench/math/fit_coefficients.py
/// (a Remez exchange in 40-digit mpmath on the relative error of the final
/// result, coefficients rounded one at a time with the rest refitted).
/// The code is correct whether or not the compiler contracts a*b+c into FMA
/// (g++ does in GNU mode with -march=native): no step relies on the rounding
/// of a product, and splits of a value into high and low parts are done by
/// masking bits. Where the target has FMA (FUSEDSL_VM_FMA), float gelu_erf
/// uses it explicitly (mul_add).
///
/// Accuracy (max error in ulps of the result against the function in long
/// double, asserted by tests/backend/vector_math.cpp over the whole range;
/// docs/math.md has the measured values): float: every function <= 1 ulp
/// but exp (<= 1.5), erf (<= 2), sigmoid (<= 2.5) and gelu_erf (<= 6 with
/// FMA, 7.5 without: traded for speed); sqrt and rsqrt
/// correctly rounded (sqrt bit for bit std::sqrt). double: exp, log, log1p
/// <= 1; erf <= 1.5; sin, cos <= 2; expm1, sigmoid <= 2.5; tanh, silu,
/// gelu_tanh <= 3; gelu_erf <= 6. sin/cos for
/// |x| < 2^27 pi/2 ~ 2.1e8; beyond that without stated accuracy, 0 past 2^50.
/// Special values as std:: (NaN in -> NaN out, +-Inf, overflow to Inf,
/// gradual underflow, log(0) = -Inf, log(<0) = NaN, signed zeros of expm1,
/// log1p, tanh, erf, sin kept).
///
/// Targets: float vectorizes with the x86-64 baseline (SSE2); double needs a
/// 64-bit integer compare for its lane masks (SSE4.2, AVX2, AVX-512):
/// see double_vectorizes.
///
/// On the device the CUDA math library is better: math.hpp calls these on
/// the host only. They are FUSEDSL_HOST_DEVICE so that they compile with
/// nvcc and may be used in device code where bit-identical results with the
/// host matter.
#pragma once
#include <cstdint>      // std::uint32_t, std::uint64_t
#include <type_traits>  // std::make_signed_t

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE, FUSEDSL_VM_FMA

/// Host-device and always inlined: a call that is not inlined stops the
/// vectorization of the loop that makes it.
#define FUSEDSL_VM_INLINE FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE

namespace fusedsl::vector_math {

/// Whether g++ vectorizes the double functions for the target being
/// compiled for: on x86-64 that needs SSE4.2 (a 64-bit integer compare, to
/// turn a condition into a mask of the lane), which -march=x86-64-v2 and
/// every -march=native of the last decade have and the x86-64 baseline has
/// not. Without it math.hpp keeps std:: for double, which is faster as
/// scalar code than these. float vectorizes with the baseline (SSE2).
inline constexpr bool double_vectorizes = FUSEDSL_DOUBLE_VECTORIZES;

namespace detail {

/// a b + c, rounded once where the target has a fused multiply-add
/// (FUSEDSL_VM_FMA, core/config.hpp), twice otherwise: for steps whose accuracy should not
/// depend on whether the compiler contracts (g++ does not below -O2). T: float or double.
template <class T>
FUSEDSL_VM_INLINE T mul_add(T a, T b, T c) {
#if FUSEDSL_DEVICE_CODE
  if constexpr (sizeof(T) == 4) return __fmaf_rn(a, b, c);
  else return __fma_rn(a, b, c);
#elif FUSEDSL_VM_FMA
  if constexpr (sizeof(T) == 4) return __builtin_fmaf(a, b, c);
  else return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

template <class T>
struct fp;

/// float: bit layout and the reduction constants.
template <>
struct fp<float> {
  using uint = std::uint32_t;
  static constexpr int mant = 23;  // explicit mantissa bits
  static constexpr uint bias = 127;
  static constexpr uint sign_mask = 0x80000000u;
  static constexpr float shifter = 0x1.8p23f;  // x + shifter - shifter rounds x to an integer (|x| < 2^22)
  static constexpr float exp_shifter = shifter + float(bias);  // x + exp_shifter: the low bits hold round(x) + bias
  static constexpr int exp_c = 80;                             // exp_scale's m = p 2^c, |c| <= exp_c
  static constexpr float two_mant = 0x1p23f;
  // ln2 = ln2_hi + ln2_lo, ln2_hi with 13 significant bits: n * ln2_hi exact for |n| < 2^11.
  static constexpr float log2e = 0x1.715476p+0f;
  static constexpr float ln2_hi = 0x1.62ep-1f;
  static constexpr float ln2_lo = 0x1.0bfbe8p-15f;
  static constexpr float ln2 = 0x1.62e430p-1f;
  static constexpr float exp_lo = -110.0f;             // exp(x) rounds to 0 below -103.97: clamp keeps n in range
  static constexpr float exp_hi = 100.0f;              // exp(x) overflows above 88.72
  static constexpr float expm1_lo = -30.0f;            // expm1 = -1 below -17.33
  static constexpr float expm1_hi = 89.0f;             // n <= 128: 2^(n-1) stays normal
  static constexpr float tiny = 0x1p-26f;              // |x| below: expm1(x) and log1p(x) round to x
  static constexpr float tanh_hi = 10.0f;              // tanh = +-1 in float above 9.01
  static constexpr float erf_hi = 4.0f;                // erf = +-1 in float above 3.92
  static constexpr float gelu_lo = -14.5f;             // gelu(x) rounds to -0 below -14.3
  static constexpr float erfc_hi = 10.25f;             // erfc rounds to 0 above 10.06 (gelu_lo / -sqrt 2)
  static constexpr float exp2_lo = -160.0f;            // 2^x rounds to 0 below -150
  static constexpr float exp2_hi = 130.0f;             // 2^x overflows from 128
  static constexpr int subnormal_shift = 25;           // log scales subnormal inputs by 2^25
  static constexpr uint sqrt_half_bits = 0x3f3504f3u;  // sqrt(1/2)
  static constexpr uint split_mask = 0xfffff000u;      // keeps 12 significant bits: a square of it is exact

  // e^r = 1 + r + r^2 Q(r), |r| <= ln2/2: weighted error 2^-28.2. By Estrin's
  // scheme, three dependent steps instead of Horner's four (the caller's r^2
  // is the same product), which makes exp faster.
  FUSEDSL_VM_INLINE static float exp_q(float r) {
    const float r2 = r * r;
    return mul_add(mul_add(0x1.6ab868p-10f, r2, mul_add(0x1.123d6cp-7f, r, 0x1.55585ap-5f)), r2,
                   mul_add(0x1.55548cp-3f, r, 0x1.fffffcp-2f));
  }
  // e^r - 1 = r + r^2 Q(r) with relative error 2^-28.2 of e^r - 1
  FUSEDSL_VM_INLINE static float expm1_q(float r) {
    return 0x1p-1f + r * (0x1.55552cp-3f +
                          r * (0x1.555502p-5f + r * (0x1.1155a8p-7f + r * (0x1.6d2e4ap-10f + r * 0x1.3b791ep-13f))));
  }
  // log(1+f) = f - f^2/2 + s (f^2/2 + z P(z)), s = f/(2+f), z = s^2 <= 0.02944: 2^-35.2
  FUSEDSL_VM_INLINE static float log_p(float z) {
    return 0x1.555554p-1f + z * (0x1.999c26p-2f + z * (0x1.23d3ep-2f + z * 0x1.f13b22p-3f));
  }
  // erf(x) = x + x E(x^2), |x| <= 0.9: 2^-30.1
  FUSEDSL_VM_INLINE static float erf_e(float v) {
    return 0x1.06eba8p-3f +
           v * (-0x1.81274p-2f +
                v * (0x1.ce2d6p-4f +
                     v * (-0x1.b80062p-6f + v * (0x1.543f2ap-8f + v * (-0x1.a583bcp-11f + v * 0x1.4d2864p-14f)))));
  }
  // erfc(x) = exp(-x^2) t G(t - 0.6), t = 3/(3+x), 0 <= x <= 10.1: 2^-28.7, with
  // G = g0 + u (g1 + u G2(u)) fitted with g0, g1 doubles; erf, which needs erfc
  // only to 2^-21 of itself, rounds them to float.
  static constexpr float erfc_tc_hi = 0.6f;
  static constexpr double erfc_g0 = 0x1.b3e012d77098dp-2, erfc_g1 = 0x1.8c364b60c45c2p-1;
  FUSEDSL_VM_INLINE static float erfc_g2(float u) {
    return 0x1.138e2ep+0f +
           u * (0x1.1c4bdp+0f +
                u * (0x1.8b35ap-1f +
                     u * (0x1.ee6294p-3f +
                          u * (-0x1.0026f2p-3f + u * (-0x1.28222p-3f + u * (0x1.21af08p-7f + u * 0x1.cbb03p-5f))))));
  }
  FUSEDSL_VM_INLINE static float erfc_g(float u) { return float(erfc_g0) + u * (float(erfc_g1) + u * erfc_g2(u)); }
  // erfc(a/sqrt 2) e^(a^2/2) = erfcx_n(a) / erfcx_d(a), 0 <= a <= 14.5 (the
  // scaled erfcx of a/sqrt 2; gelu_erf in float, erfc in double): a rational
  // fitted for its relative error, 2^-26.3 with these rounded coefficients;
  // all are positive, so that neither polynomial cancels. Estrin's scheme:
  // fewer successive roundings than Horner's (a^4 p4 is the largest term at
  // a = 14.5), at the same speed; mul_add, so that the error does not depend
  // on whether the compiler contracts.
  template <class V>
  FUSEDSL_VM_INLINE static V erfcx_n(V a, V a2) {
    return mul_add(a2, mul_add(a2, V(0x1.0da5eap-7f), mul_add(a, V(0x1.4cc59ap-4f), V(0x1.77327ap-2f))),
                   mul_add(a, V(0x1.c0c51ep-1f), V(0x1p+0f)));
  }
  template <class V>
  FUSEDSL_VM_INLINE static V erfcx_d(V a, V a2) {
    return mul_add(a2,
                   mul_add(a2, mul_add(a, V(0x1.51f32ap-7f), V(0x1.a11818p-4f)),
                           mul_add(a, V(0x1.e0a5cp-2f), V(0x1.33ce5ep+0f))),
                   mul_add(a, V(0x1.aca4cp+0f), V(0x1p+0f)));
  }
  // atan(u) = u + u z P(z), z = u^2, |u| <= 0.4143 (tan(pi/8) and a margin):
  // 2^-35.3 relative, evaluated in double (atan2 of floats computes in double).
  FUSEDSL_VM_INLINE static double atan_p(double z) {
    return -0x1.555554c5ec870p-2 +
           z * (0x1.99991881abbc5p-3 +
                z * (-0x1.247ed5d697f0fp-3 +
                     z * (0x1.c4637a035c777p-4 + z * (-0x1.5b2cf01bfa647p-4 + z * 0x1.84937f1f4d314p-5))));
  }
  // log2 and log10 (log_base): k log_B(2) + log(1 + f) / ln(B), with the
  // constants split so that k k_hi (|k| < 2^8) and hi inv_ln_hi (hi with 12
  // significant bits) are exact.
  struct log2_constants {
    static constexpr float k_hi = 1.0f, k_lo = 0.0f;
    static constexpr float inv_ln_hi = 0x1.716p+0f, inv_ln_lo = -0x1.7135a8p-13f;
  };
  struct log10_constants {
    static constexpr float k_hi = 0x1.3442p-2f, k_lo = -0x1.95ec1p-19f;
    static constexpr float inv_ln_hi = 0x1.bccp-2f, inv_ln_lo = -0x1.09d5b2p-15f;
  };
  // k W(s), e^(s/2) = 1 + s W(s), |s| <= 0.75: 2^-27.4 (relative to e^(s/2));
  // k a power of two (constant), folded into the coefficients.
  FUSEDSL_VM_INLINE static float exp_half_w(float s, float k) {
    return k * 0x1p-1f + s * (k * 0x1.fffffap-4f +
                              s * (k * 0x1.55544ep-6f +
                                   s * (k * 0x1.5559ccp-9f + s * (k * 0x1.1269fap-12f + s * (k * 0x1.6a061ep-16f)))));
  }
};

/// double: bit layout and the reduction constants.
template <>
struct fp<double> {
  using uint = std::uint64_t;
  static constexpr int mant = 52;
  static constexpr uint bias = 1023;
  static constexpr uint sign_mask = 0x8000000000000000ull;
  static constexpr double shifter = 0x1.8p52;
  static constexpr double exp_shifter = shifter + double(bias);
  static constexpr int exp_c = 520;
  static constexpr double two_mant = 0x1p52;
  // ln2_hi with 32 significant bits: n * ln2_hi exact for |n| < 2^21.
  static constexpr double log2e = 0x1.71547652b82fep+0;
  static constexpr double ln2_hi = 0x1.62e42feep-1;
  static constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
  static constexpr double ln2 = 0x1.62e42fefa39efp-1;
  static constexpr double exp_lo = -760.0;   // exp(x) rounds to 0 below -745.13
  static constexpr double exp_hi = 720.0;    // overflow above 709.78
  static constexpr double expm1_lo = -50.0;  // expm1 = -1 below -37.43
  static constexpr double expm1_hi = 710.0;  // n <= 1024
  static constexpr double tiny = 0x1p-55;
  static constexpr double tanh_hi = 20.0;  // tanh = +-1 above 19.06
  static constexpr double erf_hi = 6.0;    // erf = +-1 above 5.93
  static constexpr double erfc_hi = 27.3;
  static constexpr double gelu_lo = -40.0;    // gelu rounds to -0 below -38.6
  static constexpr double exp2_lo = -1100.0;  // 2^x rounds to 0 below -1075
  static constexpr double exp2_hi = 1030.0;   // 2^x overflows from 1024
  static constexpr int subnormal_shift = 54;
  static constexpr uint sqrt_half_bits = 0x3fe6a09e667f3bcdull;
  static constexpr uint split_mask = 0xfffffffff8000000ull;  // 26 significant bits

  FUSEDSL_VM_INLINE static double exp_q(double r) {
    return 0x1.000000000000ap-1 +
           r * (0x1.5555555555501p-3 +
                r * (0x1.55555555505fap-5 +
                     r * (0x1.111111112561fp-7 +
                          r * (0x1.6c16c184b99e1p-10 +
                               r * (0x1.a01a013a0af94p-13 +
                                    r * (0x1.a019987e296c3p-16 +
                                         r * (0x1.71defbe4ceceap-19 +
                                              r * (0x1.28aeeae149d09p-22 + r * 0x1.adcad73e5bed2p-26))))))));
  }
  FUSEDSL_VM_INLINE static double expm1_q(double r) {
    return 0x1.0000000000005p-1 +
           r * (0x1.55555555553e0p-3 +
                r * (0x1.5555555551c5ap-5 +
                     r * (0x1.11111111880bdp-7 +
                          r * (0x1.6c16c180d31c8p-10 +
                               r * (0x1.a019feb12566dp-13 +
                                    r * (0x1.a019a1256750bp-16 +
                                         r * (0x1.71e57526c2e23p-19 +
                                              r * (0x1.28a83b389632fp-22 + r * 0x1.a27ccb646c2e6p-26))))))));
  }
  FUSEDSL_VM_INLINE static double log_p(double z) {
    return 0x1.5555555555592p-1 +
           z * (0x1.999999997ff04p-2 +
                z * (0x1.24924941e33bap-2 +
                     z * (0x1.c71c521254318p-3 +
                          z * (0x1.74663d68d101fp-3 + z * (0x1.39a1dab3ebfa3p-3 + z * 0x1.2f0456d4d19c4p-3)))));
  }
  FUSEDSL_VM_INLINE static double erf_e(double v) {
    return 0x1.06eba8214db67p-3 +
           v * (-0x1.812746b0378fbp-2 +
                v * (0x1.ce2f21a037711p-4 +
                     v * (-0x1.b82ce30f27a0ep-6 +
                          v * (0x1.565bcc89824f0p-8 +
                               v * (-0x1.c02d9c1db3501p-11 +
                                    v * (0x1.f9a077a5f861ap-14 +
                                         v * (-0x1.f4a082b511a78p-17 +
                                              v * (0x1.b78fc70a2392ep-20 +
                                                   v * (-0x1.4dbf68dea2cbap-23 + v * 0x1.602c39071ce94p-27)))))))));
  }
  // atan(u) = u + u z P(z), z = u^2, |u| <= 0.4143: 2^-57.4 relative.
  FUSEDSL_VM_INLINE static double atan_p(double z) {
    return -0x1.555555555553dp-2 +
           z * (0x1.9999999995793p-3 +
                z * (-0x1.24924922a87dcp-3 +
                     z * (0x1.c71c70e441d06p-4 +
                          z * (-0x1.745cf8aad3a80p-4 +
                               z * (0x1.3b1115cbe02c3p-4 +
                                    z * (-0x1.10eb93ec2624cp-4 +
                                         z * (0x1.df0d4b542b2b0p-5 +
                                              z * (-0x1.9cca00098bb1fp-5 +
                                                   z * (0x1.37c0109e44c1cp-5 + z * -0x1.253c516387768p-6)))))))));
  }
  // log_base's constants (see fp<float>): |k| < 2^11, hi with 26 significant bits.
  struct log2_constants {
    static constexpr double k_hi = 1.0, k_lo = 0.0;
    static constexpr double inv_ln_hi = 0x1.7154764p+0, inv_ln_lo = 0x1.2b82fe1777d10p-28;
  };
  struct log10_constants {
    static constexpr double k_hi = 0x1.34413509f78p-2, k_lo = 0x1.fef311f12b358p-46;
    static constexpr double inv_ln_hi = 0x1.bcb7b14p-2, inv_ln_lo = 0x1.26e50e32a6ab7p-30;
  };
  // erfc(x) = exp(-x^2) t G(t - 0.48), 0.45 <= x <= 27.3: 2^-53.6
  static constexpr double erfc_tc = 0.48;
  FUSEDSL_VM_INLINE static double erfc_g(double u) {
    return 0x1.62d9473dd9868p-2 +
           u * (0x1.1de9c3fdde0afp-1 +
                u * (0x1.7a44701e401c5p-1 +
                     u * (0x1.8e5e2c721a979p-1 +
                          u * (0x1.37ad94b127b44p-1 +
                               u * (0x1.271cb40b9cac2p-2 +
                                    u * (-0x1.0fd769ed50d2cp-7 +
                                         u * (-0x1.f0f08afb7fc32p-4 +
                                              u * (-0x1.bf53c0c902facp-5 +
                                                   u * (0x1.436f9a3ae0d35p-5 +
                                                        u * (0x1.4cc5dfa03e9c3p-5 +
                                                             u * (-0x1.e20196c848239p-7 +
                                                                  u * (-0x1.b40656291b35ep-6 +
                                                                       u * (0x1.2e5b9a851a26p-7 +
                                                                            u * (0x1.1f2bc7ecc587bp-6 +
                                                                                 u * (-0x1.559081ea28ca9p-6 +
                                                                                      u * (-0x1.1975dcce96da8p-7 +
                                                                                           u * (0x1.20c81ec279882p-3 +
                                                                                                u * (-0x1.cb03621980cd2p-7 +
                                                                                                     u * (-0x1.c922f6fcbc7c8p-1 +
                                                                                                          u * (0x1.3e428e1406562p-4 +
                                                                                                               u * (0x1.e2c2c7dff32d9p+1 +
                                                                                                                    u * (-0x1.59fb6dd9dea04p-3 +
                                                                                                                         u * (-0x1.288ee4e5cd819p+3 +
                                                                                                                              u * (0x1.2c45b68856842p-3 +
                                                                                                                                   u * (0x1.40cd8b47512dfp+3)))))))))))))))))))))))));
  }
};

template <class T>
using uint_t = typename fp<T>::uint;

template <class T>
FUSEDSL_VM_INLINE constexpr uint_t<T> bits(T x) {
  return __builtin_bit_cast(uint_t<T>, x);
}
template <class T>
FUSEDSL_VM_INLINE constexpr T from_bits(uint_t<T> u) {
  return __builtin_bit_cast(T, u);
}

template <class T>
FUSEDSL_VM_INLINE T abs(T x) {
  return from_bits<T>(bits(x) & ~fp<T>::sign_mask);
}
/// |m| with the sign of s (m >= 0).
template <class T>
FUSEDSL_VM_INLINE T with_sign_of(T m, T s) {
  return from_bits<T>(bits(m) | (bits(s) & fp<T>::sign_mask));
}
/// c ? a : b as a blend of bits, with a and b both computed. g++ turns a
/// `?:` into a branch, then may sink the computation of one arm into it or
/// duplicate what follows for a constant arm; with -ftrapping-math (the
/// default) it may then not execute a floating-point operation that the
/// source executes only conditionally, and the loop does not vectorize.
/// Bit operations on a mask made from the condition have no such arms.
template <class T>
FUSEDSL_VM_INLINE constexpr T select(bool c, T a, T b) {
  using U = uint_t<T>;
  const U m = U(0) - static_cast<U>(c);  // all ones where c
  return from_bits<T>((bits(a) & m) | (bits(b) & ~m));
}
/// Clamps keep NaN (every comparison with NaN is false).
template <class T>
FUSEDSL_VM_INLINE T clamp(T x, T lo, T hi) {
  return select(x > hi, hi, select(x < lo, lo, x));
}
// From bits rather than std::numeric_limits, whose members nvcc treats as host-only.
template <class T>
FUSEDSL_VM_INLINE T inf() {
  return from_bits<T>(~fp<T>::sign_mask >> fp<T>::mant << fp<T>::mant);
}
template <class T>
FUSEDSL_VM_INLINE T nan() {
  return from_bits<T>((~fp<T>::sign_mask >> (fp<T>::mant - 1)) << (fp<T>::mant - 1));
}
template <class T>
FUSEDSL_VM_INLINE T min_normal() {
  return from_bits<T>(uint_t<T>(1) << fp<T>::mant);
}

/// 2^n from k = n + shifter, |n| < bias: the low bits of k hold n.
template <class T>
FUSEDSL_VM_INLINE T pow2(T k, uint_t<T> extra_bias = 0) {
  return from_bits<T>(static_cast<uint_t<T>>((bits(k) + fp<T>::bias + extra_bias) << fp<T>::mant));
}

/// e^(hi + lo) = m * s with m and s normal numbers, so that a caller may
/// multiply m by other factors before the one rounding into the subnormal
/// range. Needs exp_lo <= hi <= exp_hi and |lo| small against 1.
/// hi - n ln2_hi is exact (Sterbenz), whatever hi is: a caller can pass
/// -x^2 split as (-x_hi^2, -x_lo) and get e^(-x^2) to full accuracy.
template <class T>
struct exp_parts {
  T m, s;
};
/// p 2^n as exp_parts, from k = x + exp_shifter (n = round(x)): m = p 2^c
/// and s = 2^(n - c), with c = n clamped to +-exp_c, so that both are normal
/// for exp's range of n and m has room for the caller's factors. On the
/// bits of k, whose low bits hold n + bias: integer steps only (a min, a
/// max, shifts and adds) where splitting n in half takes four floating-point
/// steps (a faster exp).
template <class T>
FUSEDSL_VM_INLINE exp_parts<T> exp_scale(T p, T k) {
  using F = fp<T>;
  using U = uint_t<T>;
  using S = std::make_signed_t<U>;  // signed: SSE2 and AVX2 compare signed integers only
  constexpr S n_zero = static_cast<S>(bits(F::exp_shifter));
  constexpr S lo = n_zero - F::exp_c, hi = n_zero + F::exp_c;
  const S j = static_cast<S>(bits(k));
  const S j_lo = j < lo ? lo : j;  // integer max and min (NaN's bits: either end)
  const S c = j_lo > hi ? hi : j_lo;
  // Shifted by mant, the shifter's own bits leave the word: c << mant is (c + bias) << mant.
  const U m_scale = static_cast<U>(c) << F::mant;
  const U s_scale = (static_cast<U>(j) << F::mant) - m_scale + (U(F::bias) << F::mant);
  return {p * from_bits<T>(m_scale), from_bits<T>(s_scale)};
}
template <class T>
FUSEDSL_VM_INLINE exp_parts<T> exp_split(T hi, T lo) {
  using F = fp<T>;
  // n = round(hi / ln2): lo moves r past ln2/2 by |lo| at most. From hi
  // alone, and lo subtracted last, so that exp_split(x, 0) folds the zero
  // away (x - 0 is x, x + 0 is not for x = -0).
  const T k = hi * F::log2e + F::exp_shifter;
  const T n = k - F::exp_shifter;
  const T r = (hi - n * F::ln2_hi) - (n * F::ln2_lo - lo);
  return exp_scale(T(1) + (r + r * r * F::exp_q(r)), k);
}

/// e^x - 1 for expm1_lo <= x <= expm1_hi (NaN passes): 2 (2^(n-1) q + (2^(n-1) - 1/2)),
/// q = e^r - 1, so that no step overflows below the true overflow and the
/// sum is exact but for its last rounding.
template <class T>
FUSEDSL_VM_INLINE T expm1_core(T x) {
  using F = fp<T>;
  const T k = x * F::log2e + F::shifter;
  const T n = k - F::shifter;
  const T r = (x - n * F::ln2_hi) - n * F::ln2_lo;
  const T q = r + r * r * F::expm1_q(r);
  const T h = pow2(k, static_cast<uint_t<T>>(-1));  // 2^(n-1)
  return T(2) * (h * q + (h - T(0.5)));
}

/// float helpers that finish in double: the reduction and the polynomial in
/// float (vectorized 4/8/16 wide), then 1 + q, the scaling and the last few
/// operations in double, so that the float result is rounded about once.
/// e^(hi + lo), exp_lo <= hi + lo <= exp_hi, relative error ~2^-26.
FUSEDSL_VM_INLINE double exp_float_wide(float hi, float lo) {
  using F = fp<float>;
  const float k = (hi + lo) * F::log2e + F::shifter;
  const float n = k - F::shifter;
  const float r = (hi - n * F::ln2_hi) + (lo - n * F::ln2_lo);
  const double q = double(r) + double(r * r * F::exp_q(r));  // e^r - 1
  return (1.0 + q) * pow2(double(n) + fp<double>::shifter);  // |n| <= 160
}
/// e^x - 1 for expm1_lo <= x <= expm1_hi: 2^n q + (2^n - 1), q = e^r - 1.
FUSEDSL_VM_INLINE double expm1_float_wide(float x) {
  using F = fp<float>;
  const float k = x * F::log2e + F::shifter;
  const float n = k - F::shifter;
  const float r = (x - n * F::ln2_hi) - n * F::ln2_lo;
  const double q = double(r) + double(r * r * F::expm1_q(r));  // e^r - 1
  const double s = pow2(double(n) + fp<double>::shifter);
  return s * q + (s - 1.0);
}

/// x with the low half of its significand cleared: products of two such
/// halves (or of a half and the rest, x - half) are exact.
template <class T>
FUSEDSL_VM_INLINE T high_half(T x) {
  return from_bits<T>(bits(x) & fp<T>::split_mask);
}

/// x = 2^k (1 + f), sqrt(1/2) <= 1 + f < sqrt(2), for finite x > 0.
template <class T>
struct log_reduced {
  T k, f;
};
template <class T>
FUSEDSL_VM_INLINE log_reduced<T> log_reduce(T x) {
  using F = fp<T>;
  using U = uint_t<T>;
  // Subnormal x: scale into the normal range first.
  const bool sub = x < min_normal<T>();
  const T xs = select(sub, x * from_bits<T>(static_cast<U>(F::bias + F::subnormal_shift) << F::mant), x);
  const T kadj = select(sub, T(F::subnormal_shift), T(0));
  // Adding bits(1) - bits(sqrt(1/2)) carries into the exponent field exactly
  // when the mantissa is >= sqrt(2)/2 of the next power of two: the exponent
  // field is then k + bias, and the mantissa plus bits(sqrt(1/2)) gives 1 + f.
  constexpr U one = U(F::bias) << F::mant;
  constexpr U sqrt_half = F::sqrt_half_bits;
  const U u = bits(xs) + (one - sqrt_half);
  const U e = u >> F::mant;  // k + bias
  const T m = from_bits<T>((u & ((U(1) << F::mant) - 1)) + sqrt_half);
  const T k = (from_bits<T>(bits(F::two_mant) | e) - F::two_mant) - T(F::bias) - kadj;
  return {k, m - T(1)};
}
/// log(1 + f) = f - hfsq + s (hfsq + R): its parts, s = f / (2 + f).
template <class T>
struct log1p_parts {
  T s, hfsq, R;
};
template <class T>
FUSEDSL_VM_INLINE log1p_parts<T> log1p_split(T f) {
  const T s = f / (T(2) + f);
  const T z = s * s;
  return {s, T(0.5) * f * f, z * fp<T>::log_p(z)};
}

/// log(x) for finite x > 0 plus the correction c (added to the small part).
template <class T>
FUSEDSL_VM_INLINE T log_core(T x, T c) {
  using F = fp<T>;
  const log_reduced<T> r = log_reduce(x);
  const log1p_parts<T> p = log1p_split(r.f);
  return r.k * F::ln2_hi + (r.f - (p.hfsq - (p.s * (p.hfsq + p.R) + (r.k * F::ln2_lo + c))));
}

/// log_B(x) for finite x > 0 (C: fp<T>::log2_constants or log10_constants):
/// k log_B(2) + log(1 + f) / ln(B), where log(1 + f) = hi + lo with hi of
/// half width (f - hi is exact: hi is within a factor 2 of f), so that the
/// two large products are exact and the sum is rounded about once.
template <class T, class C>
FUSEDSL_VM_INLINE T log_base_core(T x) {
  const log_reduced<T> r = log_reduce(x);
  const log1p_parts<T> p = log1p_split(r.f);
  const T hi = high_half(r.f - p.hfsq);
  const T lo = ((r.f - hi) - p.hfsq) + p.s * (p.hfsq + p.R);
  const T y = r.k * C::k_hi;
  const T v_hi = hi * C::inv_ln_hi;
  const T v_lo = (r.k * C::k_lo + (lo + hi) * C::inv_ln_lo) + lo * C::inv_ln_hi;
  const T w = y + v_hi;  // |y| >= |v_hi| unless k = 0: (y - w) + v_hi is w's rounding error
  return (v_lo + ((y - w) + v_hi)) + w;
}

/// The results of log, log2 and log10 for x = +-0, x < 0, +Inf and NaN; y elsewhere.
template <class T>
FUSEDSL_VM_INLINE T log_special_values(T x, T y) {
  y = select(x == T(0), -inf<T>(), y);
  y = select(x < T(0), nan<T>(), y);
  y = select(x == inf<T>(), x, y);
  return select(x != x, x, y);
}

/// erfc(z) = m * s for 0.45 <= z <= erfc_hi, where z^2 = zz_hi + zz_lo
/// exactly enough (zz_hi a square of a high half): e^(-z^2) t G(t),
/// t = 3/(3+z). t is computed to about twice the working precision
/// (t = th + tl), since the slope of t G(t) would amplify its rounding about
/// 2.4 times near z = 1.
template <class T>
FUSEDSL_VM_INLINE exp_parts<T> erfc_split(T z, T zz_hi, T zz_lo) {
  using F = fp<T>;
  const T s = T(3) + z;
  const T sb = s - T(3);
  const T s_lo = (T(3) - (s - sb)) + (z - sb);  // 3 + z = s + s_lo exactly (two-sum)
  const T th = T(3) / s;
  const T th_h = high_half(th), th_l = th - th_h, s_h = high_half(s), s_l = s - s_h;
  // r = 3 - th s: every partial product is exact, 3 - th_h s_h exactly (Sterbenz).
  const T r = (((T(3) - th_h * s_h) - th_h * s_l) - th_l * s_h) - th_l * s_l;
  const T tl = (r - th * s_lo) * (th * T(1.0 / 3.0));  // 3/(s + s_lo) - th, to first order
  const T G = F::erfc_g((th - F::erfc_tc) + tl);
  const exp_parts<T> e = exp_split(-zz_hi, -zz_lo);
  return {e.m * (th * G + tl * G), e.s};
}

/// num / (1 + t) for 0 <= t <= 1 (or NaN), with the rounding of 1 + t
/// corrected: 1 + t = d + dl exactly, num / (d + dl) = y (1 - dl/d + ...).
template <class T>
FUSEDSL_VM_INLINE T div_one_plus(T num, T t) {
  const T d = T(1) + t;
  const T y = num / d;
  const T c = ((d - T(1)) - t) / d;
  return select(c == T(0), y, y + y * c);  // the select keeps -0, +-Inf
}

/// x^2 = hi + lo with hi exact (x masked to half its bits, squared) and lo
/// the small rest, correct to a relative 2^-(digits-1) of itself.
template <class T>
struct split_square {
  T hi, lo;
};
template <class T>
FUSEDSL_VM_INLINE split_square<T> square_split(T x) {
  const T xh = high_half(x);
  return {xh * xh, (x - xh) * (x + xh)};
}

/// -a^2/2 = n ln2 + s/2 for float a <= 14.5: k = n + shifter, and s to
/// float precision however large n is, since -a^2 - 2n ln2_hi is formed
/// exactly: by fused multiply-adds, or without them from a^2 = hi + lo
/// (square_split) as (-hi - 2n ln2_hi) + (-lo - 2n ln2_lo), exact but for
/// the last sum (Sterbenz). |s| <= 0.70.
struct reduced_square {
  float k, s;
};
FUSEDSL_VM_INLINE reduced_square reduce_half_square(float a) {
  using F = fp<float>;
#if FUSEDSL_VM_FMA
  const float k = (a * a) * (-0.5f * F::log2e) + F::shifter;
  const float n = k - F::shifter;
  // -2n ln2_hi from k, exactly (n ln2_hi has at most 21 bits): a step shorter than from n
  const float minus_2n_ln2_hi = mul_add(k, -2.0f * F::ln2_hi, F::shifter * (2.0f * F::ln2_hi));
  return {k, mul_add(n, -2.0f * F::ln2_lo, mul_add(-a, a, minus_2n_ln2_hi))};
#else
  const split_square<float> aa = square_split(a);
  const float k = aa.hi * (-0.5f * F::log2e) + F::shifter;
  const float n = k - F::shifter;
  return {k, (-aa.hi - n * (2.0f * F::ln2_hi)) + (-aa.lo - n * (2.0f * F::ln2_lo))};
#endif
}

/// sin (cos_offset 0) or cos (cos_offset 1) of x, reduced in double:
/// x = n pi/2 + r, |r| <= pi/4, with pi/2 in 26-bit pieces so that every
/// n * piece is exact for |n| < 2^27 (|x| < 2.1e8). Float inputs use three
/// pieces (105 bits of pi/2), double inputs five (157 bits).
template <bool Double>
FUSEDSL_VM_INLINE double sincos_core(double x, std::uint64_t cos_offset) {
  constexpr double two_over_pi = 0x1.45f306dc9c883p-1;
  const double k = x * two_over_pi + fp<double>::shifter;
  const double n = k - fp<double>::shifter;
  double r = (x - n * 0x1.921fb5p+0) - n * 0x1.110b46p-26;
  if constexpr (Double) {
    r = ((r - n * 0x1.1a6263p-54) - n * 0x1.8a2e03p-81) - n * 0x1.c1cd129024e09p-107;
  } else {
    r = r - n * 0x1.1a62633145c07p-54;
  }
  const double z = r * r;
  double sp, cp;
  if constexpr (Double) {
    sp = r + r * z *
                 (-0x1.5555555555549p-3 +
                  z * (0x1.111111110f8a6p-7 +
                       z * (-0x1.a01a019c1619dp-13 +
                            z * (0x1.71de357b1be0ap-19 + z * (-0x1.ae5e689ef4164p-26 + z * (0x1.5d93a46e5443p-33))))));
    // cos r = 1 - z/2 + z^2 C(z), with the rounding error of 1 - z/2 added back.
    const double hz = 0.5 * z;
    const double w = 1.0 - hz;
    const double c =
        z * z *
        (0x1.555555555554cp-5 +
         z * (-0x1.6c16c16c1521fp-10 +
              z * (0x1.a01a019cbf625p-16 +
                   z * (-0x1.27e4f812b5ff5p-22 + z * (0x1.1ee9f1521a82cp-29 + z * (-0x1.8fb130a8bbb77p-37))))));
    cp = w + (((1.0 - w) - hz) + c);
  } else {
    sp = r + r * z *
                 (-0x1.5555554cbac7p-3 +
                  z * (0x1.11110896ef46cp-7 + z * (-0x1.a00f9e2c5baf2p-13 + z * (0x1.6cd878b0d5c09p-19))));
    cp = (1.0 - 0.5 * z) +
         z * z *
             (0x1.5555554f4ee04p-5 +
              z * (-0x1.6c16b899751edp-10 + z * (0x1.a0112098facf1p-16 + z * (-0x1.242aedcecd116p-22))));
  }
  // Quadrant q = n + cos_offset (mod 4): odd q takes the cosine, q & 2 flips the sign.
  const std::uint64_t q = bits(k) + cos_offset;
  const std::uint64_t odd = std::uint64_t(0) - (q & 1);  // all ones when odd
  const std::uint64_t v = (bits(cp) & odd) | (bits(sp) & ~odd);
  return from_bits<double>(v ^ ((q & 2) << 62));
}

/// sqrt(x) of a finite float x >= 0 (or -0) as a double within 2^-52.5 of
/// it, so that its rounding to float is the correctly rounded sqrt: an exact
/// float square root is either a float or at least 2^-51 (relative) away from
/// the midpoint of two floats (x - m^2 != 0 is a multiple of 2^-48 for a
/// midpoint m in [1, 2)), so rounding twice gives the same float; checked bit
/// for bit against std::sqrt for all 2^32 inputs (bench/RESULTS.md). No sqrt
/// instruction: without -fno-math-errno g++ guards every sqrt with a call
/// that sets errno, and a loop with a call does not vectorize.
/// y ~ 1/sqrt(x) in float: a seed from the bits (3.5% error) and two Newton
/// steps (error < 2^-17; subnormals and 0 scaled by 2^32 first); then in
/// double, with x y exact (24 x 24 bits) and e = x y^2 - 1:
/// sqrt(x) = x y (1 + e)^(-1/2) = x y (1 - e/2 + 3e^2/8 - 5e^3/16), the
/// omitted terms below 2^-64, one rounding in the last sum.
FUSEDSL_VM_INLINE double sqrt_float_wide(float x) {
  const bool sub = x < min_normal<float>();
  const float xs = select(sub, x * 0x1p32f, x);
  float y = from_bits<float>(0x5f3759dfu - (bits(xs) >> 1));
  const float hx = 0.5f * xs;
  y = y * (1.5f - (hx * y) * y);  // (hx y) y: no overflow or underflow of y^2 at the ends of the range
  y = y * (1.5f - (hx * y) * y);
  const double yd = double(y) * double(select(sub, 0x1p16f, 1.0f));
  const double xy = double(x) * yd;
  const double e = xy * yd - 1.0;
  return xy + xy * (e * (-0.5 + e * (0.375 - 0.3125 * e)));
}

}  // namespace detail

/// e^x: <= 1.5 ulp (float), <= 1 ulp (double).
template <class T>
FUSEDSL_VM_INLINE T exp(T x) {
  const T xc = detail::clamp(x, detail::fp<T>::exp_lo, detail::fp<T>::exp_hi);
  const detail::exp_parts<T> e = detail::exp_split(xc, T(0));
  return e.m * e.s;
}

/// e^x - 1, relative accuracy near 0.
template <class T>
FUSEDSL_VM_INLINE T expm1(T x) {
  using F = detail::fp<T>;
  const T xc = detail::clamp(x, F::expm1_lo, F::expm1_hi);
  T y;
  if constexpr (sizeof(T) == 4) y = static_cast<T>(detail::expm1_float_wide(xc));  // overflows to Inf in the conversion
  else y = detail::expm1_core(xc);
  return detail::select(detail::abs(x) < F::tiny, x, y);  // +-0 and subnormals: exactly x
}

/// Natural logarithm: <= 1 ulp; log(+-0) = -Inf, log(x < 0) = NaN.
template <class T>
FUSEDSL_VM_INLINE T log(T x) {
  return detail::log_special_values(x, detail::log_core(x, T(0)));
}
/// Base-2 logarithm: <= 1 ulp, exact at powers of 2; special values as log.
template <class T>
FUSEDSL_VM_INLINE T log2(T x) {
  return detail::log_special_values(x, detail::log_base_core<T, typename detail::fp<T>::log2_constants>(x));
}
/// Base-10 logarithm: <= 1 ulp; special values as log.
template <class T>
FUSEDSL_VM_INLINE T log10(T x) {
  return detail::log_special_values(x, detail::log_base_core<T, typename detail::fp<T>::log10_constants>(x));
}

/// 2^x = 2^n e^r, n = round(x), r = (x - n) ln 2 (x - n is exact, |r| <= ln2/2);
/// exact for integer x, gradual underflow, overflow to Inf.
template <class T>
FUSEDSL_VM_INLINE T exp2(T x) {
  using F = detail::fp<T>;
  const T xc = detail::clamp(x, F::exp2_lo, F::exp2_hi);
  const T k = xc + F::exp_shifter;
  const T r = (xc - (k - F::exp_shifter)) * F::ln2;
  const detail::exp_parts<T> e = detail::exp_scale(T(1) + (r + r * r * F::exp_q(r)), k);
  return e.m * e.s;
}

/// log(1 + x), relative accuracy near 0: <= 1 ulp; log1p(-1) = -Inf, log1p(x < -1) = NaN.
template <class T>
FUSEDSL_VM_INLINE T log1p(T x) {
  using F = detail::fp<T>;
  const T u = T(1) + x;
  // c: the rounding error of 1 + x (u - 1 is exact for u >= 1/2, and
  // u = 1 + x exactly below), divided by u: log(1 + x) = log(u) + c / u.
  const T c = (x - (u - T(1))) / u;
  T y = detail::log_core(u, c);
  y = detail::select(detail::abs(x) < F::tiny, x, y);  // +-0 and subnormals: exactly x
  y = detail::select(x == T(-1), -detail::inf<T>(), y);
  y = detail::select(x < T(-1), detail::nan<T>(), y);
  y = detail::select(x == detail::inf<T>(), x, y);
  return detail::select(x != x, x, y);
}

/// Hyperbolic tangent: e/(e + 2) with e = expm1(2|x|), sign of x: <= 1 ulp (float), 3 (double).
template <class T>
FUSEDSL_VM_INLINE T tanh(T x) {
  using F = detail::fp<T>;
  const T ax = detail::abs(x);
  const T a2 = T(2) * detail::select(ax > F::tanh_hi, F::tanh_hi, ax);
  T y;
  if constexpr (sizeof(T) == 4) {
    const double e = detail::expm1_float_wide(a2);
    y = static_cast<T>(e / (e + 2.0));
  } else {
    const T e = detail::expm1_core(a2);
    y = e / (e + T(2));
  }
  return detail::with_sign_of(y, x);
}

/// 1/(1 + e^-x), without overflow: e^-|x| / (1 + e^-|x|) for x < 0.
template <class T>
FUSEDSL_VM_INLINE T sigmoid(T x) {
  using F = detail::fp<T>;
  const T a = -detail::abs(x);
  const T ac = detail::select(a < F::exp_lo, F::exp_lo, a);
  const detail::exp_parts<T> e = detail::exp_split(ac, T(0));
  const T t = e.m * e.s;  // e^-|x|
  const T num = detail::select(x >= T(0), T(1), t);
  // float: one division, the rounding of 1 + t left (<= 2.5 ulp, not 1): e^-|x| in
  // double, or a second division, cost sigmoid twice exp's time, which it stays near
  if constexpr (sizeof(T) == 4) return num / (T(1) + t);
  else return detail::div_one_plus(num, t);
}

/// x sigmoid(x) = x / (1 + e^-x); silu(-Inf) = NaN as for that formula.
template <class T>
FUSEDSL_VM_INLINE T silu(T x) {
  using F = detail::fp<T>;
  const T a = -detail::abs(x);
  const T ac = detail::select(a < F::exp_lo, F::exp_lo, a);
  // x e^x, one rounding into the subnormals; below exp_lo it underflows to -0.
  const T xn = detail::select(x < F::exp_lo, F::exp_lo, x);
  T y;
  if constexpr (sizeof(T) == 4) {
    const double t = detail::exp_float_wide(ac, 0.0f);  // e^-|x|
    const double inv = 1.0 / (1.0 + t);
    y = detail::select(x >= T(0), static_cast<T>(double(x) * inv), static_cast<T>(double(xn) * t * inv));
  } else {
    const detail::exp_parts<T> e = detail::exp_split(ac, T(0));
    y = detail::div_one_plus(detail::select(x >= T(0), x, (xn * e.m) * e.s), e.m * e.s);
  }
  return detail::select(x == -detail::inf<T>(), detail::nan<T>(), y);
}

/// Error function: x + x E(x^2) for |x| < 0.875, 1 - erfc(|x|) beyond, sign of x.
template <class T>
FUSEDSL_VM_INLINE T erf(T x) {
  using F = detail::fp<T>;
  const T ax = detail::abs(x);
  const T z = detail::select(ax > F::erf_hi, F::erf_hi, ax);
  const T small = ax + ax * F::erf_e(ax * ax);
  T big;
  if constexpr (sizeof(T) == 4) {
    // 1 - erfc with erfc <= 0.22: an error of erfc up to 2^-21 of itself
    // (2^-24 of the result) is enough, so all in float and simpler than
    // for gelu: t and z^2 rounded, e^(-z^2) of exp.
    const T t = T(3) / (T(3) + z);
    // (u = t - 0.6f is 2.4e-8 off the fit's centre: it measured better here
    // than the exact t - 0.6, 1.84 against 1.9 ulp.)
    big = T(1) - vector_math::exp(-(z * z)) * (t * F::erfc_g(t - F::erfc_tc_hi));
  } else {
    const detail::split_square<T> zz = detail::square_split(z);
    const detail::exp_parts<T> c = detail::erfc_split(z, zz.hi, zz.lo);
    big = T(1) - c.m * c.s;
  }
  return detail::with_sign_of(detail::select(ax < T(0.875), small, big), x);
}

/// Complementary error function 1 - erf(x), accurate relative to its value in
/// the tail (x >> 0) down to the subnormals. float: erfcx(z) e^(-z^2) in double,
/// z = |x|, with the rational of gelu_erf for erfcx and e^(-z^2) from z^2 taken
/// exactly; double: 1 - erf(x) for |x| < 0.45, erf's erfc beyond; x < 0: 2 - erfc(|x|).
template <class T>
FUSEDSL_VM_INLINE T erfc(T x) {
  using F = detail::fp<T>;
  const T ax = detail::abs(x);
  if constexpr (sizeof(T) == 4) {
    const float z = detail::select(ax > F::erfc_hi, F::erfc_hi, ax);
    const double a = double(z) * 1.4142135623730951;  // erfcx_n/d take z sqrt 2
    const double a2 = a * a;
    const double zz = double(z) * double(z);  // exact
    const float zz_hi = static_cast<float>(-zz);
    const float zz_lo = static_cast<float>(-zz - double(zz_hi));
    const double y = (F::erfcx_n(a, a2) / F::erfcx_d(a, a2)) * detail::exp_float_wide(zz_hi, zz_lo);
    return detail::select(x != x, x, detail::select(x >= 0.0f, static_cast<float>(y), static_cast<float>(2.0 - y)));
  } else {
    const T z = detail::select(ax > F::erfc_hi, F::erfc_hi, ax);
    const T small = T(1) - (x + x * F::erf_e(x * x));
    const detail::split_square<T> zz = detail::square_split(z);
    const detail::exp_parts<T> c = detail::erfc_split(z, zz.hi, zz.lo);
    const T tail = c.m * c.s;
    return detail::select(ax < T(0.45), small, detail::select(x >= T(0), tail, T(2) - tail));
  }
}

/// The angle of the point (x, y): atan2(y, x) in [-pi, pi], with C's special
/// values (signed zeros, infinities). With t = min(|x|, |y|) / max(|x|, |y|):
/// atan(t) = pi/4 + atan(u) for t > tan(pi/8), u = (t - 1) / (t + 1); then
/// pi/2 - a where |y| > |x| and pi - a where x < 0 (or -0), and the sign of y.
/// So the result is m pi/4 + s atan(u) with an integer 0 <= m <= 4 and s = +-1,
/// from flags of 0 and 1 (exact arithmetic, no branches), in double for both
/// types; float rounds once at the end.
template <class T>
FUSEDSL_VM_INLINE T atan2(T y, T x) {
  using F = detail::fp<T>;
  // pi/4 = pio4_hi + pio4_lo, pio4_hi with 50 significant bits: m pio4_hi is exact.
  constexpr double pio4_hi = 0x1.921fb54442d18p-1, pio4_lo = 0x1.1a62633145c07p-55;
  const T ax = detail::abs(x), ay = detail::abs(y);
  const bool swap = ay > ax;
  const T big = detail::select(swap, ay, ax), small = detail::select(swap, ax, ay);
  // 0/0, finite/Inf and Inf/Inf become 0/1, 0/1 and 1/1: atan2(+-0, +-0), atan2(y, +-Inf)
  // and atan2(+-Inf, +-Inf) follow (no Inf enters the arithmetic).
  const bool big_inf = big == detail::inf<T>();
  const double den = detail::select((big == T(0)) | big_inf, T(1), big);
  const double num = detail::select(big_inf, detail::select(small == big, T(1), T(0)), small);
  const double quarter = detail::select(num > 0.41421356 * den, T(1), T(0));
  const double s_swap = detail::select(swap, T(-1), T(1));
  const double s_neg = detail::select((detail::bits(x) & F::sign_mask) != 0, T(-1), T(1));
  // u = (num - den) / (num + den) rather than from t: one rounding less.
  const double u = (num - quarter * den) / (den + quarter * num);
  const double a = u + u * (u * u) * F::atan_p(u * u);
  const double m = (1.0 - s_neg) * 2.0 + s_neg * ((1.0 - s_swap) + s_swap * quarter);
  const double r = m * pio4_hi + ((s_neg * s_swap) * a + m * pio4_lo);
  return detail::select((x != x) | (y != y), x + y, detail::with_sign_of(static_cast<T>(r), y));
}

namespace detail {
/// float gelu_erf in float only (no double: 8 lanes with AVX2): with
/// a = min(|x|, 14.5), h = a/2 erfc(a/sqrt 2) (gelu for x < 0, x - gelu for
/// x >= 0) is the product of
///  - a 2^(n+64) (exact),
///  - erfc(a/sqrt 2) e^(a^2/2) = erfcx_n(a) / erfcx_d(a) (one division: with
///    the FMA reduction and the product below, the rational is much faster
///    than t = 1/(1 + a/sqrt 2) and a degree-12 polynomial of t;
///    bench/RESULTS.md),
///  - e^r 2^-65 = 1 + s W(s) with coefficients scaled by 2^-65, where
///    -a^2/2 = n ln2 + r, s = 2r, computed by reduce_half_square.
/// The last product is the one rounding into the subnormal range.
/// 5.63 ulp with FMA, 7.27 without (all 2^32 inputs; docs/math.md).
FUSEDSL_VM_INLINE float gelu_erf_float(float x) {
  using F = fp<float>;
  // min(|x|, 14.5) on the bits (one integer min); NaN becomes 14.5 here, the last product restores it.
  const std::uint32_t ax = bits(abs(x)), cap = bits(-F::gelu_lo);
  const float a = from_bits<float>(ax < cap ? ax : cap);
  const reduced_square r = reduce_half_square(a);
  const float e = r.s * F::exp_half_w(r.s, 0x1p-65f) + 0x1p-65f;  // e^(s/2) 2^-65
  const float a2 = a * a;
  const float h = ((a * pow2(r.k, 64u)) * (F::erfcx_n(a, a2) / F::erfcx_d(a, a2))) * e;
  // x - h for x >= 0, -0 - h = -h for x < 0, and NaN for -Inf (-Inf times 0) and NaN: a product
  // instead of selects between results (faster). -0 for x = -0.
  return x * select(x >= 0.0f, 1.0f, 0.0f) - h;
}
}  // namespace detail

/// gelu with the exact erf form, x/2 (1 + erf(x/sqrt(2))), computed as
/// x/2 erfc(-x/sqrt(2)) for x < 0 (no cancellation), with x^2/2 taken from
/// x exactly; gelu_erf(-Inf) = NaN as for the formula. float: in float only
/// (detail::gelu_erf_float); double: erf's polynomial near 0, erfc beyond.
template <class T>
FUSEDSL_VM_INLINE T gelu_erf(T x) {
  if constexpr (sizeof(T) == 4) {
    return detail::gelu_erf_float(x);
  } else {
    using F = detail::fp<T>;
    const T xc = detail::clamp(x, F::gelu_lo, -F::gelu_lo);
    const T az = detail::abs(xc) * T(0.70710678118654752440);
    const detail::split_square<T> xx = detail::square_split(xc);
    const T zc = detail::select(az > F::erfc_hi, F::erfc_hi, az);
    const bool small = az < T(0.5);
    const T half_x = T(0.5) * x;
    const T small_erf = az + az * F::erf_e(az * az);  // erf(|x|/sqrt 2)
    const detail::exp_parts<T> c = detail::erfc_split(zc, T(0.5) * xx.hi, T(0.5) * xx.lo);
    const T pos = half_x * detail::select(small, T(1) + small_erf, T(2) - c.m * c.s);
    const T neg = detail::select(small, half_x * (T(1) - small_erf), ((T(0.5) * xc) * c.m) * c.s);
    return detail::select(x == -detail::inf<T>(), detail::nan<T>(), detail::select(x >= T(0), pos, neg));
  }
}

/// gelu with the tanh approximation, x/2 (1 + tanh(v/2)) = x sigmoid(v),
/// v = 2 sqrt(2/pi) (x + 0.044715 x^3), the constants rounded to T. v is
/// computed to more than T's precision (float: in double; double: as a
/// double-double), since for x << 0 its rounding would be amplified |v| times.
template <class T>
FUSEDSL_VM_INLINE T gelu_tanh(T x) {
  using F = detail::fp<T>;
  constexpr T c = T(0.79788456080286535588);
  constexpr T a = T(0.044715);
  T hi, lo;
  if constexpr (sizeof(T) == 4) {
    const double xd = x;
    // -|v|: v has the sign of x; no double select (SSE2 has no 64-bit compares for the mask)
    const double v = -detail::abs(2.0 * double(c) * (xd + double(a) * xd * xd * xd));
    const T h = static_cast<T>(v);
    const T l = static_cast<T>(v - double(h));
    hi = detail::select(h < F::exp_lo, F::exp_lo, h);
    lo = detail::select(h < F::exp_lo, T(0), l);
  } else {
    // v = K x + (K a) x^3 to about 2^-100 relative, as hi + lo: every product
    // of the dominant terms is of halves of at most 27 bits (exact, with or
    // without FMA contraction), summed with a two-sum. K = 2c and
    // K a = Ka_hi + Ka_lo exactly (constants derived in 300-bit arithmetic,
    // then split in high and low halves).
    constexpr double Kh = 0x1.9884530000000p+0, Kl = 0x1.ea1b288000000p-27;  // K = 2c
    constexpr double Ah = 0x1.2444f28000000p-4, Al = 0x1.26c5a58000000p-31;  // Ka_hi
    constexpr double Ka_hi = 0x1.2444f2a4d8b4bp-4, Ka_lo = 0x1.8c95337d724e0p-62;
    static_assert(c == 0x1.9884533d43651p-1 && a == 0x1.6e4e26d4801f7p-5, "constants of gelu_tanh");
    const T xv = detail::clamp(x, T(-40), T(40));  // beyond, the result is x or -0 anyway
    const T xh = detail::high_half(xv), xl = xv - xh;
    const T s_hi = xh * xh, s_lo = xl * (xv + xh);  // x^2
    const T sh = detail::high_half(s_hi), sl = s_hi - sh;
    const T t0 = xh * sh;                                      // exact
    const T t1 = (xh * sl + xl * sh) + (xl * sl + xv * s_lo);  // x^3 = t0 + t1
    const T t0h = detail::high_half(t0), t0l = t0 - t0h;
    const T p1 = Ah * t0h, q1 = Kh * xh;  // the two largest terms, exact
    const T sum = p1 + q1, bb = sum - p1;
    const T err = (p1 - (sum - bb)) + (q1 - bb);  // two-sum
    const T rest = ((Ah * t0l + Al * t0h) + (Al * t0l + Ka_hi * t1 + Ka_lo * t0)) + ((Kh * xl + Kl * xh) + Kl * xl);
    const T v_hi = sum + (err + rest);
    const T v_lo = (sum - v_hi) + (err + rest);
    // -|v| (v has the sign of x), clamped to the range of exp_split
    const T nh = detail::select(xv >= T(0), -v_hi, v_hi), nl = detail::select(xv >= T(0), -v_lo, v_lo);
    hi = detail::select(nh < F::exp_lo, F::exp_lo, nh);
    lo = detail::select(nh < F::exp_lo, T(0), nl);
  }
  const T xn = detail::select(x < F::exp_lo, F::exp_lo, x);  // x e^v underflows below anyway
  T y;
  if constexpr (sizeof(T) == 4) {
    const double t = detail::exp_float_wide(hi, lo);  // e^-|v|
    const double inv = 1.0 / (1.0 + t);
    y = detail::select(x >= T(0), static_cast<T>(double(x) * inv), static_cast<T>(double(xn) * t * inv));
  } else {
    const detail::exp_parts<T> e = detail::exp_split(hi, lo);  // e^-|v|
    y = detail::div_one_plus(detail::select(x >= T(0), x, (xn * e.m) * e.s), e.m * e.s);
  }
  return detail::select(x == -detail::inf<T>(), detail::nan<T>(), y);
}

namespace detail {
/// Past 2.1e8 the reduction is inexact (the result stays within about 1),
/// past 2^50 meaningless: there the result is 0, and NaN for +-Inf. The
/// selects are in T (so that float needs no 64-bit masks).
template <class T>
FUSEDSL_VM_INLINE T sincos_finish(T x, T y) {
  y = select(abs(x) >= T(0x1p50), T(0), y);
  return select(abs(x) == inf<T>(), nan<T>(), y);
}
}  // namespace detail

/// Sine: <= 1 ulp (float; 0.5 measured), <= 2 ulp (double) for |x| < 2.1e8.
template <class T>
FUSEDSL_VM_INLINE T sin(T x) {
  const T y = static_cast<T>(detail::sincos_core<sizeof(T) == 8>(static_cast<double>(x), 0));
  return detail::sincos_finish(x, detail::select(x == T(0), x, y));  // sin(-0) = -0
}
/// Cosine: as sin.
template <class T>
FUSEDSL_VM_INLINE T cos(T x) {
  return detail::sincos_finish(x, static_cast<T>(detail::sincos_core<sizeof(T) == 8>(static_cast<double>(x), 1)));
}

namespace detail {
/// The special values of sqrt and rsqrt as x86's sqrtss gives them: x < 0
/// gives the default NaN (-NaN), a NaN its own payload, quieted (x + x);
/// at_inf is the result for +Inf. +-0 and the rest: y.
FUSEDSL_VM_INLINE float sqrt_special_values(float x, float y, float at_inf) {
  y = select(x == inf<float>(), at_inf, y);
  y = select(x < 0.0f, from_bits<float>(0xffc00000u), y);
  return select(x != x, x + x, y);
}
}  // namespace detail

/// Square root of a float, correctly rounded: bit for bit std::sqrt for
/// every input (NaN payloads, -0, +Inf, subnormals, x < 0 included).
/// Vectorizes with SSE2, unlike std::sqrt without -fno-math-errno (see
/// detail::sqrt_float_wide).
FUSEDSL_VM_INLINE float sqrt(float x) {
  return detail::sqrt_special_values(x, static_cast<float>(detail::sqrt_float_wide(x)), x);
}
/// 1 / sqrt(x) of a float, correctly rounded (rounded once, from the double
/// within 2^-52 of it: checked exactly for every input with 1/4 <= x < 4, the
/// top and bottom binades and the subnormals). PyTorch's CPU rsqrt, 1 / sqrt
/// in float, rounds twice (up to 1.49 ulp). rsqrt(+-0) = +-Inf, rsqrt(+Inf)
/// = +0; NaN and x < 0 as sqrt.
FUSEDSL_VM_INLINE float rsqrt(float x) {
  return detail::sqrt_special_values(x, static_cast<float>(1.0 / detail::sqrt_float_wide(x)), 0.0f);
}

}  // namespace fusedsl::vector_math

#undef FUSEDSL_VM_INLINE
