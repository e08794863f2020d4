/// @file containers.hpp
/// Small constexpr containers of the scheduler: a suffix-minimum tree (for the
/// cycle check), and a product of sizes.
#pragma once
#include <algorithm>  // std::min
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <limits>     // std::numeric_limits
#include <vector>     // std::vector

namespace fusedsl {

namespace detail {
/// Minimums over the suffixes of positions 0 .. n-1 whose values only decrease: a
/// segment tree, O(log n) per change and per query.
class suffix_min {
 public:
  /// `n` positions, none holding a value.
  constexpr explicit suffix_min(int n) : n_(static_cast<std::size_t>(n)), tree_(2 * n_, none) {}
  /// Lowers the value at `pos` to `value` (when it is lower).
  constexpr void lower(int pos, int value) {
    for (std::size_t i = static_cast<std::size_t>(pos) + n_; i > 0 && value < tree_[i]; i /= 2) tree_[i] = value;
  }
  /// The lowest value at positions `from` .. n-1; INT_MAX when there is none.
  constexpr int query(int from) const {
    int result = none;
    for (std::size_t l = static_cast<std::size_t>(from) + n_, r = 2 * n_; l < r; l /= 2, r /= 2) {
      if (l % 2 == 1) result = std::min(result, tree_[l++]);
      if (r % 2 == 1) result = std::min(result, tree_[--r]);
    }
    return result;
  }

 private:
  static constexpr int none = std::numeric_limits<int>::max();
  std::size_t n_;
  std::vector<int> tree_;
};

constexpr std::int64_t product(const std::vector<std::int64_t>& v, std::size_t from = 0,
                               std::size_t to = ~std::size_t{0}) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < v.size() && i < to; ++i) p *= v[i];
  return p;
}
}  // namespace detail

}  // namespace fusedsl
