// bench_math_exhaustive: every float input (all 2^32 bit patterns) of each
// float function of vector_math against the function computed in long
// double: max error in ulps, where, and how many results are off by more
// than 0.5 ulp (not correctly rounded). Special values must match exactly
// (NaN for NaN). sqrt is also compared bit for bit (NaN payloads included)
// with std::sqrt: "bits differ from std".
// OpenMP over the inputs; minutes on 16 cores.
//
//   bench_math_exhaustive [function ...]
//
// BENCH_EXHAUSTIVE_PART=k/n runs only the k-th of n equal parts of the bit
// patterns (k = 0 .. n-1), for separate processes; the maximum is then the
// largest of the parts' and the counts their sum.
#include <omp.h>

#include <cmath>    // std::exp, ...
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <cstdio>   // std::printf, std::sscanf
#include <cstdlib>  // std::getenv
#include <cstring>  // std::strcmp

#include <fusedsl/core/vector_math.hpp>

namespace {

namespace vm = fusedsl::vector_math;
using ld = long double;

double ulp_error(float y, ld r) {
  if (std::isnan(r)) return std::isnan(y) ? 0.0 : 1e30;
  if (std::isnan(y)) return 1e30;
  if (std::isinf(static_cast<float>(r))) return y == static_cast<float>(r) ? 0.0 : 1e30;
  int e = 0;
  std::frexp(r, &e);
  e -= 1;
  if (e < -126) e = -126;
  if (e > 127) e = 127;
  const ld yv = std::isinf(y) ? std::copysign(std::ldexp(ld(1), 128), ld(y)) : ld(y);
  return static_cast<double>(std::fabs(yv - r) / std::ldexp(ld(1), e - 23));
}

ld gelu_tanh_ref(ld x) {
  const ld v = 2 * ld(0.79788456080286535588f) * (x + ld(0.044715f) * x * x * x);
  return x / (1 + std::exp(-v));
}

struct fn {
  const char* name;
  float (*f)(float);
  ld (*ref)(ld);
  float (*same_as)(float) = nullptr;  // must give the same bits (sqrt, rsqrt)
};
const fn kFns[] = {
    {"exp", [](float x) { return vm::exp(x); }, [](ld x) { return std::exp(x); }},
    {"expm1", [](float x) { return vm::expm1(x); }, [](ld x) { return std::expm1(x); }},
    {"log", [](float x) { return vm::log(x); }, [](ld x) { return std::log(x); }},
    {"log1p", [](float x) { return vm::log1p(x); }, [](ld x) { return std::log1p(x); }},
    {"tanh", [](float x) { return vm::tanh(x); }, [](ld x) { return std::tanh(x); }},
    {"sigmoid", [](float x) { return vm::sigmoid(x); }, [](ld x) { return 1 / (1 + std::exp(-x)); }},
    {"silu", [](float x) { return vm::silu(x); }, [](ld x) { return x / (1 + std::exp(-x)); }},
    // erf and gelu_erf: references in double, 9 times faster than erfcl and as good here: glibc's
    // erf and erfc are within 1 ulp of double (2^-28 of a float ulp); the rounding of x/sqrt 2
    // changes erfc by at most 2 z^2 2^-53 < 2^-45 (z < 10.3, below that gelu is -0).
    {"erf", [](float x) { return vm::erf(x); }, [](ld x) { return ld(std::erf(double(x))); }},
    {"gelu_erf", [](float x) { return vm::gelu_erf(x); },
     [](ld x) { return ld(0.5 * double(x) * std::erfc(-double(x) / std::sqrt(2.0))); }},
    {"gelu_tanh", [](float x) { return vm::gelu_tanh(x); }, gelu_tanh_ref},
    // sin and cos: the stated range |x| < 2^27 pi/2 (2.1e8) only.
    {"sin", [](float x) { return vm::sin(x); }, [](ld x) { return std::sin(x); }},
    {"cos", [](float x) { return vm::cos(x); }, [](ld x) { return std::cos(x); }},
    {"sqrt", [](float x) { return vm::sqrt(x); }, [](ld x) { return std::sqrt(x); },
     [](float x) { return std::sqrt(x); }},
    {"rsqrt", [](float x) { return vm::rsqrt(x); }, [](ld x) { return 1 / std::sqrt(x); }},
};

}  // namespace

int main(int argc, char** argv) {
  std::int64_t first = 0, last = std::int64_t(1) << 32;  // the bit patterns [first, last)
  if (const char* part = std::getenv("BENCH_EXHAUSTIVE_PART")) {
    int k = 0, n = 1;
    if (std::sscanf(part, "%d/%d", &k, &n) != 2 || n < 1 || k < 0 || k >= n) {
      std::fprintf(stderr, "BENCH_EXHAUSTIVE_PART must be k/n with 0 <= k < n, not '%s'\n", part);
      return 1;
    }
    first = last / n * k;
    last = k == n - 1 ? last : last / n * (k + 1);
    std::printf("part %d/%d: bit patterns 0x%llx to 0x%llx\n", k, n, static_cast<unsigned long long>(first),
                static_cast<unsigned long long>(last - 1));
  }
  std::printf(
      "| function | max error (ulp) | at x | results not correctly rounded | inputs | bits differ from std "
      "|\n|---|---|---|---|---|---|\n");
  for (const fn& F : kFns) {
    bool wanted = argc == 1;
    for (int i = 1; i < argc; ++i) wanted = wanted || std::strcmp(argv[i], F.name) == 0;
    if (!wanted) continue;
    const bool trig = std::strcmp(F.name, "sin") == 0 || std::strcmp(F.name, "cos") == 0;
    double worst = 0;
    float worst_x = 0;
    std::uint64_t above_half = 0, count = 0, differ = 0;
#pragma omp parallel
    {
      double w = 0;
      float wx = 0;
      std::uint64_t ah = 0, c = 0, d = 0;
#pragma omp for schedule(dynamic, 1 << 16)
      for (std::int64_t u = first; u < last; ++u) {
        const float x = __builtin_bit_cast(float, static_cast<std::uint32_t>(u));
        if (trig && !(std::fabs(x) < 2.1e8f)) continue;
        const float y = F.f(x);
        const double e = ulp_error(y, F.ref(static_cast<ld>(x)));
        if (F.same_as) d += __builtin_bit_cast(std::uint32_t, y) != __builtin_bit_cast(std::uint32_t, F.same_as(x));
        ++c;
        if (e > 0.5) ++ah;
        if (e > w) {
          w = e;
          wx = x;
        }
      }
#pragma omp critical
      {
        if (w > worst) {
          worst = w;
          worst_x = wx;
        }
        above_half += ah;
        count += c;
        differ += d;
      }
    }
    char differ_text[32] = "-";
    if (F.same_as) std::snprintf(differ_text, sizeof differ_text, "%llu", static_cast<unsigned long long>(differ));
    std::printf("| %s | %.3f | %a | %llu | %llu | %s |\n", F.name, worst, static_cast<double>(worst_x),
                static_cast<unsigned long long>(above_half), static_cast<unsigned long long>(count), differ_text);
    std::fflush(stdout);
  }
  return 0;
}
