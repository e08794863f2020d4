/// @file harness.hpp
/// What every side of the matrix shares: the inputs (a counter-based hash that
/// peers.py reproduces, so torch sees the same numbers), the comparison with the
/// oracle, medians, and the CPU harness. A harness runs a family's work once,
/// compares it with the oracle, then times it; `place` puts a family's bindings
/// where the harness runs them (the CPU: as they are; cuda_harness.hpp: device copies).
#pragma once
#include <algorithm>         // std::sort, std::max
#include <chrono>            // std::chrono::steady_clock
#include <cmath>             // std::abs, std::sqrt, std::isnan
#include <cstdint>           // std::int64_t, std::uint32_t
#include <cstdio>            // std::snprintf
#include <functional>        // std::function
#include <initializer_list>  // std::initializer_list
#include <string>            // std::string
#include <type_traits>       // std::is_integral_v
#include <vector>            // std::vector

#include <omp.h>  // omp_get_max_threads

#include <fusedsl/fusedsl.hpp>

#ifndef FUSEDSL_MATRIX_BUILD
#  define FUSEDSL_MATRIX_BUILD "as configured"  ///< how the benchmark was compiled, for its tables
#endif

namespace matrix {

namespace fx = fusedsl;

/// A list of types: the element types a family is built for; the families.
template <class... T>
struct type_list {};
/// The types of list A, then those of list B.
template <class A, class B>
struct concat;
template <class... A, class... B>
struct concat<type_list<A...>, type_list<B...>> {
  using type = type_list<A..., B...>;
};
template <class A, class B>
using concat_t = typename concat<A, B>::type;

/// The workload list's name of element type `T`.
template <class T>
constexpr const char* element_name() {
  if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, fx::bfloat16>) return "bf16";
  else if constexpr (std::is_same_v<T, fx::half>) return "f16";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
  else return "i32";
}

/// Element `i` of input number `seed` of a cell as 32 random bits (lowbias32 of the
/// index offset by the seed). peers.py computes the same hash, so both sides see the
/// same inputs; changing it means changing both.
constexpr std::uint32_t input_bits(std::int64_t i, std::uint32_t seed) {
  std::uint32_t h = static_cast<std::uint32_t>(i) + seed * 0x9E3779B9u;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

/// Input number `seed` of a cell: floating values k/2^22 in [-2, 2) (exact in f32, rounded
/// to nearest for f16 and bf16), integers in [-20, 20), bools from the top bit.
template <class T>
fx::tensor<T> input_tensor(const fx::shape& s, std::uint32_t seed) {
  fx::tensor<T> t(s);
  T* data = t.data();
  const std::int64_t n = t.numel();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t h = input_bits(i, seed);
    if constexpr (std::is_same_v<T, bool>) data[i] = (h >> 31) != 0;
    else if constexpr (std::is_integral_v<T>) data[i] = static_cast<T>(static_cast<std::int64_t>(h % 40) - 20);
    else data[i] = static_cast<T>(static_cast<double>(h >> 8) * 0x1p-22 - 2.0);
  }
  return t;
}

/// How an output compared with the oracle's.
struct comparison {
  double max_abs = 0, max_rel = 0;  ///< largest errors (relative to max(|expected|, 1))
  bool ok = true;                   ///< within the tolerance at every element
  std::string digest;               ///< output_digest of the output (of each, `;`-separated, once folded)
};

/// What report.py compares with torch's output on the same inputs: the sum of the
/// elements, the sum of their magnitudes (NaNs left out) and the elements at flat
/// positions 0, n/3, 2n/3 and n-1, as `sum:abs:v0:v1:v2:v3` (peers.py writes the same).
template <class A>
std::string output_digest(const fx::tensor<A>& t) {
  const A* a = t.data();
  const std::int64_t n = t.numel();
  double sum = 0, magnitude = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(a[i]);
    if (std::isnan(v)) continue;
    sum += v;
    magnitude += std::abs(v);
  }
  char text[160];
  std::snprintf(text, sizeof text, "%.9g:%.9g:%.9g:%.9g:%.9g:%.9g", sum, magnitude, static_cast<double>(a[0]),
                static_cast<double>(a[n / 3]), static_cast<double>(a[2 * n / 3]), static_cast<double>(a[n - 1]));
  return text;
}

/// A deferred comparison: evaluated after the checked run.
using check = std::function<comparison()>;

/// Compares `actual` with the oracle's `expected` once run: exact for integers; for
/// floating types one rounding of the stored type plus `ops` roundings of the type
/// computed in (f64 for f64, else f32), each growing with the square root of the
/// `reduced` elements combined into one result, relative to the larger of |expected|
/// and `magnitude` (sums of random inputs: their partial sums, about 4 sqrt(reduced)).
template <class A, class E>
check compare(const fx::tensor<A>& actual, const fx::tensor<E>& expected, int ops, std::int64_t reduced = 1,
              double magnitude = 1) {
  return [&actual, &expected, ops, reduced, magnitude] {
    comparison c;
    double tol = 0;
    if constexpr (!std::is_integral_v<A>) {
      const double stored = std::is_same_v<A, double>         ? 0x1p-52
                            : std::is_same_v<A, float>        ? 0x1p-23
                            : std::is_same_v<A, fx::bfloat16> ? 0x1p-7
                                                              : 0x1p-10;
      const double computed = std::is_same_v<A, double> ? 0x1p-52 : 0x1p-23;
      tol = stored + computed * ops * (4 + 2 * std::sqrt(static_cast<double>(reduced)));
    }
    const auto a = actual.view(), e = expected.view();
    for (std::int64_t i = 0; i < a.numel(); ++i) {
      const double x = static_cast<double>(a.data()[i]), y = static_cast<double>(e.data()[i]);
      if (std::isnan(x) && std::isnan(y)) continue;
      const double err = std::abs(x - y), rel = err / std::max(std::abs(y), 1.0);
      c.max_abs = std::max(c.max_abs, err);
      c.max_rel = std::max(c.max_rel, rel);
      if (!(err <= tol * std::max(std::abs(y), magnitude))) c.ok = false;
    }
    c.digest = output_digest(actual);
    return c;
  };
}

