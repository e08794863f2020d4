// expected: fusedsl reports bad input by throwing fusedsl::error: build with exceptions
// misuse flags: -fno-exceptions
// fusedsl throws fusedsl::error for bad input found at run time; a build without
// exceptions is refused with that reason, before any other error.
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
constexpr fx::out<"y", float, 1> y;
constexpr fx::program prog{y = x * 2};
int main() {
  fx::tensor<float> tx({4}), ty({4});
  prog.run(fx::cpu, x(tx), y(ty));
}
