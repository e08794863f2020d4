// European call and put prices by the Black-Scholes formula (black_scholes.hpp) for
// 100000 options, checked against the oracle.
#include <cmath>    // std::exp, std::fabs
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "black_scholes/black_scholes.hpp"  // black_scholes::prices
#include "common/support.hpp"               // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  using namespace black_scholes;

  const std::int64_t n = 100000;
  fx::tensor<double> s({n}), k({n}), t({n}), v({n});
  const auto z = examples::random_tensor<double>({4, n}, 1);
  for (std::int64_t i = 0; i < n; ++i) {
    s.data()[i] = 100 * std::exp(0.3 * z.data()[i]);  // strikes up to ~6 standard deviations away
    k.data()[i] = 100;
    t.data()[i] = 0.05 + std::fabs(z.data()[n + i]);
    v.data()[i] = 0.05 + 0.1 * std::fabs(z.data()[2 * n + i]);
  }
  const double r = 0.03;
  fx::tensor<double> c({n}), p({n}), c_ref({n}), p_ref({n});
  prices.run(fx::cpu, spot(s), strike(k), years(t), vol(v), rate(r), call(c), put(p));
  fx::run_reference(prices, spot(s), strike(k), years(t), vol(v), rate(r), call(c_ref), put(p_ref));
  const bool ok = examples::matches("call", c, c_ref, 1e-10, 1e-12) && examples::matches("put", p, p_ref, 1e-10, 1e-12);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
