// expected: a placeholder's element type must be one of
#include <string>
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
#ifdef FUSEDSL_MISUSE
constexpr fx::in<"s", std::string, 1> s;
#else
constexpr fx::in<"s", fx::bfloat16, 1> s;
#endif
int main() { (void)s; }
