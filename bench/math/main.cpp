// bench_math: fusedsl::math (vector_math.hpp on the host) against the
// standard library in plain loops, as a user compiles them: -O3, no
// -ffast-math. Prints markdown tables (bench/RESULTS.md "CPU math functions").
//
//   bench_math [log2 n = 24] [repeats = 7] [function ...]  (the functions of table 3; default all)
//
// 1. y[i] = exp(a[i]) * b[i] + c[i] on n floats (and doubles), std::exp
//    against fusedsl::math::exp, one thread and OpenMP (all threads).
// 2. Adam's update of p, m, v from g with std::sqrt and vector_math::sqrt.
// 3. Each function's throughput in elements per ns, float and double, one
//    thread and OpenMP, std:: (or the formula math.hpp used before, for
//    sigmoid, silu and the gelus) against fusedsl::math.
// Inputs are fresh random numbers for every function (in its working
// range); the results of both are checked against the function computed in
// long double (max error in ulps over every 16th element).
// Times are medians of `repeats` runs after one warm-up run (wall clock, or
// with BENCH_MATH_CLOCK=thread the CPU time of the calling thread).
#include <omp.h>

#include <algorithm>  // std::sort, std::max, std::find
#include <bit>        // std::bit_cast
#include <chrono>     // std::chrono::steady_clock
#include <cmath>      // std::exp, ...
#include <cstdint>    // std::int64_t
#include <cstdio>     // std::printf
#include <cstdlib>    // std::atoi, std::getenv
#include <ctime>      // clock_gettime
#include <limits>     // std::numeric_limits
#include <random>     // std::mt19937
#include <string>     // std::string
#include <vector>     // std::vector

#include <fusedsl/core/math.hpp>
#include <fusedsl/core/vector_math.hpp>  // vector_math::sqrt (Adam)

namespace fm = fusedsl::math;

namespace {

// One function per loop and type, each on its own source line, so that the
// vectorizer's report (-fopt-info-vec-optimized) names every loop by line.
#define BENCH_LOOP(NAME, T, EXPR)                                                                                  \
  __attribute__((noinline)) void NAME##_##T(const T* __restrict a, T* __restrict y, std::int64_t n, int threads) { \
    _Pragma("omp parallel for num_threads(threads) schedule(static)") for (std::int64_t i = 0; i < n; ++i) {       \
      const T x = a[i];                                                                                            \
      y[i] = EXPR;                                                                                                 \
    }                                                                                                              \
  }

template <class T>
constexpr T kRsqrt2 = T(0.70710678118654752440);
template <class T>
constexpr T kGeluC = T(0.79788456080286535588);
template <class T>
constexpr T kGeluA = T(0.044715);

BENCH_LOOP(std_exp, float, std::exp(x))
BENCH_LOOP(std_exp, double, std::exp(x))
BENCH_LOOP(fsl_exp, float, fm::exp(x))
BENCH_LOOP(fsl_exp, double, fm::exp(x))
BENCH_LOOP(std_expm1, float, std::expm1(x))
BENCH_LOOP(std_expm1, double, std::expm1(x))
BENCH_LOOP(fsl_expm1, float, fm::expm1(x))
BENCH_LOOP(fsl_expm1, double, fm::expm1(x))
BENCH_LOOP(std_log, float, std::log(x))
BENCH_LOOP(std_log, double, std::log(x))
BENCH_LOOP(fsl_log, float, fm::log(x))
BENCH_LOOP(fsl_log, double, fm::log(x))
BENCH_LOOP(std_log1p, float, std::log1p(x))
BENCH_LOOP(std_log1p, double, std::log1p(x))
BENCH_LOOP(fsl_log1p, float, fm::log1p(x))
BENCH_LOOP(fsl_log1p, double, fm::log1p(x))
BENCH_LOOP(std_tanh, float, std::tanh(x))
BENCH_LOOP(std_tanh, double, std::tanh(x))
BENCH_LOOP(fsl_tanh, float, fm::tanh(x))
BENCH_LOOP(fsl_tanh, double, fm::tanh(x))
BENCH_LOOP(std_sigmoid, float, float(1) / (float(1) + std::exp(-x)))
BENCH_LOOP(std_sigmoid, double, double(1) / (double(1) + std::exp(-x)))
BENCH_LOOP(fsl_sigmoid, float, fm::sigmoid(x))
BENCH_LOOP(fsl_sigmoid, double, fm::sigmoid(x))
BENCH_LOOP(std_silu, float, x / (float(1) + std::exp(-x)))
BENCH_LOOP(std_silu, double, x / (double(1) + std::exp(-x)))
BENCH_LOOP(fsl_silu, float, fm::silu(x))
BENCH_LOOP(fsl_silu, double, fm::silu(x))
BENCH_LOOP(std_erf, float, std::erf(x))
BENCH_LOOP(std_erf, double, std::erf(x))
BENCH_LOOP(fsl_erf, float, fm::erf(x))
BENCH_LOOP(fsl_erf, double, fm::erf(x))
BENCH_LOOP(std_gelu_erf, float, float(0.5) * x * (float(1) + std::erf(x * kRsqrt2<float>)))
BENCH_LOOP(std_gelu_erf, double, double(0.5) * x * (double(1) + std::erf(x * kRsqrt2<double>)))
BENCH_LOOP(fsl_gelu_erf, float, fm::gelu_erf(x))
BENCH_LOOP(fsl_gelu_erf, double, fm::gelu_erf(x))
BENCH_LOOP(std_gelu_tanh, float,
           float(0.5) * x * (float(1) + std::tanh(kGeluC<float> * (x + kGeluA<float> * x * x * x))))
