// expected: fx::index axis out of range of the statement's target
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::out<"y", float, 2> y;
#ifdef FUSEDSL_MISUSE
constexpr auto s = (y = fx::index<2> * 0.5f);
#else
constexpr auto s = (y = fx::index<-2> * 0.5f + fx::sum(fx::index<2>, fx::axis<2>));
#endif
int main() {}
