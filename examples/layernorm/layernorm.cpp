// Layer normalization with a weight and a bias, over the last axis of a
// matrix: one fused kernel computes the row means and variances and writes
// the normalized rows.
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // layernorm: program
  constexpr fx::in<"x", float, 2> x;            // [rows, features]
  constexpr fx::in<"weight", float, 1> weight;  // [features], broadcast over the rows
  constexpr fx::in<"bias", float, 1> bias;
  constexpr fx::out<"y", float, 2> y;
  constexpr float eps = 1e-5f;
  constexpr fx::program layernorm{
      y = (x - fx::mean(x, fx::axis<-1>)) * fx::rsqrt(fx::var(x, fx::axis<-1>, fx::correction{0}) + eps) * weight +
          bias,
  };
  // Both reductions and the pointwise tail fuse into one kernel.
  static_assert(fx::kernel_count(layernorm) == 1);
  // layernorm: end

  // layernorm: run
  const std::int64_t rows = 64, features = 768;
  const auto input = examples::random_tensor<float>({rows, features}, 1, 3.0, 2.0);
  const auto w = examples::random_tensor<float>({features}, 2, 1.0, 0.1);
  const auto b = examples::random_tensor<float>({features}, 3);
  fx::tensor<float> result({rows, features}), expected({rows, features});
  layernorm.run(fx::cpu, x(input), weight(w), bias(b), y(result));
  // layernorm: end

  fx::run_reference(layernorm, x(input), weight(w), bias(b), y(expected));
  return examples::matches("y", result, expected, 1e-5) ? EXIT_SUCCESS : EXIT_FAILURE;
}
