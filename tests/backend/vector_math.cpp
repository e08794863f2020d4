// fusedsl::vector_math (and math.hpp, which forwards float and double to it
// on the host) against the standard library computed in long double.
//
// Accuracy: the error in ulps of the result type, |y - ref| / ulp(ref), where
// ulp(ref) is the spacing of T at ref (2^-149 / 2^-1074 in the subnormal
// range) and an infinite y counts as 2^128 / 2^1024. Inputs: a sweep over the
// bit patterns of the whole range (float) or random bit patterns (double),
// uniform samples in each function's working range, and every value within a
// few thousand ulps of the special points (0, +-1, thresholds of overflow,
// underflow and of the internal branches). Special values bit-exactly.
#include <bit>         // std::bit_cast
#include <cmath>       // std::exp, ...
#include <cstdint>     // std::uint32_t, std::uint64_t
#include <cstdio>      // std::snprintf
#include <functional>  // std::function
#include <limits>      // std::numeric_limits
#include <random>      // std::mt19937_64
#include <string>      // std::string
#include <vector>      // std::vector

#include <doctest/doctest.h>

#include <fusedsl/core/math.hpp>
#include <fusedsl/core/vector_math.hpp>

// test_vector_math_fma (tests/backend/CMakeLists.txt) is this file compiled
// for AVX2 and FMA: it must take vector_math's fused multiply-add paths.
#ifdef FUSEDSL_TEST_EXPECTS_FMA
static_assert(FUSEDSL_VM_FMA == 1, "compiled with -mfma, vector_math should use fused multiply-adds");
#endif

