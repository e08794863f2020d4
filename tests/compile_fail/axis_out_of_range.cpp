// expected: reduction axis out of range
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 2> x;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::sum(x, fx::axis<2>);
#else
constexpr auto e = fx::sum(x, fx::axis<-2>);
#endif
int main() {}
