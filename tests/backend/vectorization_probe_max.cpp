// Instantiates a row max alone for cmake/CheckVectorized.cmake (the marks
// "reduction lanes" and "lane merges"): a max whose lanes stopped
// vectorizing (math::nan_max) would go unnoticed in the softmax probe,
// whose row sum runs the same loops.
#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

void run_row_max(const fx::tensor<float>& x, fx::tensor<float>& y) {
  constexpr fx::in<"x", float, 2> px;
  constexpr fx::out<"y", float, 2> py;
  constexpr fx::program row_max{py = fx::max(px, fx::axis<1>)};
  row_max.run(fx::cpu, px(x), py(y));
}
