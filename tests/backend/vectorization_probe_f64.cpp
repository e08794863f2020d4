// Instantiates one pointwise loop for cmake/CheckVectorized.cmake: Black-Scholes' call
// price in double. It vectorizes only when nothing in it is a call: sqrt is the
// instruction (fusedsl_sqrt's vector variants, not std::sqrt, which sets errno), and every
// op and node of the large expression is inlined (evaluate's apply_node, the ops' apply).
#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

void run_probe(const fx::tensor<double>& s, const fx::tensor<double>& k, const fx::tensor<double>& t,
               const fx::tensor<double>& v, fx::tensor<double>& c) {
  constexpr fx::in<"spot", double, 1> spot;
  constexpr fx::in<"strike", double, 1> strike;
  constexpr fx::in<"years", double, 1> years;
  constexpr fx::in<"vol", double, 1> vol;
  constexpr fx::param<"rate", double> rate;
  constexpr fx::out<"call", double, 1> call;
  constexpr auto cdf = [](const auto& x) { return 0.5 * fx::erfc(x * -0.70710678118654752440); };
  constexpr auto sd = vol * fx::sqrt(years);
  constexpr auto d1 = (fx::log(spot / strike) + (rate + 0.5 * vol * vol) * years) / sd;
  constexpr auto d2 = d1 - sd;
  constexpr auto discounted = strike * fx::exp(-rate * years);
  constexpr fx::program price{call = spot * cdf(d1) - discounted * cdf(d2)};
  price.run(fx::cpu, spot(s), strike(k), years(t), vol(v), rate(0.03), call(c));
}
