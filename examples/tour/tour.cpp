// A tour of the DSL. README.md quotes the parts between the "tour:" markers
// (and, for one-off expressions, examples/eval); this file is built and run
// as a test, so the README's code always works.
#include <cstdio>  // std::printf

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

int main() {
  // tour: placeholders
  // Placeholders name the tensors a program reads and writes. Name, element
  // type and rank are compile-time; sizes come with the tensors at run time.
  constexpr fx::in<"g", float, 1> g;     // read
  constexpr fx::inout<"p", float, 1> p;  // read and updated in place
  constexpr fx::inout<"m", float, 1> m;
  constexpr fx::inout<"v", float, 1> v;
  constexpr fx::param<"lr", float> lr;  // a run-time scalar
  // tour: end

  // tour: program
  // Statements run in order: the update of p reads the new m and v.
  constexpr float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
  constexpr fx::program adam{
      m = beta1 * m + (1 - beta1) * g,
      v = beta2 * v + (1 - beta2) * g * g,
      p -= lr * m / (fx::sqrt(v) + eps),
  };
  // tour: end

  // tour: run
  const fx::shape n{4};
  auto params = fx::tensor<float>::full(n, 1.0f);
  auto m1 = fx::tensor<float>::full(n, 0.0f), v1 = fx::tensor<float>::full(n, 0.0f);
  fx::tensor<float> grad(n);
  for (std::int64_t i = 0; i < 4; ++i) grad(i) = 0.5f * static_cast<float>(i) - 1.0f;
  adam.run(fx::cpu, g(grad), p(params), m(m1), v(v1), lr(0.1f));
  // tour: end
  for (std::int64_t i = 0; i < 4; ++i) std::printf("p[%lld] = %.6f\n", static_cast<long long>(i), params(i));

  // tour: reductions
  // Reductions keep the reduced axes with size 1, so they broadcast back.
  constexpr fx::in<"x", fx::bfloat16, 2> x;  // bf16 storage, f32 compute
  constexpr fx::out<"y", fx::bfloat16, 2> y;
  constexpr fx::out<"row_norm", float, 1> row_norm;
  constexpr fx::program normalize{
      y = (x - fx::mean(x, fx::axis<1>)) * fx::rsqrt(fx::var(x, fx::axis<1>, fx::correction{0}) + 1e-5f),
      row_norm = fx::sqrt(fx::sum(fx::cast<float>(x) * x, fx::axis<1>, fx::drop_axes)),
  };
  // tour: end
  fx::tensor<fx::bfloat16> xs({2, 3}), ys({2, 3});
  for (std::int64_t i = 0; i < 6; ++i) xs.data()[i] = fx::bfloat16(static_cast<float>(i * i) * 0.25f);
  fx::tensor<float> norms({2});
  normalize.run(fx::cpu, x(xs), y(ys), row_norm(norms));
  std::printf("row norms: %.4f %.4f\n", norms(0), norms(1));

  return 0;
}
