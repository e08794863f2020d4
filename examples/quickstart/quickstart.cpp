// The flagship example: softmax over the rows of a matrix, written as one
// expression, run on the CPU, and checked against the reference interpreter.
#include <cmath>   // std::fabs
#include <cstdio>  // std::printf
#include <random>  // std::mt19937

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

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
  const fx::shape sizes{3, 5};
  fx::tensor<float> input(sizes), result(sizes), expected(sizes);
  std::mt19937 generator(2026);
  std::normal_distribution<float> normal;
  for (std::int64_t i = 0; i < input.numel(); ++i) input.data()[i] = normal(generator);

  // quickstart: run
  softmax.run(fx::cpu, x(input), y(result));
  fx::run_reference(softmax, x(input), y(expected));  // the oracle, in double precision
  // quickstart: end

  std::printf("program:  y = %s\n", fx::to_string(softmax.statements[boost::hana::size_c<0>].value).c_str());
  constexpr int kernels = fx::kernel_count(softmax);  // a constant: the scheduler is not compiled to code
  std::printf("kernels:  %d (checked at compile time)\n\n", kernels);
  double worst = 0;
  for (std::int64_t r = 0; r < sizes[0]; ++r) {
    std::printf("x[%lld] =", static_cast<long long>(r));
    for (std::int64_t c = 0; c < sizes[1]; ++c) std::printf(" %8.4f", input(r, c));
    std::printf("\ny[%lld] =", static_cast<long long>(r));
    double row_sum = 0;
    for (std::int64_t c = 0; c < sizes[1]; ++c) {
      std::printf(" %8.4f", result(r, c));
      row_sum += result(r, c);
      worst = std::fmax(worst, std::fabs(result(r, c) - expected(r, c)));
    }
    std::printf("   (row sum %.6f)\n", row_sum);
  }
  const bool ok = worst <= 1e-6;
  std::printf("\nlargest difference from the reference interpreter: %.3g -> %s\n", worst, ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
