// Instantiates the CPU kernels' hot loops for cmake/CheckVectorized.cmake:
// a pointwise group, a row group with max and sum (softmax), a variance
// (layernorm), a column sum, a row logsumexp and an in-place group with a square root
// (Adam's step: the loop stores into memory it loads), on float.
#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

void run_probes(const fx::tensor<float>& x, fx::tensor<float>& y, fx::tensor<float>& columns, fx::tensor<float>& p,
                fx::tensor<float>& m, fx::tensor<float>& v) {
  constexpr fx::in<"x", float, 2> px;
  constexpr fx::out<"y", float, 2> py;
  constexpr fx::out<"c", float, 1> pc;
  constexpr fx::program softmax{py = fx::exp(px - fx::max(px, fx::axis<1>)) /
                                     fx::sum(fx::exp(px - fx::max(px, fx::axis<1>)), fx::axis<1>)};
  constexpr fx::program normalize{py = (px - fx::mean(px, fx::axis<1>)) *
                                       fx::rsqrt(fx::var(px, fx::axis<1>, fx::correction{0}) + 1e-5f)};
  constexpr fx::program column_sum{pc = fx::sum(px, fx::axis<0>, fx::drop_axes)};
  constexpr fx::program row_logsumexp{pc = fx::logsumexp(px, fx::axis<1>, fx::drop_axes)};
  constexpr fx::inout<"p", float, 1> pp;
  constexpr fx::inout<"m", float, 1> pm;
  constexpr fx::inout<"v", float, 1> pv;
  constexpr fx::in<"g", float, 1> pg;
  constexpr fx::program adam{pm = 0.9f * pm + 0.1f * pg, pv = 0.999f * pv + 0.001f * pg * pg,
                             pp -= 1e-3f * pm / (fx::sqrt(pv) + 1e-8f)};
  softmax.run(fx::cpu, px(x), py(y));
  adam.run(fx::cpu, pp(p), pm(m), pv(v), pg(columns));
  normalize.run(fx::cpu, px(x), py(y));
  column_sum.run(fx::cpu, px(x), pc(columns));
  row_logsumexp.run(fx::cpu, px(x), pc(columns));
}