/// The size of the partial sums of `n` random inputs in [-2, 2): about 4 sqrt(n).
inline double sum_magnitude(std::int64_t n) { return 4 * std::sqrt(static_cast<double>(n)); }

/// What one cell measured.
struct measurement {
  double ms = 0;       ///< median time of a run (0 when only checked)
  double bytes = 0;    ///< what the work must move: every input read once, every output written once
  comparison error;    ///< the worst output
  int kernels = 0;     ///< fx::kernel_count of the program
  double host_us = 0;  ///< median host time of one call (CUDA: the launches, not waited for)
  int launches = -1;   ///< kernel nodes of a CUDA graph captured from one run (-1: not measured)
};

/// The median of `t` (sorted in place).
inline double median(std::vector<double>& t) {
  std::sort(t.begin(), t.end());
  return t.empty() ? 0 : t[t.size() / 2];
}

/// The checked run both harnesses begin with: `run_once()`, then `reference()`, then the
/// comparisons (`checks`) folded into the cell's measurement.
template <class RunOnce, class Reference>
measurement checked_run(std::int64_t bytes, int kernels, RunOnce run_once, Reference reference,
                        std::initializer_list<check> checks) {
  measurement m;
  m.bytes = static_cast<double>(bytes);
  m.kernels = kernels;
  run_once();
  reference();
  for (const check& c : checks) {
    const comparison r = c();
    m.error.max_abs = std::max(m.error.max_abs, r.max_abs);
    m.error.max_rel = std::max(m.error.max_rel, r.max_rel);
    m.error.ok = m.error.ok && r.ok;
    m.error.digest += (m.error.digest.empty() ? "" : ";") + r.digest;
  }
  return m;
}

/// What both harnesses share: the numbering of a cell's inputs and the run counts.
class harness_base {
 public:
  /// `check_only`: one checked run per cell, no timing (CI); `repetitions`: timed runs.
  harness_base(bool check_only, int repetitions) : check_only_(check_only), repetitions_(repetitions) {}

  /// Starts a cell: its inputs are numbered from 1 again (as peers.py numbers them).
  void start_cell() { seed_ = 0; }
  /// The next input of the cell, in the order the family declares its inputs.
  template <class T>
  fx::tensor<T> input(const fx::shape& s) {
    return input_tensor<T>(s, ++seed_);
  }

 protected:
  bool check_only_;
  int repetitions_;
  std::uint32_t seed_ = 0;
};

/// Runs and times cells on the CPU (threads: OMP_NUM_THREADS).
class cpu_harness : public harness_base {
 public:
  using harness_base::harness_base;
  static constexpr const char* target_name = "cpu";

  /// Where it runs: the thread count and the build (FUSEDSL_MATRIX_BUILD, set by CMake).
  static std::string describe() {
    return "the CPU, " + std::to_string(omp_get_max_threads()) + " threads, built " + FUSEDSL_MATRIX_BUILD;
  }

  /// Runs `run(fx::cpu, place)` and `reference()` once and compares the outputs
  /// (`checks`), then times `run`: the median of `repetitions` runs after 3 warm-up runs.
  template <class Run, class Reference>
  measurement measure(std::int64_t bytes, int kernels, Run run, Reference reference,
                      std::initializer_list<check> checks) {
    const auto place = [](const auto& binding) { return binding; };
    measurement m = checked_run(
        bytes, kernels, [&] { run(fx::cpu, place); }, reference, checks);
    if (check_only_) return m;
    m.ms = median_ms([&] { run(fx::cpu, place); });
    m.host_us = 1000 * m.ms;
    return m;
  }

  /// The copy bandwidth in GB/s: the median of copies of 256 MiB, in parallel as the
  /// kernels run (the limit a memory-bound workload can reach).
  double copy_gbs() {
    const std::int64_t n = std::int64_t{32} << 20;  // doubles
    fx::tensor<double> from = fx::tensor<double>::full({n}, 1.0), to({n});
    double* src = from.data();
    double* dst = to.data();
    const double ms = median_ms([&] {
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i];
    });
    return 2.0 * static_cast<double>(n) * sizeof(double) / (ms * 1e6);
  }

 private:
  template <class F>
  double median_ms(F f) {
    for (int i = 0; i < 3; ++i) f();
    std::vector<double> t;
    for (int i = 0; i < repetitions_; ++i) {
      const auto start = std::chrono::steady_clock::now();
      f();
      t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return median(t);
  }
};

}  // namespace matrix
