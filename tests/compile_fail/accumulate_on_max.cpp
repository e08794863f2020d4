// expected: fx::accumulate applies to sum, prod, mean, var, std and logsumexp only
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::max(x, fx::axis<0>, fx::accumulate<double>);
#else
constexpr auto e = fx::sum(x, fx::axis<0>, fx::accumulate<double>);
#endif
int main() {}
