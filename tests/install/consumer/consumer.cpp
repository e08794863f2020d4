// Uses the library as an outside project would: the umbrella header only.
#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

int main() {
  constexpr fx::in<"x", float, 1> x;
  constexpr fx::out<"y", float, 1> y;
  constexpr auto twice = fx::program{y = 2 * x + 1};
  auto in = fx::tensor<float>::full({3}, 1.5f);
  fx::tensor<float> out({3});
  twice.run(fx::cpu, x(in), y(out));
  return out(2) == 4.0f ? 0 : 1;
}
