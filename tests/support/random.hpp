/// @file random.hpp
/// Seeded random tensors for tests: never zeros, reproducible per seed.
#pragma once
#include <algorithm>  // std::shuffle
#include <cstdint>    // std::uint64_t
#include <random>     // std::mt19937_64, distributions
#include <vector>     // std::vector

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

/// A `rows x cols` f32 tensor (even sizes) whose row, column and total sums
/// are exact in double but not in f32, for tests of `fx::accumulate<double>`:
/// element (i, j) is a_i * b_j * 1024 + u, u a multiple of 2^-13 in [0, 1),
/// a and b shuffled signs, as many +1 as -1 (so the +-1024s cancel along
/// every row and column). An f32 partial sum of k elements is about
/// 1024 * sqrt(k), whose last bit is coarser than u's: any f32 order rounds
/// u's bits away, many ulps of the result; every sum needs at most 24 + 13
/// bits, which a double holds.
inline tensor<float> cancelling_tensor(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  const auto signs = [&](std::int64_t n) {
    std::vector<float> s(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) s[static_cast<std::size_t>(i)] = i % 2 ? 1.0f : -1.0f;
    std::shuffle(s.begin(), s.end(), generator);
    return s;
  };
  const std::vector<float> a = signs(rows), b = signs(cols);
  std::uniform_int_distribution<int> fraction(0, (1 << 13) - 1);
  tensor<float> t({rows, cols});
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      t.data()[i * cols + j] = a[static_cast<std::size_t>(i)] * b[static_cast<std::size_t>(j)] * 1024.0f +
                               static_cast<float>(fraction(generator)) / (1 << 13);
  return t;
}

}  // namespace fusedsl::testing
