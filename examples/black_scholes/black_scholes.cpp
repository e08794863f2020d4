// European call and put prices by the Black-Scholes formula, in double, for a
// book of options: one kernel for both outputs. The normal CDF is written with
// erfc, N(x) = erfc(-x / sqrt 2) / 2, which keeps its relative accuracy in the
// tail (1 - erf would cancel): deep out-of-the-money prices stay accurate.
#include <cmath>    // std::exp, std::fabs
#include <cstdlib>  // EXIT_SUCCESS, EXIT_FAILURE

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // examples::random_tensor, examples::matches

namespace fx = fusedsl;

int main() {
  // black_scholes: program
  constexpr fx::in<"spot", double, 1> spot;
  constexpr fx::in<"strike", double, 1> strike;
  constexpr fx::in<"years", double, 1> years;
  constexpr fx::in<"vol", double, 1> vol;
  constexpr fx::param<"rate", double> rate;
  constexpr fx::out<"call", double, 1> call;
  constexpr fx::out<"put", double, 1> put;
  constexpr auto normal_cdf = [](const auto& x) { return 0.5 * fx::erfc(x * -0.70710678118654752440); };
  constexpr auto sd = vol * fx::sqrt(years);
  constexpr auto d1 = (fx::log(spot / strike) + (rate + 0.5 * vol * vol) * years) / sd;
  constexpr auto d2 = d1 - sd;
  constexpr auto discounted = strike * fx::exp(-rate * years);
  constexpr fx::program black_scholes{
      call = spot * normal_cdf(d1) - discounted * normal_cdf(d2),
      put = discounted * normal_cdf(-d2) - spot * normal_cdf(-d1),
  };
  static_assert(fx::kernel_count(black_scholes) == 1);
  // black_scholes: end

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
  black_scholes.run(fx::cpu, spot(s), strike(k), years(t), vol(v), rate(r), call(c), put(p));
  fx::run_reference(black_scholes, spot(s), strike(k), years(t), vol(v), rate(r), call(c_ref), put(p_ref));
  const bool ok = examples::matches("call", c, c_ref, 1e-10, 1e-12) && examples::matches("put", p, p_ref, 1e-10, 1e-12);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
