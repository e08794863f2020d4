// The Black-Scholes program: European call and put prices in double for a book of
// options, one kernel for both outputs. The normal CDF is written with erfc,
// N(x) = erfc(-x / sqrt 2) / 2, which keeps its relative accuracy in the tail (1 - erf
// would cancel): deep out-of-the-money prices stay accurate. black_scholes.cpp runs it
// against the oracle; bench_cpu times it against a plain loop, and a vectorization probe
// (tests/backend) compiles its call price.
#pragma once
#include <fusedsl/fusedsl.hpp>

namespace black_scholes {
namespace fx = fusedsl;

// black_scholes: program
inline constexpr fx::in<"spot", double, 1> spot;
inline constexpr fx::in<"strike", double, 1> strike;
inline constexpr fx::in<"years", double, 1> years;
inline constexpr fx::in<"vol", double, 1> vol;
inline constexpr fx::param<"rate", double> rate;
inline constexpr fx::out<"call", double, 1> call;
inline constexpr fx::out<"put", double, 1> put;
inline constexpr auto normal_cdf = [](const auto& x) { return 0.5 * fx::erfc(x * -0.70710678118654752440); };
inline constexpr auto sd = vol * fx::sqrt(years);
inline constexpr auto d1 = (fx::log(spot / strike) + (rate + 0.5 * vol * vol) * years) / sd;
inline constexpr auto d2 = d1 - sd;
inline constexpr auto discounted = strike * fx::exp(-rate * years);
inline constexpr auto call_price = spot * normal_cdf(d1) - discounted * normal_cdf(d2);
inline constexpr auto put_price = discounted * normal_cdf(-d2) - spot * normal_cdf(-d1);
inline constexpr fx::program prices{call = call_price, put = put_price};
static_assert(fx::kernel_count(prices) == 1);
// black_scholes: end

}  // namespace black_scholes
