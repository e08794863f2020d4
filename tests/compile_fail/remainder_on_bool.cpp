// expected: % and fx::fmod need integer or floating-point operands, not bool
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"p", bool, 1> p;
constexpr fx::in<"k", std::int32_t, 1> k;
#ifdef FUSEDSL_MISUSE
constexpr auto e = p % p;
#else
constexpr auto e = k % 3;
#endif
int main() { static_cast<void>(e); }
