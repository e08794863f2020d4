/// @file harness.hpp
/// The CPU side of the matrix's harness: fresh random inputs, one checked run
/// against the oracle before any timing, then the median of timed runs, and the
/// copy bandwidth measured in the same process (the limit). Families
/// (families.hpp) describe the work; this file measures it the same way for
/// all of them.
#pragma once
#include <algorithm>         // std::sort, std::max
#include <chrono>            // std::chrono::steady_clock
#include <cmath>             // std::abs, std::sqrt, std::isnan
#include <cstdint>           // std::int64_t
#include <cstring>           // std::memcpy
#include <functional>        // std::function
#include <initializer_list>  // std::initializer_list
#include <limits>            // std::numeric_limits
#include <string>            // std::string
#include <type_traits>       // std::is_integral_v
#include <vector>            // std::vector

#include <fusedsl/fusedsl.hpp>
#include <support/random.hpp>  // random_tensor (tests/support)

#include "workloads.hpp"  // workload

namespace matrix {

namespace fx = fusedsl;
using fx::testing::random_tensor;

/// A list of types: the element types a family is built for; the families.
template <class... T>
struct type_list {};

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

/// How an output compared with the oracle's.
struct comparison {
  double max_abs = 0, max_rel = 0;  ///< largest errors (relative to max(|expected|, 1))
  bool ok = true;                   ///< within the tolerance at every element
};

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
    return c;
  };
}

/// The size of the partial sums of `n` random inputs in [-2, 2): about 4 sqrt(n).
inline double sum_magnitude(std::int64_t n) { return 4 * std::sqrt(static_cast<double>(n)); }

/// What one workload measured.
struct measurement {
  double ms = 0;     ///< median time of a run (0 when only checked)
  double bytes = 0;  ///< what the work must move: every input read once, every output written once
  comparison error;  ///< the worst output
};

/// Runs and times workloads on the CPU.
class harness {
 public:
  /// `check_only`: one checked run per workload, no timing (CI); `repetitions`: timed runs.
  harness(bool check_only, int repetitions) : check_only_(check_only), repetitions_(repetitions) {}

  /// A fresh seed for the next random input.
  std::uint64_t next_seed() { return ++seed_; }

  /// Runs `run(fx::cpu)` and `reference()` once and compares the outputs (`checks`),
  /// then times `run(fx::cpu)`: the median of `repetitions` runs after 3 warm-up runs.
  template <class Run, class Reference>
  measurement measure(std::int64_t bytes, Run run, Reference reference, std::initializer_list<check> checks) {
    measurement m;
    m.bytes = static_cast<double>(bytes);
    run(fx::cpu);
    reference();
    for (const check& c : checks) {
      const comparison r = c();
      m.error.max_abs = std::max(m.error.max_abs, r.max_abs);
      m.error.max_rel = std::max(m.error.max_rel, r.max_rel);
      m.error.ok = m.error.ok && r.ok;
    }
    if (check_only_) return m;
    m.ms = median_ms([&] { run(fx::cpu); });
    return m;
  }

  /// The copy bandwidth in GB/s: the median of copies of 256 MiB, in parallel as the
  /// kernels run (the limit a memory-bound workload can reach).
  double copy_gbs() {
    const std::int64_t n = std::int64_t{32} << 20;  // doubles
    fx::tensor<double> from({n}), to({n});
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
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

  bool check_only_;
  int repetitions_;
  std::uint64_t seed_ = 0;
};

}  // namespace matrix
