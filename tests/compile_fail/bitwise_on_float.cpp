// expected: bitwise operators and shifts need integer or bool operands
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 1> x;
constexpr fx::in<"k", std::int32_t, 1> k;
#ifdef FUSEDSL_MISUSE
constexpr auto e = x & 1;
#else
constexpr auto e = k & 1;
#endif
int main() { static_cast<void>(e); }