BENCH_LOOP(std_gelu_tanh, double,
           double(0.5) * x * (double(1) + std::tanh(kGeluC<double> * (x + kGeluA<double> * x * x * x))))
BENCH_LOOP(fsl_gelu_tanh, float, fm::gelu_tanh(x))
BENCH_LOOP(fsl_gelu_tanh, double, fm::gelu_tanh(x))
BENCH_LOOP(std_sin, float, std::sin(x))
BENCH_LOOP(std_sin, double, std::sin(x))
BENCH_LOOP(fsl_sin, float, fm::sin(x))
BENCH_LOOP(fsl_sin, double, fm::sin(x))
BENCH_LOOP(std_cos, float, std::cos(x))
BENCH_LOOP(std_cos, double, std::cos(x))
BENCH_LOOP(fsl_cos, float, fm::cos(x))
BENCH_LOOP(fsl_cos, double, fm::cos(x))
BENCH_LOOP(std_sqrt, float, std::sqrt(x))
BENCH_LOOP(std_sqrt, double, std::sqrt(x))
BENCH_LOOP(fsl_sqrt, float, fm::sqrt(x))
BENCH_LOOP(fsl_sqrt, double, fm::sqrt(x))
BENCH_LOOP(std_rsqrt, float, float(1) / std::sqrt(x))
BENCH_LOOP(std_rsqrt, double, double(1) / std::sqrt(x))
BENCH_LOOP(fsl_rsqrt, float, fm::rsqrt(x))
BENCH_LOOP(fsl_rsqrt, double, fm::rsqrt(x))

// Adam's update of p, m, v from g (float), with std::sqrt or vector_math::sqrt
// (what math::sqrt is with AVX2 or newer): the sqrt decides whether the whole
// loop vectorizes.
#define ADAM_LOOP(NAME, SQRT)                                                                                \
  __attribute__((noinline)) void NAME(float* __restrict p, float* __restrict m, float* __restrict v,         \
                                      const float* __restrict g, std::int64_t n, float step, float bias2,    \
                                      int threads) {                                                         \
    _Pragma("omp parallel for num_threads(threads) schedule(static)") for (std::int64_t i = 0; i < n; ++i) { \
      const float mi = 0.9f * m[i] + 0.1f * g[i];                                                            \
      const float vi = 0.999f * v[i] + 0.001f * g[i] * g[i];                                                 \
      m[i] = mi;                                                                                             \
      v[i] = vi;                                                                                             \
      p[i] -= step * mi / (SQRT(vi * bias2) + 1e-8f);                                                        \
    }                                                                                                        \
  }
ADAM_LOOP(std_adam, std::sqrt)
ADAM_LOOP(fsl_adam, fusedsl::vector_math::sqrt)

// The fused loop of the issue: y = exp(a) * b + c.
#define EXP_FMA_LOOP(NAME, T, EXP)                                                                                \
  __attribute__((noinline)) void NAME##_##T(const T* __restrict a, const T* __restrict b, const T* __restrict c,  \
                                            T* __restrict y, std::int64_t n, int threads) {                       \
    _Pragma("omp parallel for num_threads(threads) schedule(static)") for (std::int64_t i = 0; i < n; ++i) y[i] = \
        EXP(a[i]) * b[i] + c[i];                                                                                  \
  }
