/// @file driver.hpp
/// The command line both matrix benchmarks share (bench_matrix_cpu, bench_matrix_cuda):
/// reads the workload list, matches every cell to a family built for its element type
/// before running anything, runs the cells through a harness, prints a markdown table
/// and, with --tsv, writes the rows report.py reads.
#pragma once
#include <cstdio>            // std::printf, std::FILE
#include <cstdlib>           // std::atoi
#include <ctime>             // std::time, std::strftime
#include <fstream>           // std::ifstream
#include <initializer_list>  // std::initializer_list
#include <sstream>           // std::stringstream
#include <stdexcept>         // std::runtime_error
#include <string>            // std::string

#include "families.hpp"   // the families
#include "harness.hpp"    // measurement, type_list
#include "workloads.hpp"  // parse_workloads

namespace matrix {

/// `F::run<T>` for the element type the cell names, if F is built for it (with no
/// harness: only whether it is).
template <class F, class H, class T, class... Rest>
bool run_typed(const workload& w, H* h, measurement& m, type_list<T, Rest...>) {
  if (w.dtype == element_name<T>()) {
    if (h) m = F::template run<T>(w, *h);
    return true;
  }
  if constexpr (sizeof...(Rest) > 0) return run_typed<F>(w, h, m, type_list<Rest...>{});
  else return false;
}

/// Runs cell `w` with `h` (with no harness: only looks) when one of `Families` is named
/// by it, and says whether one is; throws when that family is not built for the cell's
/// element type.
template <class H, class F, class... Rest>
bool run_family(const workload& w, H* h, measurement& m, type_list<F, Rest...>) {
  if (w.family == F::name) {
    if (!run_typed<F>(w, h, m, typename F::types{}))
      throw std::runtime_error("line " + std::to_string(w.line) + ": family " + w.family + " is not built for " +
                               w.dtype + " (add the type to its `types` in bench/matrix/families.hpp)");
    return true;
  }
  if constexpr (sizeof...(Rest) > 0) return run_family(w, h, m, type_list<Rest...>{});
  else return false;
}

/// A part of the families (families.hpp), compiled in a translation unit of its own:
/// `run_family` over the part, for harness H.
template <class H>
using family_part = bool (*)(const workload& w, H* h, measurement& m);

/// Runs cell `w` with `h` (with no harness: only looks) through the part that has its
/// family; throws when none has it.
template <class H>
measurement run_cell(const workload& w, H* h, std::initializer_list<family_part<H>> parts) {
  measurement m;
  for (const family_part<H> part : parts)
    if (part(w, h, m)) return m;
  throw std::runtime_error("line " + std::to_string(w.line) + ": no family \"" + w.family + "\"");
}

/// The command line of a matrix benchmark.
struct options {
  bool quick = false;       ///< only the cells tagged `quick`
  bool check_only = false;  ///< one checked run per cell, no timing
  int reps = 0;             ///< timed runs per cell (0: the harness's default)
  std::string family;       ///< only this family
  std::string list = FUSEDSL_MATRIX_LIST;
  std::string tsv;     ///< also write the rows here, for report.py
  bool cells = false;  ///< only list the cells (as peers.py --cells does), run nothing
};

/// Parses `argv`; throws with the argument at fault.
inline options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--quick") o.quick = true;
    else if (a == "--check") o.check_only = true;
    else if (a == "--family") o.family = value();
    else if (a == "--reps") o.reps = std::max(1, std::atoi(value().c_str()));
    else if (a == "--list") o.list = value();
    else if (a == "--tsv") o.tsv = value();
    else if (a == "--cells") o.cells = true;
    else throw std::runtime_error("unknown argument " + a);
  }
  return o;
}

/// The whole benchmark: `make(check_only, reps)` builds the harness H, which names its
/// target (`target_name`, the list's backend tag), describes where it runs
/// (`describe()`) and measures the copy bandwidth (`copy_gbs()`); `parts` run the
/// families. Returns the exit code: 0 when every cell ran and matched, 1 on a mismatch,
/// 2 on a bad list or command line.
template <class H, class Make>
int run_matrix(int argc, char** argv, const char* tool, Make make, std::initializer_list<family_part<H>> parts) {
  options o;
  try {
    o = parse_options(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(
        stderr,
        "%s: %s\nusage: %s [--quick] [--check] [--family NAME] [--reps N] [--list FILE] [--tsv FILE] [--cells]\n", tool,
        e.what(), tool);
    return 2;
  }
  try {
    std::ifstream in(o.list);
    if (!in) throw std::runtime_error("cannot open " + o.list);
    std::stringstream text;
    text << in.rdbuf();
    const auto cells = parse_workloads(text.str(), o.list);
    for (const workload& w : cells) run_cell<H>(w, nullptr, parts);  // all runnable?
    if (o.cells) {
      for (const workload& w : cells)
        std::printf("%s %s %s %s%s\n", w.family.c_str(), w.dtype.c_str(), w.shape_text().c_str(),
                    w.backend.empty() ? "any" : w.backend.c_str(), w.quick ? " quick" : "");
      return 0;
    }
    H h = make(o.check_only, o.reps);
    std::FILE* tsv = o.tsv.empty() ? nullptr : std::fopen(o.tsv.c_str(), "w");
    if (!o.tsv.empty() && !tsv) throw std::runtime_error("cannot write " + o.tsv);
    const double copy = o.check_only ? 0 : h.copy_gbs();
    const std::string where = h.describe();
    std::printf("fusedsl on %s%s; copy bandwidth %.1f GB/s\n\n", where.c_str(),
                o.check_only ? " (checked, not timed)" : "", copy);
    std::printf(
        "| family | dtype | shape | ms | GB/s | %% of copy | kernels | launches | host us | max rel err | check |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    char date[16];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
    if (tsv)
      std::fprintf(
          tsv,
          "# %s; copy GB/s %.2f; %s\nfamily\tdtype\tshape\tms\tgbs\tkernels\tlaunches\thost_us\tmax_rel\tok\tdigest\n",
          where.c_str(), copy, date);
    int failures = 0, ran = 0;
    for (const workload& w : cells) {
      if ((o.quick && !w.quick) || (!o.family.empty() && w.family != o.family) || !w.runs_on(H::target_name)) continue;
      h.start_cell();
      const measurement m = run_cell(w, &h, parts);
      ++ran;
      failures += m.error.ok ? 0 : 1;
      const double gbs = m.ms > 0 ? m.bytes / (m.ms * 1e6) : 0;
      std::printf("| %s | %s | %s | %.4f | %.1f | %.0f%% | %d | %d | %.1f | %.2e | %s |\n", w.family.c_str(),
                  w.dtype.c_str(), w.shape_text().c_str(), m.ms, gbs, copy > 0 ? 100 * gbs / copy : 0.0, m.kernels,
                  m.launches, m.host_us, m.error.max_rel, m.error.ok ? "ok" : "MISMATCH");
      std::fflush(stdout);
      if (tsv)
        std::fprintf(tsv, "%s\t%s\t%s\t%.6f\t%.2f\t%d\t%d\t%.2f\t%.3e\t%d\t%s\n", w.family.c_str(), w.dtype.c_str(),
                     w.shape_text().c_str(), m.ms, gbs, m.kernels, m.launches, m.host_us, m.error.max_rel,
                     m.error.ok ? 1 : 0, m.error.digest.c_str());
      if (tsv) std::fflush(tsv);  // a run cut short keeps its rows
    }
    if (tsv) std::fclose(tsv);
    std::printf("\n%d cells, %d mismatches\n", ran, failures);
    return failures == 0 && ran > 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return 2;
  }
}

}  // namespace matrix
