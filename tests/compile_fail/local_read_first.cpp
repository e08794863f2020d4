// expected: a local placeholder is read before any statement assigns it
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
constexpr fx::local<"t", float, 1> t;
constexpr fx::out<"y", float, 1> y;
#ifdef FUSEDSL_MISUSE
constexpr auto prog = fx::program{y = t * 2, t = x + 1};
#else
constexpr auto prog = fx::program{t = x + 1, y = t * 2};
#endif
int main() {}