EXP_FMA_LOOP(std_exp_fma, float, std::exp)
EXP_FMA_LOOP(fsl_exp_fma, float, fm::exp)
EXP_FMA_LOOP(std_exp_fma, double, std::exp)
EXP_FMA_LOOP(fsl_exp_fma, double, fm::exp)

void std_exp_fma(const float* a, const float* b, const float* c, float* y, std::int64_t n, int t) {
  std_exp_fma_float(a, b, c, y, n, t);
}
void fsl_exp_fma(const float* a, const float* b, const float* c, float* y, std::int64_t n, int t) {
  fsl_exp_fma_float(a, b, c, y, n, t);
}
void std_exp_fma(const double* a, const double* b, const double* c, double* y, std::int64_t n, int t) {
  std_exp_fma_double(a, b, c, y, n, t);
}
void fsl_exp_fma(const double* a, const double* b, const double* c, double* y, std::int64_t n, int t) {
  fsl_exp_fma_double(a, b, c, y, n, t);
}

/// BENCH_MATH_CLOCK=thread: the CPU time of the calling thread instead of
/// wall time. On a shared machine the 1-thread columns then measure the work
/// itself, not the share of the CPU that the process got (the n-thread
/// columns then show the calling thread's part only).
const bool kThreadClock = [] {
  const char* c = std::getenv("BENCH_MATH_CLOCK");
  return c != nullptr && std::string(c) == "thread";
}();

double now_ms() {
  if (kThreadClock) {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class F>
double median_ms(int repeats, F&& run) {
  run();  // warm-up: page faults, caches, thread pool
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = now_ms();
    run();
    ms.push_back(now_ms() - t0);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <class T>
std::vector<T> random_vector(std::int64_t n, T lo, T hi, unsigned seed) {
  std::vector<T> v(static_cast<std::size_t>(n));
  // Filled in parallel chunks, each with its own generator (fast for 2^24 elements).
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    std::mt19937_64 gen(seed * 1000003u + static_cast<unsigned>(t));
    std::uniform_real_distribution<T> dist(lo, hi);
    for (std::int64_t i = n * t / nt; i < n * (t + 1) / nt; ++i) v[static_cast<std::size_t>(i)] = dist(gen);
  }
  return v;
}

using loop_fn_f = void (*)(const float*, float*, std::int64_t, int);
using loop_fn_d = void (*)(const double*, double*, std::int64_t, int);

using ld = long double;
struct op {
  const char* name;
  double lo, hi;  // input range
  loop_fn_f std_f, fsl_f;
  loop_fn_d std_d, fsl_d;
  ld (*ref)(ld, bool);  // the exact function, in long double (bool: for float)
};

// References in long double (gelu_tanh with its constants rounded to the type, as computed).
ld ref_sigmoid(ld x, bool) { return 1 / (1 + std::exp(-x)); }
ld ref_silu(ld x, bool) { return x / (1 + std::exp(-x)); }
ld ref_gelu_erf(ld x, bool) { return ld(0.5) * x * std::erfc(-x / std::sqrt(ld(2))); }
ld ref_gelu_tanh(ld x, bool single) {
  const ld c = single ? ld(kGeluC<float>) : ld(kGeluC<double>), a = single ? ld(kGeluA<float>) : ld(kGeluA<double>);
  return x / (1 + std::exp(-2 * c * (x + a * x * x * x)));
}

#define OP(NAME, LO, HI, REF) \
  { #NAME, LO, HI, std_##NAME##_float, fsl_##NAME##_float, std_##NAME##_double, fsl_##NAME##_double, REF }
const op kOps[] = {
    OP(exp, -80, 80, [](ld x, bool) { return std::exp(x); }),
    OP(expm1, -10, 10, [](ld x, bool) { return std::expm1(x); }),
    OP(log, 1e-3, 1e3, [](ld x, bool) { return std::log(x); }),
    OP(log1p, -0.9, 1e3, [](ld x, bool) { return std::log1p(x); }),
    OP(tanh, -10, 10, [](ld x, bool) { return std::tanh(x); }),
    OP(sigmoid, -20, 20, ref_sigmoid),
    OP(silu, -20, 20, ref_silu),
    OP(erf, -4, 4, [](ld x, bool) { return std::erf(x); }),
    OP(gelu_erf, -6, 6, ref_gelu_erf),
    OP(gelu_tanh, -6, 6, ref_gelu_tanh),
    OP(sin, -100, 100, [](ld x, bool) { return std::sin(x); }),
    OP(cos, -100, 100, [](ld x, bool) { return std::cos(x); }),
    OP(sqrt, 0, 1e4, [](ld x, bool) { return std::sqrt(x); }),
    OP(rsqrt, 1e-4, 1e4, [](ld x, bool) { return 1 / std::sqrt(x); }),
};

/// Max error in ulps of T against the long double reference, over every 16th element.
template <class T>
double max_ulp_error(const std::vector<T>& a, const std::vector<T>& y, ld (*ref)(ld, bool)) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); i += 16) {
    const ld r = ref(static_cast<ld>(a[i]), sizeof(T) == 4);
    if (std::isnan(r) || std::isnan(y[i])) {
      if (std::isnan(r) != std::isnan(y[i])) return 1e30;
      continue;
    }
    int e = 0;
    std::frexp(r, &e);
    e = std::max(e - 1, std::numeric_limits<T>::min_exponent - 1);
    const ld ulp = std::ldexp(ld(1), e - (std::numeric_limits<T>::digits - 1));
    worst = std::max(worst, static_cast<double>(std::fabs(static_cast<ld>(y[i]) - r) / ulp));
  }
  return worst;
}