namespace {

namespace vm = fusedsl::vector_math;
using ld = long double;

template <class T>
using uint_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

/// Error of y in ulps of T at the exact value ref.
template <class T>
double ulp_error(T y, ld ref) {
  if (std::isnan(ref)) return std::isnan(y) ? 0.0 : 1e300;
  if (std::isnan(y)) return 1e300;
  // Exact results beyond the range of T round to Inf: then y must be that Inf.
  if (std::isinf(static_cast<T>(ref))) return y == static_cast<T>(ref) ? 0.0 : 1e300;
  constexpr int digits = std::numeric_limits<T>::digits;          // 24 / 53
  constexpr int emin = std::numeric_limits<T>::min_exponent - 1;  // -126 / -1022
  constexpr int emax = std::numeric_limits<T>::max_exponent;      // 128 / 1024
  ld yv = y;
  if (std::isinf(y)) yv = std::copysign(std::ldexp(ld(1), emax), ld(y));
  int e = 0;
  std::frexp(ref, &e);  // ref = m 2^e, 0.5 <= |m| < 1
  e -= 1;
  if (e < emin) e = emin;
  if (e > emax - 1) e = emax - 1;
  const ld ulp = std::ldexp(ld(1), e - (digits - 1));
  return static_cast<double>(std::fabs(yv - ref) / ulp);
}

template <class T>
struct fn {
  const char* name;
  T (*f)(T);
  ld (*ref)(ld);
  double bound;                                      // the stated max error in ulps
  T lo, hi;                                          // working range for the uniform samples
  std::vector<T> points;                             // special points to sample densely around
  T ulp_limit = std::numeric_limits<T>::infinity();  // |x| beyond: only |y| <= 1 is checked (sin, cos)
};

// References in long double. The gelu_tanh constants are those of T, as in the implementation.
ld ref_sigmoid(ld x) { return 1 / (1 + std::exp(-x)); }
ld ref_silu(ld x) { return x / (1 + std::exp(-x)); }
ld ref_gelu_erf(ld x) { return ld(0.5) * x * std::erfc(-x / std::sqrt(ld(2))); }
template <class T>
ld ref_gelu_tanh(ld x) {
  const ld v = 2 * ld(T(0.79788456080286535588)) * (x + ld(T(0.044715)) * x * x * x);
  return x / (1 + std::exp(-v));
}

template <class T>
std::vector<fn<T>> functions() {
  using L = std::numeric_limits<T>;
  const bool f = sizeof(T) == 4;
  const T ovf = f ? T(88.72283935546875) : T(709.782712893384);
  const T unf = f ? T(-103.97208) : T(-745.1332191019412);
  const T nrm = f ? T(-87.33654) : T(-708.3964185322641);
  return {
      {"exp",
       [](T x) { return vm::exp(x); },
       [](ld x) { return std::exp(x); },
       f ? 1.5 : 1.0,
       unf - 2,
       ovf + 2,
       {0, 1, -1, ovf, unf, nrm, T(0.34657359), T(-0.34657359)}},
      {"expm1",
       [](T x) { return vm::expm1(x); },
       [](ld x) { return std::expm1(x); },
       f ? 1.0 : 2.5,
       f ? T(-20) : T(-40),
       ovf + 2,
       {0, 1, -1, ovf, T(0.34657359), T(-0.34657359), T(0.6931472), T(-0.6931472), f ? T(0x1p-26) : T(0x1p-55)}},
      {"log",
       [](T x) { return vm::log(x); },
       [](ld x) { return std::log(x); },
       1,
       0,
       4,
       {0, 1, T(0.70710678), T(1.41421356), L::min(), L::denorm_min(), L::max(), 2}},
      {"log2",
       [](T x) { return vm::log2(x); },
       [](ld x) { return std::log2(x); },
       1,
       0,
       4,
       {0, 1, T(0.70710678), T(1.41421356), L::min(), L::denorm_min(), L::max(), 2}},
      {"log10",
       [](T x) { return vm::log10(x); },
       [](ld x) { return std::log10(x); },
       1,
       0,
       4,
       {0, 1, T(0.70710678), T(1.41421356), L::min(), L::denorm_min(), L::max(), 10}},
      {"exp2",
       [](T x) { return vm::exp2(x); },
       [](ld x) { return std::exp2(x); },
       1.5,
       f ? T(-152) : T(-1077),
       f ? T(130) : T(1026),
       {0, 1, -1, T(0.5), T(-0.5), f ? T(128) : T(1024), f ? T(-126) : T(-1022), f ? T(-149) : T(-1074)}},
      {"log1p",
       [](T x) { return vm::log1p(x); },
       [](ld x) { return std::log1p(x); },
       1,
       -1,
       4,
       {0, -1, 1, T(-0.29289322), T(0.41421356), T(0.5), T(-0.5), f ? T(0x1p-26) : T(0x1p-55), L::max()}},
      {"tanh",
       [](T x) { return vm::tanh(x); },
       [](ld x) { return std::tanh(x); },
       f ? 1.0 : 3.0,
       -12,
       12,
       {0, T(0.5), T(-0.5), f ? T(9.01) : T(19.06), f ? T(10) : T(20)}},
      {"sigmoid", [](T x) { return vm::sigmoid(x); }, ref_sigmoid, 2.5, unf - 2, -nrm + 2, {0, -nrm, nrm, unf, -1, 1}},
      {"silu", [](T x) { return vm::silu(x); }, ref_silu, f ? 1.0 : 3.0, unf - 2, -nrm + 2, {0, -nrm, nrm, unf, -1, 1}},
      {"erf",
       [](T x) { return vm::erf(x); },
       [](ld x) { return std::erf(x); },
       f ? 2.0 : 1.5,
       -6,
       6,
       {0, T(0.875), T(-0.875), 1, f ? T(3.92) : T(5.93)}},
      {"erfc",
       [](T x) { return vm::erfc(x); },
       [](ld x) { return std::erfc(x); },
       f ? 1.0 : 4.5,
       f ? T(-4) : T(-6),
       f ? T(10.5) : T(27.5),
       {0, T(0.45), T(-0.45), 1, f ? T(9.2) : T(26.5), f ? T(10.06) : T(27.2)}},
      {"gelu_erf",
       [](T x) { return vm::gelu_erf(x); },
       ref_gelu_erf,
       f && !FUSEDSL_VM_FMA ? 7.5 : 6.0,
       f ? T(-15) : T(-40),
       8,
       {0, T(0.70710678), T(-0.70710678), T(-1.27279221), f ? T(-14.3) : T(-38.6), f ? T(-14.5) : T(-40)}},
      {"gelu_tanh",
       [](T x) { return vm::gelu_tanh(x); },
       ref_gelu_tanh<T>,
       f ? 1.0 : 3.0,
       f ? T(-15) : T(-40),
       8,
       {0, -1, 1, -5, f ? T(-10) : T(-20)}},
      {"sin",
       [](T x) { return vm::sin(x); },
       [](ld x) { return std::sin(x); },
       f ? 1.0 : 2.0,
       -1e5,
       1e5,
       {0, T(0.78539816), T(1.5707963), T(3.1415927), T(1e4), T(1e5)},
       T(2e8)},
      {"cos",
       [](T x) { return vm::cos(x); },
       [](ld x) { return std::cos(x); },
       f ? 1.0 : 2.0,
       -1e5,
       1e5,
       {0, T(0.78539816), T(1.5707963), T(3.1415927), T(1e4), T(1e5)},
       T(2e8)},
  };
}

template <class T>
struct result {
  double max_ulp = 0;
  T worst = 0;
  std::size_t count = 0;
  std::size_t bounded_failures = 0;  // |x| > ulp_limit with |y| > 1
};

template <class T>
void measure(const fn<T>& F, T x, result<T>& r) {
  const T y = F.f(x);
  ++r.count;
  if (std::fabs(x) > F.ulp_limit) {
    if (!(std::fabs(y) <= T(1)) && !std::isinf(x)) ++r.bounded_failures;
    return;
  }
  const double e = ulp_error<T>(y, F.ref(static_cast<ld>(x)));
  if (e > r.max_ulp || e != e) {
    r.max_ulp = e;
    r.worst = x;
  }
}

template <class T>
std::vector<T> inputs(const fn<T>& F) {
  std::vector<T> xs;
  std::mt19937_64 gen(12345);
  using U = uint_of<T>;
  const U inf_bits = std::bit_cast<U>(std::numeric_limits<T>::infinity());
  if constexpr (sizeof(T) == 4) {
    // Every 2999th bit pattern of each sign: 1.4 million values over the whole range.
    for (U u = 0; u < inf_bits; u += 2999) {
      xs.push_back(std::bit_cast<T>(u));
      xs.push_back(-std::bit_cast<T>(u));
    }
  } else {
    std::uniform_int_distribution<U> any(0, inf_bits - 1);
    for (int i = 0; i < 300000; ++i) {
      const T x = std::bit_cast<T>(any(gen));
      xs.push_back(x);
      xs.push_back(-x);
    }
  }
  // Uniform samples in the working range.
  std::uniform_real_distribution<T> uni(F.lo, F.hi);
  for (int i = 0; i < (sizeof(T) == 4 ? 600000 : 300000); ++i) xs.push_back(uni(gen));
  // Dense around the special points, both signs.
  for (T p : F.points) {
    for (T s : {p, -p}) {
      T a = s, b = s;
      for (int i = 0; i < 3000; ++i) {
        xs.push_back(a);
        xs.push_back(b);
        a = std::nextafter(a, std::numeric_limits<T>::infinity());
        b = std::nextafter(b, -std::numeric_limits<T>::infinity());
      }
    }
  }
  // Subnormals and the bottom of the normal range.
  for (U u = 1; u < U(1) << (std::numeric_limits<T>::digits - 1); u = u * 3 + 1) {
    xs.push_back(std::bit_cast<T>(u));
    xs.push_back(-std::bit_cast<T>(u));
  }
  return xs;
}

template <class T>
void check_accuracy() {
  for (const fn<T>& F : functions<T>()) {
    result<T> r;
    for (T x : inputs(F)) measure(F, x, r);
    if (F.ulp_limit < std::numeric_limits<T>::infinity()) {
      // Past the accurate range: still in [-1, 1] (and NaN for Inf, checked below).
      for (T x : {T(3e8), T(1e12), T(1e20), std::numeric_limits<T>::max()}) {
        measure(F, x, r);
        measure(F, -x, r);
      }
    }
    char msg[200];
    std::snprintf(msg, sizeof msg, "%s<%s>: max %.3f ulp at x = %a (%.9g), %zu values, bound %.1f", F.name,
                  sizeof(T) == 4 ? "float" : "double", r.max_ulp, double(r.worst), double(r.worst), r.count, F.bound);
    MESSAGE(msg);
    CHECK_MESSAGE(r.max_ulp <= F.bound, msg);
    CHECK(r.bounded_failures == 0);
  }
}

template <class T>
bool same_bits(T a, T b) {
  return std::isnan(a) ? std::isnan(b) : std::bit_cast<uint_of<T>>(a) == std::bit_cast<uint_of<T>>(b);
}

/// NaN, +-Inf, +-0 and the values whose results are 0 or Inf, bit for bit as std::.
template <class T>
void check_special_values() {
  using L = std::numeric_limits<T>;
  const T inf = L::infinity(), nan = L::quiet_NaN();
  const std::vector<T> xs = {T(0),     -T(0),     inf,      -inf,      nan,  -nan,  L::denorm_min(), -L::denorm_min(),
                             L::min(), -L::min(), L::max(), -L::max(), T(1), T(-1), T(1000),         T(-1000),
                             T(1e30),  T(-1e30)};
  struct pair {
    const char* name;
    T (*ours)(T);
    T (*std_)(T);
    // The formula rounds x/2 first, to 0 at x = 2^-149 (a tie, to even), where
    // ours rounds once, to 2^-149: positive subnormal x are left to the accuracy test.
    bool halves_first = false;
  };
  const pair pairs[] = {
      {"exp", [](T x) { return vm::exp(x); }, [](T x) { return std::exp(x); }},
      {"expm1", [](T x) { return vm::expm1(x); }, [](T x) { return std::expm1(x); }},
      {"log", [](T x) { return vm::log(x); }, [](T x) { return std::log(x); }},
      {"log1p", [](T x) { return vm::log1p(x); }, [](T x) { return std::log1p(x); }},
      {"tanh", [](T x) { return vm::tanh(x); }, [](T x) { return std::tanh(x); }},
      {"erf", [](T x) { return vm::erf(x); }, [](T x) { return std::erf(x); }},
      {"erfc", [](T x) { return vm::erfc(x); }, [](T x) { return std::erfc(x); }},
      {"log2", [](T x) { return vm::log2(x); }, [](T x) { return std::log2(x); }},
      {"log10", [](T x) { return vm::log10(x); }, [](T x) { return std::log10(x); }},
      {"exp2", [](T x) { return vm::exp2(x); }, [](T x) { return std::exp2(x); }},
      {"sin", [](T x) { return vm::sin(x); }, [](T x) { return std::sin(x); }},
      {"cos", [](T x) { return vm::cos(x); }, [](T x) { return std::cos(x); }},
      // The previous definitions in math.hpp (with std::), whose special values are kept.
      {"sigmoid", [](T x) { return vm::sigmoid(x); }, [](T x) { return T(1) / (T(1) + std::exp(-x)); }},
      {"silu", [](T x) { return vm::silu(x); }, [](T x) { return x / (T(1) + std::exp(-x)); }},
      {"gelu_erf", [](T x) { return vm::gelu_erf(x); },
       [](T x) { return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440))); }, true},
      {"gelu_tanh", [](T x) { return vm::gelu_tanh(x); },
       [](T x) { return T(0.5) * x * (T(1) + std::tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x))); }},
  };
  for (const pair& p : pairs) {
    for (T x : xs) {
      const T want = p.std_(x), got = p.ours(x);
      // Bit-exact where std gives NaN, +-Inf or +-0 or the input is one of them;
      // elsewhere (e.g. exp(1)) the accuracy tests apply.
      const bool special =
          std::isnan(want) || std::isinf(want) || want == 0 || std::isnan(x) || std::isinf(x) || x == 0;
      const bool rounds_twice = p.halves_first && x > 0 && x < std::numeric_limits<T>::min();
      if (!special || rounds_twice) continue;
      char msg[160];
      std::snprintf(msg, sizeof msg, "%s<%s>(%a) = %a, std gives %a", p.name, sizeof(T) == 4 ? "float" : "double",
                    double(x), double(got), double(want));
      CHECK_MESSAGE(same_bits(got, want), msg);
    }
  }
}

