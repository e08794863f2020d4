// expected: the axis of fx::take_along_axis or fx::index_select is out of range of x
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 2> x;
constexpr fx::in<"i", std::int32_t, 1> i;
#ifdef FUSEDSL_MISUSE
constexpr auto e = fx::index_select(x, i, fx::axis<2>);
#else
constexpr auto e = fx::index_select(x, i, fx::axis<-2>);
#endif
int main() { static_cast<void>(e); }
