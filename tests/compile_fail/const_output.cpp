// expected: needs a writable tensor
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::out<"y", float, 1> y;
int main() {
  fx::tensor<float> t({4});
#ifdef FUSEDSL_MISUSE
  const fx::tensor_view<const float> view = t.view();
#else
  const fx::tensor_view<float> view = t.view();
#endif
  (void)y(view);
}