/// The float inputs sqrt and rsqrt are checked on (as bit patterns): every
/// 2999th bit pattern (all signs, NaNs, Infs), every value within 3000 ulps
/// of the points where rounding is hardest or the code switches (powers of 2
/// and 4, 4 - 2^-22 whose root is 2^-51 from a midpoint, the subnormal
/// boundary, max).
std::vector<std::uint32_t> sqrt_inputs() {
  std::vector<std::uint32_t> us;
  for (std::uint64_t u = 0; u < (std::uint64_t(1) << 32); u += 2999) us.push_back(static_cast<std::uint32_t>(u));
  for (float p : {1.0f, 2.0f, 4.0f, 0x1.fffffep1f, 0x1p-126f, 0x1p-149f, 0x1p-140f, 0x1p100f, 0x1.fffffep127f, 0.0f}) {
    const std::uint32_t b = std::bit_cast<std::uint32_t>(p);
    for (std::uint32_t d = 0; d < 3000; ++d) {
      for (std::uint32_t s : {0u, 0x80000000u}) {
        us.push_back((b + d) | s);
        us.push_back((b - d) | s);
      }
    }
  }
  for (std::uint32_t n : {0x7f800001u, 0x7fbfffffu, 0x7fc00000u, 0xffc00001u, 0xff800001u, 0x7f800000u, 0xff800000u})
    us.push_back(n);  // signaling and quiet NaNs of both signs, +-Inf
  return us;
}

