// expected: names a placeholder or param that the program does not use
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
constexpr fx::out<"y", float, 1> y;
constexpr fx::in<"z", float, 1> z;
constexpr auto prog = fx::program{y = x * 2};
int main() {
  fx::tensor<float> tx({4}), ty({4}), tz({4});
#ifdef FUSEDSL_MISUSE
  prog.run(fx::cpu, x(tx), y(ty), z(tz));
#else
  prog.run(fx::cpu, x(tx), y(ty));
#endif
}
