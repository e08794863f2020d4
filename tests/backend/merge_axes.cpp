// merge_axes (runtime/merge_axes.hpp): which axes of a pointwise space merge, and what the
// operands' strides become.
#include <vector>  // std::vector

#include <doctest/doctest.h>

#include <fusedsl/runtime/merge_axes.hpp>

namespace fx = fusedsl;
using fx::shape;

namespace {

/// `space` merged with operands `strides`, returned as {space, strides...}.
std::vector<shape> merged(shape space, std::vector<shape> strides) {
  std::vector<shape*> pointers;
  for (shape& s : strides) pointers.push_back(&s);
  fx::detail::merge_axes(space, pointers);
  strides.insert(strides.begin(), space);
  return strides;
}

}  // namespace

TEST_CASE("merge_axes: contiguous operands of a short-row matrix make one axis") {
  CHECK(merged({4, 3}, {{3, 1}, {3, 1}}) == std::vector<shape>{{12}, {1}, {1}});
  CHECK(merged({4, 1, 3}, {{3, 3, 1}}) == std::vector<shape>{{12}, {1}});  // size-1 axes drop out
}

TEST_CASE("merge_axes: an operand that does not step through two axes as one keeps them apart") {
  // A broadcast row vector (stride 0 along the rows), a transposed operand.
  CHECK(merged({4, 3}, {{3, 1}, {0, 1}}) == std::vector<shape>{{4, 3}, {3, 1}, {0, 1}});
  CHECK(merged({4, 3}, {{3, 1}, {1, 4}}) == std::vector<shape>{{4, 3}, {3, 1}, {1, 4}});
  // A slice of a wider array: only the inner two axes merge.
  CHECK(merged({2, 3, 4}, {{12, 4, 1}, {24, 4, 1}}) == std::vector<shape>{{2, 12}, {12, 1}, {24, 1}});
  // An operand broadcast along every axis (strides 0) merges with a contiguous one.
  CHECK(merged({4, 3}, {{3, 1}, {0, 0}}) == std::vector<shape>{{12}, {1}, {0}});
}

TEST_CASE("merge_axes: one element and no elements") {
  CHECK(merged({1, 1}, {{1, 1}}) == std::vector<shape>{{1}, {0}});
  CHECK(merged({0, 3}, {{3, 1}}) == std::vector<shape>{{0, 3}, {3, 1}});
  CHECK(merged({}, {{}}) == std::vector<shape>{{}, {}});
}