template <class T>
void function_table(std::int64_t n, int repeats, int threads_all, unsigned& seed,
                    const std::vector<std::string>& only) {
  std::printf(
      "\n| %s | std 1 thread | fusedsl 1 thread | speed-up | std %d threads | fusedsl %d threads | speed-up | std max "
      "err (ulp) | fusedsl max err (ulp) |\n",
      sizeof(T) == 4 ? "float" : "double", threads_all, threads_all);
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const op& o : kOps) {
    if (!only.empty() && std::find(only.begin(), only.end(), o.name) == only.end()) continue;
    const std::vector<T> a = random_vector<T>(n, T(o.lo), T(o.hi), ++seed);
    std::vector<T> ys(a.size()), yf(a.size());
    auto sf = [&](int th) {
      if constexpr (sizeof(T) == 4) o.std_f(a.data(), ys.data(), n, th);
      else o.std_d(a.data(), ys.data(), n, th);
    };
    auto ff = [&](int th) {
      if constexpr (sizeof(T) == 4) o.fsl_f(a.data(), yf.data(), n, th);
      else o.fsl_d(a.data(), yf.data(), n, th);
    };
    const double s1 = median_ms(repeats, [&] { sf(1); });
    const double f1 = median_ms(repeats, [&] { ff(1); });
    const double sn = median_ms(repeats, [&] { sf(threads_all); });
    const double fn = median_ms(repeats, [&] { ff(threads_all); });
    const double es = max_ulp_error(a, ys, o.ref), ef = max_ulp_error(a, yf, o.ref);
    auto rate = [&](double ms) { return static_cast<double>(n) / (ms * 1e6); };  // elements per ns
    std::printf("| %s [%g, %g] | %.3f | %.3f | %.1fx | %.3f | %.3f | %.1fx | %.3g | %.3g |\n", o.name, o.lo, o.hi,
                rate(s1), rate(f1), s1 / f1, rate(sn), rate(fn), sn / fn, es, ef);
    std::fflush(stdout);
  }
}

template <class T>
void exp_fma_table(std::int64_t n, int repeats, int threads_all, unsigned& seed) {
  const std::vector<T> a = random_vector<T>(n, T(-10), T(10), ++seed);
  const std::vector<T> b = random_vector<T>(n, T(-1), T(1), ++seed);
  const std::vector<T> c = random_vector<T>(n, T(-1), T(1), ++seed);
  std::vector<T> ys(a.size()), yf(a.size());
  for (int th : {1, threads_all}) {
    const double s = median_ms(repeats, [&] { std_exp_fma(a.data(), b.data(), c.data(), ys.data(), n, th); });
    const double f = median_ms(repeats, [&] { fsl_exp_fma(a.data(), b.data(), c.data(), yf.data(), n, th); });
    // exp(a) b + c: compare against the std result with a tolerance for the
    // cancellation in + c (an error of 1 ulp of exp(a) b is allowed).
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double tol =
          2.0 * std::numeric_limits<T>::epsilon() * (std::fabs(double(ys[i] - c[i])) + std::fabs(double(c[i])));
      if (!(std::fabs(double(ys[i]) - double(yf[i])) <= tol)) ++bad;
    }
    std::printf("| %s | %d | %.2f | %.2f | %.1fx | %.3f | %.3f | %s |\n", sizeof(T) == 4 ? "float" : "double", th, s, f,
                s / f, static_cast<double>(n) / (s * 1e6), static_cast<double>(n) / (f * 1e6),
                bad == 0 ? "ok" : "MISMATCH");
    std::fflush(stdout);
    if (bad != 0) std::printf("mismatches: %lld\n", static_cast<long long>(bad));
  }
}

