// The flagship example: softmax over the rows of an 8192 x 1024 matrix, written as
// one expression. It prints the plan fusedsl computed while compiling (one kernel;
// the row maxima and sums never reach memory), checks the result against the
// reference interpreter, and times the fused run against the same program unfused
// (every node a loop of its own), with the memory each must move.
#include <algorithm>  // std::sort, std::find
#include <chrono>     // std::chrono::steady_clock
#include <cmath>      // std::fabs, std::fmax
#include <cstdint>    // std::int64_t
#include <cstdio>     // std::printf
#include <random>     // std::mt19937
#include <string>     // std::string
#include <vector>     // std::vector

#include <omp.h>  // omp_get_max_threads

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

namespace {

/// Median time of `runs` calls of `f` after one call to warm up, in milliseconds.
template <class F>
double median_ms(int runs, F&& f) {
  f();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Bytes that kernels grouped as `groups` (graph node ids) must move at least, for a
/// program whose buffers are the matrix (inputs, pointwise values: `matrix` bytes) or
/// one value per row (reductions: `row` bytes): each kernel reads once what it does not
/// compute itself and writes once what it keeps (`kept`, per group).
std::int64_t least_traffic(const fx::graph& g, const std::vector<std::vector<int>>& groups,
                           const std::vector<std::vector<int>>& kept, std::int64_t matrix, std::int64_t row) {
  const auto bytes = [&](int buffer) {
    const int producer = g.buffer(buffer).producer;
    return producer >= 0 && g.node(producer).kind == fx::node_kind::reduction ? row : matrix;
  };
  std::int64_t total = 0;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    std::vector<int> read;
    for (const int n : groups[k])
      for (const int d : g.node(n).reads) {
        const int buffer = g.get_dep(d).buffer;
        const int producer = g.buffer(buffer).producer;
        const bool inside = std::find(groups[k].begin(), groups[k].end(), producer) != groups[k].end();
        if (g.get_dep(d).kind == fx::dep_kind::memory && !inside &&
            std::find(read.begin(), read.end(), buffer) == read.end())
          read.push_back(buffer);
      }
    for (const int buffer : read) total += bytes(buffer);
    for (const int buffer : kept[k]) total += bytes(buffer);
  }
  return total;
}

}  // namespace

int main() {
  // quickstart: program
  // The program: placeholders have compile-time names, element types and ranks.
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program softmax{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                    fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
  // The fusion plan is computed while compiling: softmax is one kernel.
  static_assert(fx::kernel_count(softmax) == 1);
  // quickstart: end

  // Inputs: sizes are run-time values.
  const std::int64_t rows = 8192, cols = 1024;
  const fx::shape sizes{rows, cols};
  fx::tensor<float> input(sizes), result(sizes), expected(sizes);
  std::mt19937 generator(2026);
  std::normal_distribution<float> normal;
  for (std::int64_t i = 0; i < input.numel(); ++i) input.data()[i] = normal(generator);

  // quickstart: run
  softmax.run(fx::cpu, x(input), y(result));
  fx::run_reference(softmax, x(input), y(expected));  // the oracle, in double precision
  // quickstart: end

  std::printf("softmax over the rows of a %lld x %lld float matrix (%.0f MiB), on the CPU with %d threads\n\n",
              static_cast<long long>(rows), static_cast<long long>(cols),
              static_cast<double>(input.numel()) * 4 / (1 << 20), omp_get_max_threads());
  std::printf("program:  y = %s\n\n", fx::to_string(softmax.statements[boost::hana::size_c<0>].value).c_str());

  // The plan, as fx::explain prints it: its kernels, what each writes to memory, and
  // what stays inside the kernel (in registers or cache) instead.
  const fx::plan plan = fx::plan_of(softmax);
  const std::string explained = fx::explain(plan);
  const std::size_t kernels = explained.rfind("\n" + std::to_string(plan.group_count()) + " kernel") + 1;
  std::printf("plan (computed while compiling):\n%s\n", explained.substr(kernels).c_str());

  double worst = 0;
  for (std::int64_t i = 0; i < result.numel(); ++i)
    worst = std::fmax(worst, std::fabs(result.data()[i] - expected.data()[i]) / std::fmax(expected.data()[i], 1e-30));
  const bool ok = worst <= 1e-5;
  std::printf("largest relative difference from the reference interpreter: %.3g -> %s\n\n", worst,
              ok ? "OK" : "MISMATCH");

  // Fused and unfused (every node its own loop: each writes its result and the next reads it).
  const double fused = median_ms(20, [&] { softmax.run(fx::cpu, x(input), y(result)); });
  const double unfused = median_ms(20, [&] { softmax.run(fx::cpu_unfused, x(input), y(result)); });
  const fx::graph g = fx::graph_of(softmax);
  std::vector<std::vector<int>> fused_groups, fused_kept, node_groups, node_kept;
  for (const fx::fused_group& k : plan.groups) {
    fused_groups.push_back(k.nodes);
    fused_kept.push_back(k.materialized);
  }
  for (int n = 0; n < g.size(); ++n) {
    node_groups.push_back({n});
    node_kept.push_back(g.node(n).buffers);
  }
  const std::int64_t matrix = input.numel() * 4, row = rows * 4;
  const double fused_mib = static_cast<double>(least_traffic(g, fused_groups, fused_kept, matrix, row)) / (1 << 20);
  const double unfused_mib = static_cast<double>(least_traffic(g, node_groups, node_kept, matrix, row)) / (1 << 20);
  std::printf("                 kernels   time (median of 20)   memory moved (at least)\n");
  std::printf("fx::cpu          %7d   %10.2f ms         %6.0f MiB (%.1f GB/s)\n", plan.group_count(), fused, fused_mib,
              fused_mib * (1 << 20) / fused / 1e6);
  std::printf("fx::cpu_unfused  %7d   %10.2f ms         %6.0f MiB (%.1f GB/s)\n", g.size(), unfused, unfused_mib,
              unfused_mib * (1 << 20) / unfused / 1e6);
  std::printf("fused: %.1fx faster, %.1fx less memory traffic\n", unfused / fused, unfused_mib / fused_mib);
  return ok ? 0 : 1;
}
