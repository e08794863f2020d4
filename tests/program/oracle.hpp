// Shared by the oracle tests: compare the oracle's (and the executor's)
// values with values computed independently.
#pragma once
#include <cmath>  // std::exp, std::erf, ...

#include "common.hpp"

namespace fusedsl_tests {

/// True when `got` is `want` within `rtol` (NaN equals NaN, infinities exactly).
inline bool same_value(double got, double want, double rtol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= rtol * std::fabs(want) + 1e-300;
}

/// Checks the oracle's value of `value` (and the executor's, within
/// `executor_rtol`) against `want`, element by element.
template <class E, class... Bindings>
void check_values(const E& value, const fx::shape& sizes, std::initializer_list<double> want, double oracle_rtol,
                  double executor_rtol, const Bindings&... bindings) {
  const auto oracle = reference_value(value, sizes, bindings...);
  const auto executor = check_against_oracle(value, sizes, tolerance{executor_rtol, 0}, bindings...);
  REQUIRE(static_cast<std::int64_t>(want.size()) == oracle.numel());
  std::int64_t i = 0;
  for (const double w : want) {
    INFO(fx::to_string(value), " element ", i, ": oracle ", at(oracle, i), ", executor ", at(executor, i),
         ", expected ", w);
    CHECK(same_value(at(oracle, i), w, oracle_rtol));
    CHECK(same_value(at(executor, i), w, executor_rtol));
    ++i;
  }
}

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace fusedsl_tests
