/// @file compare.hpp
/// Elementwise comparison of a result with the oracle's, with the
/// tolerances of DESIGN.md section 7 and a message naming the first mismatch.
#pragma once
#include <cmath>    // std::fabs, std::isnan
#include <sstream>  // std::ostringstream
#include <string>   // std::string

#include <doctest/doctest.h>

#include <fusedsl/core/dtype.hpp>          // dtype_of, is_floating_point
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

namespace fusedsl::testing {

/// Tolerances for comparing with the oracle.
struct tolerance {
  double rtol;
  double atol;
};

/// Default tolerance for results of element type T: exact for integers and
/// bool; f32 rtol 1.3e-6 * k for k ops in sequence (atol 1e-5); f64 1e-12;
/// f16 1e-3 and bf16 1.6e-2 (one rounding of the stored result dominates).
template <class T>
constexpr tolerance default_tolerance(int ops = 1) {
  constexpr dtype d = dtype_of<T>;
  if constexpr (!is_floating_point(d)) return {0, 0};
  else if constexpr (d == dtype::f64) return {1e-12 * ops, 1e-12};
  else if constexpr (d == dtype::f32) return {1.3e-6 * ops, 1e-5};
  else if constexpr (d == dtype::f16) return {1e-3 * ops, 1e-5};
  else return {1.6e-2 * ops, 1e-5};
}

/// Empty when `actual` matches `expected` elementwise (NaN equals NaN,
/// infinities must match exactly), else a description of the first mismatch.
template <class A, class B>
std::string mismatch(const tensor_view<A>& actual, const tensor_view<B>& expected, tolerance tol) {
  if (actual.sizes() != expected.sizes())
    return "shapes differ: " + to_string(actual.sizes()) + " vs " + to_string(expected.sizes());
  shape index = actual.sizes();
  for (auto& i : index) i = 0;
  for (std::int64_t flat = 0; flat < actual.numel(); ++flat) {
    std::int64_t oa = 0, ob = 0;
    for (int d = 0; d < index.rank(); ++d) oa += index[d] * actual.strides()[d], ob += index[d] * expected.strides()[d];
    const double a = static_cast<double>(actual.data()[oa]);
    const double b = static_cast<double>(expected.data()[ob]);
    const bool both_nan = std::isnan(a) && std::isnan(b);
    const bool same_inf = std::isinf(a) && std::isinf(b) && a == b;
    const bool close = !std::isnan(a) && !std::isnan(b) && !std::isinf(a) && !std::isinf(b) &&
                       std::fabs(a - b) <= tol.atol + tol.rtol * std::fabs(b);
    if (!(both_nan || same_inf || close || a == b)) {
      std::ostringstream text;
      text.precision(9);
      text << "element " << flat << " (index " << to_string(index) << "): got " << a << ", expected " << b << " (rtol "
           << tol.rtol << ", atol " << tol.atol << ")";
      return text.str();
    }
    for (int d = index.rank() - 1; d >= 0; --d) {
      if (++index[d] < actual.sizes()[d]) break;
      index[d] = 0;
    }
  }
  return {};
}

}  // namespace fusedsl::testing

/// CHECK that a result matches the oracle's, printing the first mismatch.
#define FUSEDSL_CHECK_CLOSE(actual, expected, tol)                                                  \
  do {                                                                                              \
    const std::string fusedsl_mismatch = ::fusedsl::testing::mismatch((actual), (expected), (tol)); \
    CHECK_MESSAGE(fusedsl_mismatch.empty(), fusedsl_mismatch);                                      \
  } while (false)
