// expected: mean, var and std need a floating-point operand
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"i", int, 1> i;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::mean(i);
#else
constexpr auto e = fx::mean(fx::cast<float>(i));
#endif
int main() {}
