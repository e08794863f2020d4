// Several outputs from one input: statistics of each row and an activation.
// The three statements are independent; the scheduler fuses them
// horizontally, so x is read from memory once instead of three times.
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // horizontal: program
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"row_sum", float, 1> row_sum;
  constexpr fx::out<"row_max", float, 1> row_max;
  constexpr fx::out<"relu", float, 2> relu;
  constexpr fx::program stats{
      row_sum = fx::sum(x, fx::axis<1>, fx::drop_axes),  // drop_axes: [rows], not [rows, 1]
      row_max = fx::max(x, fx::axis<1>, fx::drop_axes),
      relu = fx::maximum(x, 0.0f),
  };
  static_assert(fx::kernel_count(stats) == 1);
  // horizontal: end

  const std::int64_t rows = 128, cols = 512;
  const auto input = examples::random_tensor<float>({rows, cols}, 1);
  fx::tensor<float> sums({rows}), maxima({rows}), activations({rows, cols});
  stats.run(fx::cpu, x(input), row_sum(sums), row_max(maxima), relu(activations));

  fx::tensor<float> sums_expected({rows}), maxima_expected({rows}), activations_expected({rows, cols});
  fx::run_reference(stats, x(input), row_sum(sums_expected), row_max(maxima_expected), relu(activations_expected));
  // `&`, not `&&`: every comparison runs and prints.
  const bool ok = examples::matches("row_sum", sums, sums_expected, 1e-4) &
                  examples::matches("row_max", maxima, maxima_expected) &
                  examples::matches("relu", activations, activations_expected);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
