/// @file support.hpp
/// What every example does around its program: random inputs, and at the end
/// a comparison of the result with the reference interpreter's
/// (`fx::run_reference`, which computes in double, op by op, unfused).
#pragma once
#include <cmath>    // std::fabs, std::fmax
#include <cstdint>  // std::int64_t
#include <cstdio>   // std::printf
#include <random>   // std::mt19937, std::normal_distribution

#include <fusedsl/tensor/tensor.hpp>  // fusedsl::tensor

namespace examples {

/// A tensor of `sizes` filled with normally distributed values
/// (mean `mean`, standard deviation `stddev`) from a fixed seed.
template <class T>
fusedsl::tensor<T> random_tensor(const fusedsl::shape& sizes, unsigned seed, double mean = 0, double stddev = 1) {
  fusedsl::tensor<T> t(sizes);
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal(mean, stddev);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<T>(normal(generator));
  return t;
}

/// True when `result` has `expected`'s sizes and every element is within
/// `atol + rtol * |expected|`; prints the largest difference under `what`.
template <class T>
bool matches(const char* what, const fusedsl::tensor<T>& result, const fusedsl::tensor<T>& expected, double atol = 1e-6,
             double rtol = 1e-5) {
  bool ok = result.sizes() == expected.sizes();
  double worst = 0;
  for (std::int64_t i = 0; ok && i < result.numel(); ++i) {
    const double difference =
        std::fabs(static_cast<double>(result.data()[i]) - static_cast<double>(expected.data()[i]));
    worst = std::fmax(worst, difference);
    ok = difference <= atol + rtol * std::fabs(static_cast<double>(expected.data()[i]));
  }
  std::printf("%-8s largest difference from fx::run_reference: %.3g -> %s\n", what, worst, ok ? "OK" : "MISMATCH");
  return ok;
}

}  // namespace examples