/// float sqrt bit for bit as std::sqrt (NaN payloads included), rsqrt
/// correctly rounded (1/sqrt in long double, rounded to float) and, where
/// the input or result is NaN, +-0 or +-Inf, bit for bit as 1.0f / std::sqrt,
/// on sqrt_inputs().
void check_sqrt_and_rsqrt() {
  const std::vector<std::uint32_t> us = sqrt_inputs();
  std::size_t sqrt_diff = 0, rsqrt_diff = 0;
  std::uint32_t first_bad = 0;
  for (std::uint32_t u : us) {
    const float x = std::bit_cast<float>(u);
    const bool s = std::bit_cast<std::uint32_t>(vm::sqrt(x)) != std::bit_cast<std::uint32_t>(std::sqrt(x));
    const float r_std = 1.0f / std::sqrt(x);
    const float r_want =
        (std::isnan(r_std) || std::isinf(r_std) || r_std == 0) ? r_std : static_cast<float>(1 / std::sqrt(ld(x)));
    const bool r = std::bit_cast<std::uint32_t>(vm::rsqrt(x)) != std::bit_cast<std::uint32_t>(r_want);
    if ((s || r) && sqrt_diff + rsqrt_diff == 0) first_bad = u;
    sqrt_diff += s;
    rsqrt_diff += r;
  }
  char msg[160];
  std::snprintf(msg, sizeof msg, "sqrt: %zu, rsqrt: %zu of %zu inputs differ (first: bits 0x%08x)", sqrt_diff,
                rsqrt_diff, us.size(), first_bad);
  MESSAGE(msg);
  CHECK_MESSAGE(sqrt_diff + rsqrt_diff == 0, msg);
}

