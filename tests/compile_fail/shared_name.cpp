// expected: two different placeholders of a program share one name
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
constexpr fx::out<"y", float, 1> y;
#ifdef FUSEDSL_MISUSE
constexpr fx::in<"x", double, 1> x2;
#else
constexpr fx::in<"x2", double, 1> x2;
#endif
constexpr auto prog = fx::program{y = x + x2};
int main() {}
