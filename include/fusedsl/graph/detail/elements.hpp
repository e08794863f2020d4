/// @file elements.hpp
/// Loops over vectors that cost no function call per element in constant evaluation.
#pragma once
#include <vector>  // std::vector

namespace fusedsl::detail {

/// A range of plain pointers.
template <class T>
struct pointer_range {
  T* first;
  T* last;
  constexpr T* begin() const { return first; }
  constexpr T* end() const { return last; }
};

/// The elements of `v`, for a range-for through plain pointers. Over a
/// std::vector itself, every step calls the iterator's operators, and
/// constant evaluation (g++'s and nvcc's front ends) pays for each as a
/// function call: the graph's and the scheduler's inner loops, which run
/// while compiling every program's plan, iterate this way.
template <class T>
constexpr pointer_range<const T> elements(const std::vector<T>& v) {
  return {v.data(), v.data() + v.size()};
}
/// The elements of `v`, modifiable (see above).
template <class T>
constexpr pointer_range<T> elements(std::vector<T>& v) {
  return {v.data(), v.data() + v.size()};
}

/// True when `list` holds `x` (std::find without the iterator calls; see
/// elements): any list that an `elements` overload takes, found by
/// argument-dependent lookup too (the scheduler's small_vector).
template <class List, class T>
constexpr bool contains(const List& list, const T& x) {
  for (const auto& e : elements(list))
    if (e == x) return true;
  return false;
}

}  // namespace fusedsl::detail