#if FUSEDSL_SIMD_SQRT
/// math::sqrt over `n` values in a loop vectorized for the caller's ISA
/// (`omp simd`: also at the tests' -O1), which calls fusedsl_sqrtf's or
/// fusedsl_sqrt's vector variant of that ISA.
template <class T>
FUSEDSL_FORCEINLINE void sqrt_loop(const T* x, T* y, std::size_t n) {
#  pragma omp simd
  for (std::size_t i = 0; i < n; ++i) y[i] = fusedsl::math::sqrt(x[i]);
}
/// sqrt_loop for SSE2, AVX, AVX2 and AVX-512: each calls its own variant.
template <class T>
void sqrt_loop_sse2(const T* x, T* y, std::size_t n) {
  sqrt_loop(x, y, n);
}
template <class T>
__attribute__((target("avx"))) void sqrt_loop_avx(const T* x, T* y, std::size_t n) {
  sqrt_loop(x, y, n);
}
template <class T>
__attribute__((target("avx2"))) void sqrt_loop_avx2(const T* x, T* y, std::size_t n) {
  sqrt_loop(x, y, n);
}
template <class T>
__attribute__((target("avx512f"))) void sqrt_loop_avx512(const T* x, T* y, std::size_t n) {
  sqrt_loop(x, y, n);
}

