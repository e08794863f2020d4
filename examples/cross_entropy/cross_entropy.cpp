// Cross-entropy with integer labels, as torch.nn.functional.cross_entropy(logits,
// labels, reduction="none"): loss[r] = logsumexp(logits[r, :]) - logits[r, labels[r]].
// The picked logit is a gather (an indirect read at the label, as Inductor's
// indirect indexing), so the row's logsumexp and the pick are one kernel, as
// Inductor makes them; a label outside [0, classes) is an error of the run.
#include <cmath>    // std::exp, std::log
#include <cstdio>   // std::printf
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // cross_entropy: program
  constexpr fx::in<"logits", float, 2> logits;         // [rows, classes]
  constexpr fx::in<"labels", std::int64_t, 1> labels;  // [rows], each in [0, classes)
  constexpr fx::out<"loss", float, 1> loss;
  constexpr fx::program cross_entropy{loss = fx::logsumexp(logits, fx::axis<1>, fx::drop_axes) -
                                             fx::take_along_axis(logits, labels, fx::axis<1>, fx::drop_axes)};
  static_assert(fx::kernel_count(cross_entropy) == 1);
  // cross_entropy: end

  const std::int64_t rows = 512, classes = 1000;
  const auto x = examples::random_tensor<float>({rows, classes}, 2);
  fx::tensor<std::int64_t> y({rows});
  for (std::int64_t r = 0; r < rows; ++r) y(r) = (r * 389 + 7) % classes;
  fx::tensor<float> result({rows}), expected({rows});
  cross_entropy.run(fx::cpu, logits(x), labels(y), loss(result));
  fx::run_reference(cross_entropy, logits(x), labels(y), loss(expected));

  // Row 0 by hand, in double.
  double row_max = x(0, 0), total = 0;
  for (std::int64_t c = 0; c < classes; ++c) row_max = std::fmax(row_max, x(0, c));
  for (std::int64_t c = 0; c < classes; ++c) total += std::exp(x(0, c) - row_max);
  const double by_hand = row_max + std::log(total) - x(0, y(0));
  std::printf("loss[0] = %.6f (by hand %.6f)\n", static_cast<double>(result(0)), by_hand);
  const bool correct =
      std::fabs(expected(0) - by_hand) < 1e-5 && examples::matches("loss", result, expected, 1e-6, 1e-5);

  // A label out of range is reported, never read.
  y(3) = classes;
  bool reported = false;
  try {
    cross_entropy.run(fx::cpu, logits(x), labels(y), loss(result));
  } catch (const fx::error& e) {
    reported = true;
    std::printf("%s\n", e.what());
  }
  return correct && reported ? EXIT_SUCCESS : EXIT_FAILURE;
}
