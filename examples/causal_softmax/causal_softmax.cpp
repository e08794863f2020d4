// Causal (masked) softmax of attention scores, as in a decoder's self-attention:
// query i attends to keys 0..i only. The mask comes from index leaves
// (fx::index<0> < fx::index<1>: the key is after the query), so there is no
// mask tensor to build or read, and the whole softmax is one kernel, as
// Inductor makes it.
#include <cmath>    // INFINITY
#include <cstdio>   // std::printf
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // causal_softmax: program
  constexpr fx::in<"scores", float, 2> scores;  // [queries, keys]
  constexpr fx::param<"scale", float> scale;    // 1 / sqrt(head size)
  constexpr fx::out<"p", float, 2> p;
  constexpr auto masked = fx::where(fx::index<0> < fx::index<1>, -INFINITY, scores * scale);
  constexpr auto e = fx::exp(masked - fx::max(masked, fx::axis<-1>));
  constexpr fx::program causal_softmax{p = e / fx::sum(e, fx::axis<-1>)};
  static_assert(fx::kernel_count(causal_softmax) == 1);
  // causal_softmax: end

  const std::int64_t queries = 256, keys = 256, head_size = 64;
  const auto s = examples::random_tensor<float>({queries, keys}, 1);
  const float scale_value = 1.0f / std::sqrt(static_cast<float>(head_size));
  fx::tensor<float> result({queries, keys}), expected({queries, keys});
  causal_softmax.run(fx::cpu, scores(s), scale(scale_value), p(result));
  fx::run_reference(causal_softmax, scores(s), scale(scale_value), p(expected));

  // Keys after the query get exactly 0; every row sums to 1.
  bool masked_out = true;
  double worst_sum = 0;
  for (std::int64_t i = 0; i < queries; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < keys; ++j) {
      masked_out = masked_out && (j <= i || result(i, j) == 0.0f);
      sum += result(i, j);
    }
    worst_sum = std::fmax(worst_sum, std::fabs(sum - 1));
  }
  std::printf("keys after each query masked: %s; largest |row sum - 1|: %.3g\n", masked_out ? "yes" : "NO", worst_sum);
  return masked_out && worst_sum < 1e-5 && examples::matches("p", result, expected, 1e-7, 1e-5) ? EXIT_SUCCESS
                                                                                                : EXIT_FAILURE;
}
