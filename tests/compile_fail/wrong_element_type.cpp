// expected: the bound tensor's element type differs from the placeholder's
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
int main() {
#ifdef FUSEDSL_MISUSE
  fx::tensor<double> t({4});
#else
  fx::tensor<float> t({4});
#endif
  (void)x(t);
}