/// sqrt_inputs() as T: for double, each float widened, and double's own edges
/// (subnormals, the largest, a NaN with a payload, negatives).
template <class T>
std::vector<T> simd_sqrt_inputs() {
  std::vector<T> x;
  for (std::uint32_t u : sqrt_inputs()) x.push_back(static_cast<T>(std::bit_cast<float>(u)));
  if constexpr (std::is_same_v<T, double>)
    for (double d : {std::numeric_limits<double>::denorm_min(), 3 * std::numeric_limits<double>::denorm_min(),
                     std::numeric_limits<double>::min(), std::numeric_limits<double>::max(), 1e300, 2.0, -1e-300,
                     -std::numeric_limits<double>::infinity(), std::bit_cast<double>(0x7ff0000000012345ull),
                     std::bit_cast<double>(0xfff8000000000042ull), 0x1.fffffffffffffp-1})
      x.push_back(d);
  return x;
}

/// math::sqrt of T in vectorized loops, through each vector variant of
/// fusedsl_sqrtf / fusedsl_sqrt the CPU runs (simd_sqrt.hpp), bit for bit as
/// std::sqrt.
template <class T>
void check_simd_sqrt() {
  using bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const std::vector<T> x = simd_sqrt_inputs<T>();
  std::vector<T> y(x.size());
  struct variant {
    const char* isa;
    bool runs;
    void (*loop)(const T*, T*, std::size_t);
  };
  for (const variant& v :
       {variant{"sse2", true, sqrt_loop_sse2<T>}, variant{"avx", __builtin_cpu_supports("avx") != 0, sqrt_loop_avx<T>},
        variant{"avx2", __builtin_cpu_supports("avx2") != 0, sqrt_loop_avx2<T>},
        variant{"avx512f", __builtin_cpu_supports("avx512f") != 0, sqrt_loop_avx512<T>}}) {
    if (!v.runs) continue;
    v.loop(x.data(), y.data(), x.size());
    std::size_t diff = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
      diff += std::bit_cast<bits>(y[i]) != std::bit_cast<bits>(std::sqrt(x[i]));
    INFO(v.isa);
    CHECK(diff == 0);
  }
}
#endif

template <class T>
void check_math_hpp_forwards() {
  // math.hpp's float overloads are these functions on the host; its double
  // ones too where the target vectorizes them or the CPU kernels have an AVX2
  // clone that does (FUSEDSL_CPU_DISPATCH), else std::.
  namespace m = fusedsl::math;
  const bool vec = sizeof(T) == 4 || vm::double_vectorizes || FUSEDSL_CPU_DISPATCH;
  for (T x : {T(-3.5), T(-0.25), T(0), T(0.3), T(2.75), T(40)}) {
    CHECK(same_bits(m::exp(x), vec ? vm::exp(x) : std::exp(x)));
    CHECK(same_bits(m::expm1(x), vec ? vm::expm1(x) : std::expm1(x)));
    CHECK(same_bits(m::log(x), vec ? vm::log(x) : std::log(x)));
    CHECK(same_bits(m::log1p(x), vec ? vm::log1p(x) : std::log1p(x)));
    CHECK(same_bits(m::tanh(x), vec ? vm::tanh(x) : std::tanh(x)));
    CHECK(same_bits(m::erf(x), vec ? vm::erf(x) : std::erf(x)));
    CHECK(same_bits(m::erfc(x), vec ? vm::erfc(x) : std::erfc(x)));
    CHECK(same_bits(m::log2(x), vec ? vm::log2(x) : std::log2(x)));
    CHECK(same_bits(m::log10(x), vec ? vm::log10(x) : std::log10(x)));
    CHECK(same_bits(m::exp2(x), vec ? vm::exp2(x) : std::exp2(x)));
    CHECK(same_bits(m::atan2(x, T(-1.5)), vec ? vm::atan2(x, T(-1.5)) : std::atan2(x, T(-1.5))));
    CHECK(same_bits(m::sin(x), vec ? vm::sin(x) : std::sin(x)));
    CHECK(same_bits(m::cos(x), vec ? vm::cos(x) : std::cos(x)));
    // sqrt and rsqrt: fusedsl_sqrtf or vector_math for float, fusedsl_sqrt or std:: for double (sqrt bit for
    // bit std:: anyway).
    CHECK(same_bits(m::sqrt(x), std::sqrt(x)));
    if constexpr (sizeof(T) == 4) {
      CHECK(same_bits(m::sqrt(x), vm::sqrt(x)));
      CHECK(same_bits(m::rsqrt(x), vm::rsqrt(x)));
    } else {
      CHECK(same_bits(m::rsqrt(x), T(1) / std::sqrt(x)));
    }
    if (vec) {
      CHECK(same_bits(m::sigmoid(x), vm::sigmoid(x)));
      CHECK(same_bits(m::silu(x), vm::silu(x)));
      CHECK(same_bits(m::gelu_erf(x), vm::gelu_erf(x)));
      CHECK(same_bits(m::gelu_tanh(x), vm::gelu_tanh(x)));
    }
  }
  // Integers keep their paths.
  CHECK(m::exp(2) == static_cast<int>(std::exp(2)));
  CHECK(m::pow(3, 4) == 81);
}

