// expected: placeholder_not_bound<fusedsl::fixed_string<2>{"y"}>
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
constexpr fx::out<"y", float, 1> y;
constexpr auto prog = fx::program{y = x * 2};
int main() {
  fx::tensor<float> tx({4}), ty({4});
#ifdef FUSEDSL_MISUSE
  prog.run(fx::cpu, x(tx));
#else
  prog.run(fx::cpu, x(tx), y(ty));
#endif
}
