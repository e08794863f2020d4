/// @file simd_sqrt.hpp
/// float and double square roots for loops that g++ vectorizes, with the
/// sqrt instruction: `fusedsl_sqrtf` and `fusedsl_sqrt`, declared `simd`
/// (OpenMP's declare simd), and their vector variants, defined under the
/// names of the x86-64 vector function ABI (`_ZGV<isa>N<lanes>v_<name>`). A
/// vectorized loop then calls the variant of its ISA once per vector (float:
/// SSE2 4 lanes, AVX / AVX2 8, AVX-512 16; double: half as many), whose body
/// is one sqrtps or sqrtpd.
///
/// Why: without -fno-math-errno g++ guards every std::sqrt with a call that
/// sets errno, and a loop with such a call stays scalar. The branch-free
/// emulation that vectorizes (vector_math::sqrt, through double) takes a
/// large share of Adam's update with AVX2, where sqrtps takes a fraction of the
/// memory time (figures: bench/RESULTS.md); in double, one std::sqrt keeps a
/// whole loop scalar, with the vector math in it slower than glibc's. The
/// results are the instruction's, so bit for bit std::sqrt's (x < 0 gives
/// the default NaN, as sqrtss does; errno is never set).
///
/// g++ only (the `simd` attribute and the vector ABI names), on x86-64 and
/// outside nvcc; FUSEDSL_SIMD_SQRT (core/config.hpp) says whether it is there.
#pragma once

#include <fusedsl/core/config.hpp>  // FUSEDSL_SIMD_SQRT

#if FUSEDSL_SIMD_SQRT

extern "C" {
/// Square root of a float, correctly rounded (the sqrtss instruction). Declared
/// `simd`: vectorized loops call the vector variants defined below instead.
float fusedsl_sqrtf(float) __attribute__((const, nothrow, simd("notinbranch")));
/// Square root of a double, correctly rounded (sqrtsd); declared `simd` as fusedsl_sqrtf.
double fusedsl_sqrt(double) __attribute__((const, nothrow, simd("notinbranch")));
}

namespace fusedsl::simd_sqrt_detail {

/// Vectors of 4, 8 and 16 floats: the argument and result types of the
/// vector variants (the same registers as __m128, __m256 and __m512).
typedef float float4 __attribute__((vector_size(16)));
typedef float float8 __attribute__((vector_size(32)));
typedef float float16 __attribute__((vector_size(64)));
/// Vectors of 2, 4 and 8 doubles (__m128d, __m256d, __m512d).
typedef double double2 __attribute__((vector_size(16)));
typedef double double4 __attribute__((vector_size(32)));
typedef double double8 __attribute__((vector_size(64)));

// Each function is defined under its ABI name (the asm label) in every
// translation unit that includes this header (`used`: g++ emits it though
// no C++ code names it; `inline`: the linker keeps one copy).

/// fusedsl_sqrtf itself, for the loops and code that are not vectorized.
__attribute__((used)) inline float sqrt_scalar(float x) __asm__("fusedsl_sqrtf");
inline float sqrt_scalar(float x) { return __builtin_ia32_sqrtss(float4{x, 0, 0, 0})[0]; }

/// The SSE2 variant (ISA letter b, 4 lanes).
__attribute__((used)) inline float4 sqrt_sse2(float4 x) __asm__("_ZGVbN4v_fusedsl_sqrtf");
inline float4 sqrt_sse2(float4 x) { return __builtin_ia32_sqrtps(x); }

/// The AVX variant (c, 8 lanes).
__attribute__((used, target("avx"))) inline float8 sqrt_avx(float8 x) __asm__("_ZGVcN8v_fusedsl_sqrtf");
__attribute__((target("avx"))) inline float8 sqrt_avx(float8 x) { return __builtin_ia32_sqrtps256(x); }

/// The AVX2 variant (d, 8 lanes): what the kernels' x86-64-v3 clones call.
__attribute__((used, target("avx2"))) inline float8 sqrt_avx2(float8 x) __asm__("_ZGVdN8v_fusedsl_sqrtf");
__attribute__((target("avx2"))) inline float8 sqrt_avx2(float8 x) { return __builtin_ia32_sqrtps256(x); }

/// The AVX-512 variant (e, 16 lanes), for builds with -march of such a CPU.
__attribute__((used, target("avx512f"))) inline float16 sqrt_avx512(float16 x) __asm__("_ZGVeN16v_fusedsl_sqrtf");
__attribute__((target("avx512f"))) inline float16 sqrt_avx512(float16 x) {
  // The masked form with the input as pass-through: _mm512_sqrt_ps's
  // undefined pass-through trips g++ 12's -Wuninitialized.
  return __builtin_ia32_sqrtps512_mask(x, x, static_cast<unsigned short>(-1), 4);
}

/// fusedsl_sqrt and its variants, as those of fusedsl_sqrtf.
__attribute__((used)) inline double sqrt_scalar(double x) __asm__("fusedsl_sqrt");
inline double sqrt_scalar(double x) { return __builtin_ia32_sqrtsd(double2{x, 0})[0]; }
__attribute__((used)) inline double2 sqrt_sse2(double2 x) __asm__("_ZGVbN2v_fusedsl_sqrt");
inline double2 sqrt_sse2(double2 x) { return __builtin_ia32_sqrtpd(x); }
__attribute__((used, target("avx"))) inline double4 sqrt_avx(double4 x) __asm__("_ZGVcN4v_fusedsl_sqrt");
__attribute__((target("avx"))) inline double4 sqrt_avx(double4 x) { return __builtin_ia32_sqrtpd256(x); }
__attribute__((used, target("avx2"))) inline double4 sqrt_avx2(double4 x) __asm__("_ZGVdN4v_fusedsl_sqrt");
__attribute__((target("avx2"))) inline double4 sqrt_avx2(double4 x) { return __builtin_ia32_sqrtpd256(x); }
__attribute__((used, target("avx512f"))) inline double8 sqrt_avx512(double8 x) __asm__("_ZGVeN8v_fusedsl_sqrt");
__attribute__((target("avx512f"))) inline double8 sqrt_avx512(double8 x) {
  return __builtin_ia32_sqrtpd512_mask(x, x, static_cast<unsigned char>(-1), 4);
}

}  // namespace fusedsl::simd_sqrt_detail
#endif
