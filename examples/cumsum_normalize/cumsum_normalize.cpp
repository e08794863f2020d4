// A cumsum-based normalization: the cumulative distribution of each row's
// softmax, cumsum(e) / sum(e) with e = exp(x - max(x)), as nucleus (top-p)
// sampling computes it over sorted logits. The max, the running sum, the
// row's sum and the division are one kernel, as Inductor makes them: the scan
// is a reduction-like node over the same rows as the two reductions.
#include <cmath>    // std::fabs
#include <cstdio>   // std::printf
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // cumsum_normalize: program
  constexpr fx::in<"logits", float, 2> logits;  // [rows, vocabulary], sorted or not
  constexpr fx::out<"cdf", float, 2> cdf;
  constexpr auto e = fx::exp(logits - fx::max(logits, fx::axis<-1>));
  constexpr fx::program cumulative{cdf = fx::cumsum(e, fx::axis<-1>) / fx::sum(e, fx::axis<-1>)};
  static_assert(fx::kernel_count(cumulative) == 1);
  // cumsum_normalize: end

  const std::int64_t rows = 64, vocabulary = 5000;
  const auto x = examples::random_tensor<float>({rows, vocabulary}, 3);
  fx::tensor<float> result({rows, vocabulary}), expected({rows, vocabulary});
  cumulative.run(fx::cpu, logits(x), cdf(result));
  fx::run_reference(cumulative, logits(x), cdf(expected));

  // Every row rises from its first probability to 1.
  bool rising = true;
  double worst_end = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 1; j < vocabulary; ++j) rising = rising && result(i, j) >= result(i, j - 1);
    worst_end = std::fmax(worst_end, std::fabs(result(i, vocabulary - 1) - 1.0));
  }
  std::printf("rows rise: %s; largest |last - 1|: %.3g\n", rising ? "yes" : "NO", worst_end);
  // f32 running sums of 5000 terms in order: about 1e-5 relative of the row's sum.
  return rising && worst_end < 1e-5 && examples::matches("cdf", result, expected, 1e-5, 1e-4) ? EXIT_SUCCESS
                                                                                              : EXIT_FAILURE;
}
