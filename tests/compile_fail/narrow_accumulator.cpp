// expected: fx::accumulate<T> must not be narrower than the reduction's own accumulator
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", double, 1> x;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::mean(x, fx::axis<0>, fx::accumulate<float>);
#else
constexpr auto e = fx::mean(x, fx::axis<0>, fx::accumulate<double>);
#endif
int main() {}
