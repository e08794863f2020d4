// detail::small_vector, the scheduler's per-node lists: in place up to N, then on the heap,
// with copies, moves and erase_if keeping every element, in constant evaluation and at run time.
#include <fusedsl/schedule/detail/small_vector.hpp>

#include <doctest/doctest.h>

#include <utility>  // std::move
#include <vector>   // std::vector

namespace {

using fusedsl::detail::small_vector;

/// 0 .. n-1 pushed one by one, then copied, moved, filtered and appended; the
/// elements as a std::vector.
constexpr std::vector<int> exercise(int n) {
  small_vector<int, 4> a;
  for (int i = 0; i < n; ++i) a.push_back(i);
  small_vector<int, 4> copy = a;
  small_vector<int, 4> moved = std::move(copy);
  moved.erase_if([](int x) { return x % 3 == 1; });
  small_vector<int, 4> other{100, 101};
  other = moved;  // copy-assigned over two elements
  other.append(a.begin(), a.begin() + (n < 2 ? n : 2));
  small_vector<int, 4> last;
  last = std::move(other);  // move-assigned
  return std::vector<int>(last.begin(), last.end());
}

std::vector<int> expected(int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i)
    if (i % 3 != 1) v.push_back(i);
  for (int i = 0; i < n && i < 2; ++i) v.push_back(i);
  return v;
}

// In place (3), exactly full (4), and grown twice onto the heap (9).
static_assert(exercise(3) == std::vector<int>{0, 2, 0, 1});
static_assert(exercise(4) == std::vector<int>{0, 2, 3, 0, 1});
static_assert(exercise(9).size() == 8);

}  // namespace

TEST_CASE("small_vector keeps its elements in place and on the heap, through copies, moves and erase_if") {
  for (int n : {0, 1, 3, 4, 5, 8, 9, 100}) {
    CAPTURE(n);
    CHECK(exercise(n) == expected(n));
  }
  small_vector<int, 2> v{7, 8, 9};
  CHECK(v.size() == 3);
  CHECK(v.front() == 7);
  CHECK(v.back() == 9);
  v.clear();
  CHECK(v.empty());
  v.push_back(1);
  CHECK(v[0] == 1);
}
