// Instantiates the CPU kernels' hot loops for cmake/CheckVectorized.cmake:
// a pointwise group, a row group with max and sum (softmax), a variance
// (layernorm) and a column sum, on float.
#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

void run_probes(const fx::tensor<float>& x, fx::tensor<float>& y, fx::tensor<float>& columns) {
  constexpr fx::in<"x", float, 2> px;
  constexpr fx::out<"y", float, 2> py;
  constexpr fx::out<"c", float, 1> pc;
  constexpr fx::program softmax{py = fx::exp(px - fx::max(px, fx::axis<1>)) /
                                     fx::sum(fx::exp(px - fx::max(px, fx::axis<1>)), fx::axis<1>)};
  constexpr fx::program normalize{py = (px - fx::mean(px, fx::axis<1>)) *
                                       fx::rsqrt(fx::var(px, fx::axis<1>, fx::correction{0}) + 1e-5f)};
  constexpr fx::program column_sum{pc = fx::sum(px, fx::axis<0>, fx::drop_axes)};
  softmax.run(fx::cpu, px(x), py(y));
  normalize.run(fx::cpu, px(x), py(y));
  column_sum.run(fx::cpu, px(x), pc(columns));
}
