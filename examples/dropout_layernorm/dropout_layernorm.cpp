// A transformer block's training-time epilogue: dropout on a sublayer's
// output, the residual add, then layer normalization, in one kernel with both
// the new residual stream and the normalized values as outputs. The dropout
// mask is drawn by Philox at each element's position (fx::dropout), so the
// same seed and offset give the same mask on the CPU and on CUDA
// (tests/cuda checks it), and the next step draws a fresh one by advancing
// the offset by the element count, as torch advances its philox offset.
#include <cstdint>  // std::int64_t, std::uint64_t
#include <cstdio>   // std::printf
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // dropout_layernorm: program
  constexpr fx::in<"sublayer", float, 2> sublayer;  // [tokens, hidden]
  constexpr fx::inout<"residual", float, 2> residual;
  constexpr fx::in<"weight", float, 1> weight;
  constexpr fx::in<"bias", float, 1> bias;
  constexpr fx::param<"seed", std::int64_t> seed;
  constexpr fx::param<"offset", std::int64_t> offset;
  constexpr fx::out<"y", float, 2> y;
  constexpr float p = 0.1f, eps = 1e-5f;
  constexpr auto h = residual + fx::dropout(sublayer, p, seed, offset);
  constexpr auto centered = h - fx::mean(h, fx::axis<-1>);
  constexpr fx::program block{
      y = centered * fx::rsqrt(fx::mean(centered * centered, fx::axis<-1>) + eps) * weight + bias,
      residual = h,
  };
  static_assert(fx::kernel_count(block) == 1);
  // dropout_layernorm: end

  const std::int64_t tokens = 64, hidden = 768;
  const auto s = examples::random_tensor<float>({tokens, hidden}, 1);
  const auto start = examples::random_tensor<float>({tokens, hidden}, 2);
  const auto w = examples::random_tensor<float>({hidden}, 3, 1.0, 0.1);
  const auto b = examples::random_tensor<float>({hidden}, 4, 0.0, 0.1);
  fx::tensor<float> stream = start.clone(), expected_stream = start.clone();
  fx::tensor<float> result({tokens, hidden}), expected({tokens, hidden});
  const std::int64_t step = 3, seed_value = 1234, offset_value = step * tokens * hidden;
  block.run(fx::cpu, sublayer(s), residual(stream), weight(w), bias(b), seed(seed_value), offset(offset_value),
            y(result));
  fx::run_reference(block, sublayer(s), residual(expected_stream), weight(w), bias(b), seed(seed_value),
                    offset(offset_value), y(expected));

  // The residual stream kept each sublayer value with probability 1 - p, scaled by 1 / (1 - p).
  std::int64_t dropped = 0;
  for (std::int64_t i = 0; i < stream.numel(); ++i) dropped += stream.data()[i] == start.data()[i];
  std::printf("dropped %.3f of the sublayer's values (p = %.2f)\n", double(dropped) / double(stream.numel()), p);
  const bool ok = examples::matches("residual", stream, expected_stream, 1e-6, 1e-6) &&
                  examples::matches("y", result, expected, 1e-4, 1e-4);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
