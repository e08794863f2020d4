// expected: a reduction axis is listed twice
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 3> x;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::max(x, fx::axes<1, -2>);
#else
constexpr auto e = fx::max(x, fx::axes<1, -1>);
#endif
int main() {}
