// RMS normalization (as in LLaMA-style transformers): each row divided by
// its root mean square, times a weight. One kernel; bf16 storage, computed
// in f32 like PyTorch does.
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // rmsnorm: program
  constexpr fx::in<"x", fx::bfloat16, 2> x;  // [tokens, hidden], bf16 in memory
  constexpr fx::in<"weight", fx::bfloat16, 1> weight;
  constexpr fx::out<"y", fx::bfloat16, 2> y;
  constexpr float eps = 1e-6f;
  // The square, the mean and the scaling compute in f32; y rounds to bf16.
  constexpr fx::program rmsnorm{
      y = x * fx::rsqrt(fx::mean(x * x, fx::axis<-1>) + eps) * weight,
  };
  static_assert(fx::kernel_count(rmsnorm) == 1);
  // rmsnorm: end

  const std::int64_t tokens = 32, hidden = 1024;
  const auto input = examples::random_tensor<fx::bfloat16>({tokens, hidden}, 1);
  const auto w = examples::random_tensor<fx::bfloat16>({hidden}, 2, 1.0, 0.1);
  fx::tensor<fx::bfloat16> result({tokens, hidden}), expected({tokens, hidden});
  rmsnorm.run(fx::cpu, x(input), weight(w), y(result));

  fx::run_reference(rmsnorm, x(input), weight(w), y(expected));
  // The reference computes in double, the kernel in f32: both round to bf16,
  // and may land on neighbouring values (one bf16 step: 2^-7 relative at most).
  return examples::matches("y", result, expected, 0.0, 1.0 / 128) ? EXIT_SUCCESS : EXIT_FAILURE;
}