/// Adam's update on n floats, std::sqrt against vector_math::sqrt, from the
/// same state; results checked against each other (a few ulps: FMA
/// contraction may differ between the scalar and the vectorized loop).
void adam_table(std::int64_t n, int repeats, int threads_all, unsigned& seed) {
  const std::vector<float> g = random_vector<float>(n, -1.0f, 1.0f, ++seed);
  const std::vector<float> p0 = random_vector<float>(n, -1.0f, 1.0f, ++seed);
  const std::vector<float> m0 = random_vector<float>(n, -0.1f, 0.1f, ++seed);
  const std::vector<float> v0 = random_vector<float>(n, 0.0f, 0.01f, ++seed);
  const float step = 1e-3f / (1.0f - 0.9f * 0.9f), bias2 = 1.0f / (1.0f - 0.999f * 0.999f);
  std::vector<float> ps = p0, ms = m0, vs = v0, pf = p0, mf = m0, vf = v0;
  std_adam(ps.data(), ms.data(), vs.data(), g.data(), n, step, bias2, 1);
  fsl_adam(pf.data(), mf.data(), vf.data(), g.data(), n, step, bias2, 1);
  const auto near = [](float a, float b, float scale) {
    return std::fabs(a - b) <= 4 * std::numeric_limits<float>::epsilon() * scale;
  };
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < g.size(); ++i)
    bad += !(near(ps[i], pf[i], std::fabs(ps[i] - p0[i]) + std::fabs(ps[i])) && near(ms[i], mf[i], std::fabs(ms[i])) &&
             near(vs[i], vf[i], std::fabs(vs[i])));
  for (int th : {1, threads_all}) {
    const double s =
        median_ms(repeats, [&] { std_adam(ps.data(), ms.data(), vs.data(), g.data(), n, step, bias2, th); });
    const double f =
        median_ms(repeats, [&] { fsl_adam(pf.data(), mf.data(), vf.data(), g.data(), n, step, bias2, th); });
    const double bytes = 7.0 * 4.0 * static_cast<double>(n);  // p, m, v read and written, g read
    std::printf("| %d | %.2f | %.2f | %.1fx | %.1f | %.1f | %s |\n", th, s, f, s / f, bytes / (s * 1e6),
                bytes / (f * 1e6), bad == 0 ? "ok" : "MISMATCH");
    std::fflush(stdout);
  }
  if (bad != 0) std::printf("mismatches: %lld\n", static_cast<long long>(bad));
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;
  const std::int64_t n = std::int64_t(1) << log2n;
  const int threads_all = omp_get_max_threads();
  unsigned seed = 1;
  std::printf("bench_math: n = 2^%d, median of %d runs, OpenMP threads = %d, %s\n", log2n, repeats, threads_all,
              kThreadClock ? "times: CPU time of the calling thread (BENCH_MATH_CLOCK=thread)" : "times: wall clock");
#if defined(__AVX512F__)
  std::printf("compiled for: AVX-512\n");
#elif defined(__AVX2__)
  std::printf("compiled for: AVX2\n");
#else
  std::printf("compiled for: x86-64 baseline (SSE2)\n");
#endif
#if defined(__FAST_MATH__)
  std::printf("WARNING: compiled with -ffast-math\n");
#endif
  std::printf("\ny[i] = exp(a[i]) * b[i] + c[i], a in [-10, 10]\n\n");
  std::printf(
      "| type | threads | std::exp ms | fusedsl::math::exp ms | speed-up | std elem/ns | fusedsl elem/ns | check |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  exp_fma_table<float>(n, repeats, threads_all, seed);
  exp_fma_table<double>(n, repeats, threads_all, seed);
  std::printf(
      "\nAdam's update of p, m, v from g (float): p -= lr m / (sqrt(v) + eps), std::sqrt against "
      "vector_math::sqrt\n\n");
  std::printf("| threads | std::sqrt ms | vector_math::sqrt ms | speed-up | std GB/s | vector_math GB/s | check |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  adam_table(n, repeats, threads_all, seed);
  std::printf(
      "\nThroughput of y[i] = f(a[i]) in elements/ns (higher is better); max err: against long double, in ulps\n");
  const std::vector<std::string> only(argv + std::min(argc, 3), argv + argc);
  function_table<float>(n, repeats, threads_all, seed, only);
  function_table<double>(n, repeats, threads_all, seed, only);
  return 0;
}
