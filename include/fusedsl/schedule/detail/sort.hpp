/// @file sort.hpp
/// Sorting exactly as Python's list.sort(key=..., reverse=True) does for short lists.
/// Inductor sorts candidate fusions with a comparison that is not a strict weak order
/// (FusionScore.__lt__), so the result depends on the algorithm: std::sort would
/// disagree with Inductor on ties and near-ties.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

namespace fusedsl::detail {

// CPython's binarysort: insert a[start..hi) into the sorted prefix a[lo..start).
template <class T, class Less>
constexpr void binary_insertion(std::vector<T>& a, std::size_t lo, std::size_t hi, std::size_t start, Less& lt) {
  for (std::size_t i = start; i < hi; ++i) {
    T pivot = a[i];
    std::size_t l = lo, r = i;
    while (l < r) {
      std::size_t p = l + ((r - l) >> 1);
      if (lt(pivot, a[p])) r = p;
      else l = p + 1;
    }
    for (std::size_t k = i; k > l; --k) a[k] = a[k - 1];
    a[l] = pivot;
  }
}

// CPython's count_run: length of the run at lo; a strictly descending run is reversed.
template <class T, class Less>
constexpr std::size_t count_run(std::vector<T>& a, std::size_t lo, std::size_t hi, Less& lt) {
  if (lo + 1 >= hi) return hi - lo;
  std::size_t n = 2;
  if (lt(a[lo + 1], a[lo])) {
    while (lo + n < hi && lt(a[lo + n], a[lo + n - 1])) ++n;
    std::reverse(a.begin() + static_cast<std::ptrdiff_t>(lo), a.begin() + static_cast<std::ptrdiff_t>(lo + n));
  } else {
    while (lo + n < hi && !lt(a[lo + n], a[lo + n - 1])) ++n;
  }
  return n;
}

// CPython's merge_compute_minrun.
constexpr std::size_t min_run(std::size_t n) {
  std::size_t r = 0;
  while (n >= 64) {
    r |= n & 1;
    n >>= 1;
  }
  return n + r;
}

/// Stable ascending sort by `lt` following CPython's timsort: natural runs extended
/// to minrun by binary insertion, then merged (stably) left to right.
template <class T, class Less>
constexpr void python_sort(std::vector<T>& a, Less lt) {
  const std::size_t n = a.size();
  if (n < 2) return;
  std::size_t minrun = min_run(n);
  if (minrun == n) {  // below 64: one run, extended by binary insertion; nothing to merge
    binary_insertion(a, 0, n, count_run(a, 0, n, lt), lt);
    return;
  }
  std::vector<std::size_t> starts;
  for (std::size_t lo = 0; lo < n;) {
    std::size_t run = count_run(a, lo, n, lt);
    if (run < minrun) {
      std::size_t force = std::min(minrun, n - lo);
      binary_insertion(a, lo, lo + force, lo + run, lt);
      run = force;
    }
    starts.push_back(lo);
    lo += run;
  }
  starts.push_back(n);
  std::vector<T> tmp;
  while (starts.size() > 2) {
    std::vector<std::size_t> next;
    for (std::size_t i = 0; i + 1 < starts.size(); i += 2) {
      next.push_back(starts[i]);
      if (i + 2 >= starts.size()) break;
      std::size_t lo = starts[i], mid = starts[i + 1], hi = starts[i + 2];
      tmp.assign(a.begin() + static_cast<std::ptrdiff_t>(lo), a.begin() + static_cast<std::ptrdiff_t>(mid));
      std::size_t x = 0, y = mid, k = lo;
      while (x < tmp.size() && y < hi) a[k++] = lt(a[y], tmp[x]) ? a[y++] : tmp[x++];
      while (x < tmp.size()) a[k++] = tmp[x++];
    }
    next.push_back(n);
    starts = std::move(next);
  }
}

/// Python's list.sort(reverse=True): reverse, sort ascending, reverse, so equal
/// elements keep their original order.
template <class T, class Less>
constexpr void python_sort_descending(std::vector<T>& a, Less lt) {
  std::reverse(a.begin(), a.end());
  python_sort(a, lt);
  std::reverse(a.begin(), a.end());
}

}  // namespace fusedsl::detail