/// atan2(y, x): the error in ulps over random points of every magnitude and
/// quadrant, points near the axes and the diagonals (where the code switches),
/// and C's special values bit for bit (signed zeros, infinities, NaN).
template <class T>
void check_atan2() {
  using L = std::numeric_limits<T>;
  std::mt19937_64 gen(777);
  std::uniform_real_distribution<T> unit(-1, 1);
  std::uniform_int_distribution<int> exponent(L::min_exponent - 20, L::max_exponent - 2);
  double max_ulp = 0;
  T worst_y = 0, worst_x = 0;
  auto measure = [&](T y, T x) {
    const double e = ulp_error<T>(vm::atan2(y, x), std::atan2(ld(y), ld(x)));
    if (e > max_ulp) max_ulp = e, worst_y = y, worst_x = x;
  };
  for (int i = 0; i < 400000; ++i) {
    const T y = std::ldexp(unit(gen), exponent(gen)), x = std::ldexp(unit(gen), exponent(gen));
    measure(y, x);
    measure(unit(gen), unit(gen));
    // Near the diagonals (t = 1) and near tan(pi/8), where u switches.
    const T a = unit(gen);
    measure(a, a * (T(1) + unit(gen) * T(1e-3)));
    measure(a * T(0.41421356237309503) * (T(1) + unit(gen) * T(1e-3)), -a);
  }
  char msg[200];
  std::snprintf(msg, sizeof msg, "atan2<%s>: max %.3f ulp at (y, x) = (%a, %a)", sizeof(T) == 4 ? "float" : "double",
                max_ulp, double(worst_y), double(worst_x));
  MESSAGE(msg);
  CHECK_MESSAGE(max_ulp <= (sizeof(T) == 4 ? 0.501 : 2.5), msg);
  const T inf = L::infinity(), nan = L::quiet_NaN();
  for (T y : {T(0), -T(0), T(1), T(-1), inf, -inf, nan, L::denorm_min(), L::max()})
    for (T x : {T(0), -T(0), T(1), T(-1), inf, -inf, nan, L::denorm_min(), L::max()}) {
      const T want = std::atan2(y, x), got = vm::atan2(y, x);
      std::snprintf(msg, sizeof msg, "atan2(%a, %a) = %a, std gives %a", double(y), double(x), double(got),
                    double(want));
      if (std::isnan(want) || want == 0 || std::isinf(y) || std::isinf(x) || y == 0 || x == 0)
        CHECK_MESSAGE(same_bits(got, want), msg);
      else CHECK_MESSAGE(ulp_error<T>(got, std::atan2(ld(y), ld(x))) <= 2.0, msg);
    }
}

}  // namespace

TEST_CASE("vector_math: float atan2") { check_atan2<float>(); }
TEST_CASE("vector_math: double atan2") { check_atan2<double>(); }
TEST_CASE("vector_math: float accuracy in ulps against long double") { check_accuracy<float>(); }
TEST_CASE("vector_math: double accuracy in ulps against long double") { check_accuracy<double>(); }
TEST_CASE("vector_math: float special values as std") { check_special_values<float>(); }
TEST_CASE("vector_math: double special values as std") { check_special_values<double>(); }
TEST_CASE("vector_math: float sqrt bit for bit std, rsqrt correctly rounded") { check_sqrt_and_rsqrt(); }
#if FUSEDSL_SIMD_SQRT
TEST_CASE("math: float and double sqrt in vectorized loops bit for bit std (sqrt instruction variants)") {
  check_simd_sqrt<float>();
  check_simd_sqrt<double>();
}
#endif
TEST_CASE("vector_math: math.hpp forwards float and double") {
  check_math_hpp_forwards<float>();
  check_math_hpp_forwards<double>();
}
