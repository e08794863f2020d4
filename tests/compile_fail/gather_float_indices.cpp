// expected: the indices of fx::take_along_axis and fx::index_select must be integers
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 2> x;
constexpr fx::in<"i", float, 2> i;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::take_along_axis(x, i, fx::axis<1>);
#else
constexpr auto e = fx::take_along_axis(x, fx::cast<std::int64_t>(i), fx::axis<1>);
#endif
int main() { static_cast<void>(e); }
