// expected: fx::accumulate<T> needs an element type
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::sum(x, fx::axis<0>, fx::accumulate<long double>);
#else
constexpr auto e = fx::sum(x, fx::axis<0>, fx::accumulate<double>);
#endif
int main() {}
