/// @file random.hpp
/// Seeded random tensors for tests: never zeros, reproducible per seed.
#pragma once
#include <cstdint>  // std::uint64_t
#include <random>   // std::mt19937_64, distributions

#include <fusedsl/tensor/tensor.hpp>  // tensor

namespace fusedsl::testing {

/// Values of type T drawn uniformly from [lo, hi] (integers) or [lo, hi)
/// (floating point; f16/bf16 through float), from a generator seeded with `seed`.
template <class T>
tensor<T> random_tensor(const shape& sizes, std::uint64_t seed, double lo = -2.0, double hi = 2.0) {
  tensor<T> t(sizes);
  std::mt19937_64 generator(seed);
  if constexpr (std::is_same_v<T, bool>) {
    std::bernoulli_distribution coin(0.5);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = coin(generator);
  } else if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<std::int64_t> pick(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
    for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<T>(pick(generator));
  } else {
    std::uniform_real_distribution<double> pick(lo, hi);
    for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<T>(pick(generator));
  }
  return t;
}

}  // namespace fusedsl::testing
