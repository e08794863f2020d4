// One-off expressions with fx::eval, and the errors a call reports at run
// time. README.md and docs/programs.md quote the parts between the "eval:"
// markers; this file is built and run as a test.
#include <cstdio>   // std::printf
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

int main() {
  // eval: eval
  // For one-off expressions, tensors can be used directly.
  fx::tensor<float> a({2, 3}), b({3}), c({2, 3});
  for (std::int64_t i = 0; i < 6; ++i) a.data()[i] = 0.1f * static_cast<float>(i);
  for (std::int64_t i = 0; i < 3; ++i) b(i) = static_cast<float>(i);
  fx::eval(c, fx::exp(a) * b + 1.0f);  // b broadcasts over the rows of a
  // eval: end
  std::printf("c[1][2] = %.6f\n", c(1, 2));

  // eval: errors
  // Mistakes found at run time throw fusedsl::error naming what was wrong.
  try {
    fx::tensor<float> wrong({5});
    fx::eval(c, a + wrong);
  } catch (const fx::error& e) {
    std::printf("error: %s\n", e.what());
  }
  // eval: end
  // exp(0.5) * 2 + 1, within a few float ulps.
  const float expected = 1.6487213f * 2.0f + 1.0f;
  return c(1, 2) > expected * 0.99999f && c(1, 2) < expected * 1.00001f ? EXIT_SUCCESS : EXIT_FAILURE;
}
