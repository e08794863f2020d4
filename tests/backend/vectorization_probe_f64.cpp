// Instantiates one pointwise loop for cmake/CheckVectorized.cmake: Black-Scholes' call
// price in double (examples/black_scholes). It vectorizes only when nothing in it is a
// call: sqrt is the instruction (fusedsl_sqrt's vector variants, not std::sqrt, which sets
// errno), and every op and node of the large expression is inlined (evaluate's apply_node,
// the ops' apply).
#include <fusedsl/fusedsl.hpp>

#include "../../examples/black_scholes/black_scholes.hpp"  // black_scholes::call_price

namespace fx = fusedsl;

void run_probe(const fx::tensor<double>& s, const fx::tensor<double>& k, const fx::tensor<double>& t,
               const fx::tensor<double>& v, fx::tensor<double>& c) {
  using namespace black_scholes;
  constexpr fx::program price{call = call_price};
  price.run(fx::cpu, spot(s), strike(k), years(t), vol(v), rate(0.03), call(c));
}
