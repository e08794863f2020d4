// expected: fx::correction applies to var and std only
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::sum(x, fx::axis<0>, fx::correction{0});
#else
constexpr auto e = fx::var(x, fx::axis<0>, fx::correction{0});
#endif
int main() {}
