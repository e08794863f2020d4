// expected: cannot assign to an input placeholder
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
constexpr fx::inout<"t", float, 1> t;
#ifdef FUSEDSL_MISUSE
constexpr auto prog = fx::program{x = x + 1};
#else
constexpr auto prog = fx::program{t = t + 1};
#endif
int main() {}
