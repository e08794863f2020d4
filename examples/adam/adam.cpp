// One step of the Adam optimizer, updating the parameters and both moment
// estimates in place: three statements, one kernel, one pass over memory.
#include <cmath>    // std::pow
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // adam: program
  constexpr fx::in<"grad", float, 1> grad;
  constexpr fx::inout<"param", float, 1> param;  // read and updated in place
  constexpr fx::inout<"m", float, 1> m;          // first moment
  constexpr fx::inout<"v", float, 1> v;          // second moment
  constexpr fx::param<"lr", float> lr;           // run-time scalars
  constexpr fx::param<"bias1", float> bias1;     // 1 - beta1^step
  constexpr fx::param<"bias2", float> bias2;     // 1 - beta2^step
  constexpr float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  // Statements run in order: the update of param reads the new m and v.
  constexpr fx::program adam{
      m = beta1 * m + (1 - beta1) * grad,
      v = beta2 * v + (1 - beta2) * grad * grad,
      param -= lr * (m / bias1) / (fx::sqrt(v / bias2) + eps),
  };
  static_assert(fx::kernel_count(adam) == 1);
  // adam: end

  const std::int64_t n = 100'000;
  const auto g = examples::random_tensor<float>({n}, 1);
  auto p = examples::random_tensor<float>({n}, 2), m1 = examples::random_tensor<float>({n}, 3, 0, 0.1);
  auto v1 = fx::tensor<float>::full({n}, 0.01f);
  // The reference updates its own copies.
  auto p_expected = p.clone(), m_expected = m1.clone(), v_expected = v1.clone();

  // adam: run
  const int step = 3;
  const float lr_value = 1e-3f;
  const auto bias1_value = static_cast<float>(1 - std::pow(beta1, step));
  const auto bias2_value = static_cast<float>(1 - std::pow(beta2, step));
  adam.run(fx::cpu, grad(g), param(p), m(m1), v(v1), lr(lr_value), bias1(bias1_value), bias2(bias2_value));
  // adam: end

  fx::run_reference(adam, grad(g), param(p_expected), m(m_expected), v(v_expected), lr(lr_value), bias1(bias1_value),
                    bias2(bias2_value));
  // `&`, not `&&`: every comparison runs and prints.
  const bool ok = examples::matches("param", p, p_expected) & examples::matches("m", m1, m_expected) &
                  examples::matches("v", v1, v_expected);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
