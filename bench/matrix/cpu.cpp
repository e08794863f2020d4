// bench_matrix_cpu: the performance matrix on the CPU (bench/matrix/README.md). Reads the
// workload list, runs each workload's fusedsl program on fresh random inputs, checks it
// against the oracle, times it, and prints one markdown table: median ms, GB/s, % of the
// copy bandwidth measured in the same run, the largest error. Exits 1 if any check fails.
//
//   bench_matrix_cpu [--quick] [--check] [--family NAME] [--reps N] [--list FILE]
//
// --quick: the workloads tagged `quick`; --check: one checked run each, no timing (CI).
// Before running anything, every workload of the list is matched to a family built for
// its element type, so that a list the binary cannot run fails at once.
// Threads: OMP_NUM_THREADS (pin with taskset and OMP_PROC_BIND for fair comparisons).
#include <cstdio>     // std::printf
#include <cstdlib>    // std::atoi
#include <fstream>    // std::ifstream
#include <sstream>    // std::stringstream
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string

#include <omp.h>  // omp_get_max_threads

#include "families.hpp"  // the families
#include "harness.hpp"   // harness

namespace {

using namespace matrix;

/// `F::run<T>` for the element type the workload names, if F is built for it (with no
/// harness: only whether it is).
template <class F, class T, class... Rest>
bool run_typed(const workload& w, harness* h, measurement& m, type_list<T, Rest...>) {
  if (w.dtype == element_name<T>()) {
    if (h) m = F::template run<T>(w, *h);
    return true;
  }
  if constexpr (sizeof...(Rest) > 0) return run_typed<F>(w, h, m, type_list<Rest...>{});
  else return false;
}

/// The family the workload names, run (with no harness: only found); throws when there is
/// no such family or element type.
template <class F, class... Rest>
measurement run_family(const workload& w, harness* h, type_list<F, Rest...>) {
  if (w.family == F::name) {
    measurement m;
    if (!run_typed<F>(w, h, m, typename F::types{}))
      throw std::runtime_error("line " + std::to_string(w.line) + ": family " + w.family + " is not built for " +
                               w.dtype + " (add the type to its `types` in bench/matrix/families.hpp)");
    return m;
  }
  if constexpr (sizeof...(Rest) > 0) return run_family(w, h, type_list<Rest...>{});
  else throw std::runtime_error("line " + std::to_string(w.line) + ": no family \"" + w.family + "\"");
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, check_only = false;
  int reps = 30;
  std::string only, list = FUSEDSL_MATRIX_LIST;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return std::string(argv[++i]);
    };
    try {
      if (a == "--quick") quick = true;
      else if (a == "--check") check_only = true;
      else if (a == "--family") only = value();
      else if (a == "--reps") reps = std::max(1, std::atoi(value().c_str()));
      else if (a == "--list") list = value();
      else throw std::runtime_error("unknown argument " + a);
    } catch (const std::exception& e) {
      std::fprintf(stderr,
                   "bench_matrix_cpu: %s\nusage: bench_matrix_cpu [--quick] [--check] [--family NAME] "
                   "[--reps N] [--list FILE]\n",
                   e.what());
      return 2;
    }
  }
  try {
    std::ifstream in(list);
    if (!in) throw std::runtime_error("cannot open " + list);
    std::stringstream text;
    text << in.rdbuf();
    const auto workloads = parse_workloads(text.str(), list);
    for (const workload& w : workloads) run_family(w, nullptr, all_families{});  // all runnable?
    harness h(check_only, reps);
    const double copy = check_only ? 0 : h.copy_gbs();
    std::printf("fusedsl on the CPU, %d threads%s; copy bandwidth %.1f GB/s\n\n", omp_get_max_threads(),
                check_only ? " (checked, not timed)" : "", copy);
    std::printf("| family | dtype | shape | ms | GB/s | %% of copy | max rel err | check |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
    int failures = 0, ran = 0;
    for (const workload& w : workloads) {
      if ((quick && !w.quick) || (!only.empty() && w.family != only)) continue;
      const measurement m = run_family(w, &h, all_families{});
      ++ran;
      failures += m.error.ok ? 0 : 1;
      const double gbs = m.ms > 0 ? m.bytes / (m.ms * 1e6) : 0;
      std::printf("| %s | %s | %s | %.4f | %.1f | %.0f%% | %.2e | %s |\n", w.family.c_str(), w.dtype.c_str(),
                  w.shape_text().c_str(), m.ms, gbs, copy > 0 ? 100 * gbs / copy : 0.0, m.error.max_rel,
                  m.error.ok ? "ok" : "MISMATCH");
    }
    std::printf("\n%d workloads, %d mismatches\n", ran, failures);
    return failures == 0 && ran > 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_matrix_cpu: %s\n", e.what());
    return 2;
  }
}
