// shape: construction, comparison, numel, printing, numpy broadcasting, row-major strides.
#include <doctest/doctest.h>

#include <cstdint>      // std::int64_t
#include <type_traits>  // std::is_trivially_copyable_v

#include <fusedsl/core/error.hpp>  // fusedsl::error
#include <fusedsl/core/shape.hpp>  // shape, broadcastable, broadcast_shapes, contiguous_strides

using fusedsl::broadcast_shapes;
using fusedsl::broadcastable;
using fusedsl::contiguous_strides;
using fusedsl::shape;

static_assert(std::is_trivially_copyable_v<shape>, "shapes are passed to kernels by value");
static_assert(fusedsl::max_rank == 8);

// Everything but the throwing paths is constexpr.
static_assert(shape{}.rank() == 0);
static_assert(shape{}.numel() == 1);
static_assert(shape{2, 3, 4}.numel() == 24);
static_assert(shape{2, 0, 4}.numel() == 0);
static_assert(shape{2, 3}[1] == 3);
static_assert(shape{2, 3} == shape{2, 3});
static_assert(shape{2, 3} != shape{2, 3, 1});
static_assert(shape{2, 3} != shape{3, 2});
static_assert(shape{} == shape{});
static_assert([] {
  shape s;
  s.push_back(5);
  s.push_back(6);
  std::int64_t sum = 0;
  for (const std::int64_t extent : s) sum += extent;
  return s == shape{5, 6} && sum == 11;
}());
static_assert(shape{std::int64_t{1} << 33, 4}.numel() == std::int64_t{1} << 35);
static_assert(contiguous_strides(shape{2, 3, 4}) == shape{12, 4, 1});
static_assert(contiguous_strides(shape{}) == shape{});
static_assert(contiguous_strides(shape{2, 0, 4}) == shape{4, 4, 1});  // a 0 extent counts as 1, as in PyTorch
static_assert(broadcastable(shape{2, 3}, shape{3}));
static_assert(broadcastable(shape{2, 1}, shape{1, 5}));
static_assert(broadcastable(shape{}, shape{7, 2}));
static_assert(broadcastable(shape{0}, shape{1}));
static_assert(!broadcastable(shape{2, 3}, shape{4}));
static_assert(!broadcastable(shape{2, 3}, shape{3, 3}));

TEST_CASE("to_string prints shapes as in error messages") {
  CHECK(to_string(shape{2, 3}) == "[2, 3]");
  CHECK(to_string(shape{}) == "[]");
  CHECK(to_string(shape{std::int64_t{1} << 40}) == "[1099511627776]");
}

TEST_CASE("a shape holds at most max_rank extents") {
  CHECK(shape{1, 2, 3, 4, 5, 6, 7, 8}.rank() == 8);
  CHECK_THROWS_WITH_AS(shape({1, 2, 3, 4, 5, 6, 7, 8, 9}), "shape: cannot have more than 8 axes", fusedsl::error);
  shape s{1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_THROWS_WITH_AS(s.push_back(9), "shape: cannot have more than 8 axes", fusedsl::error);
  s[0] = 10;
  CHECK(s[0] == 10);
}

TEST_CASE("broadcast_shapes follows numpy") {
  CHECK(broadcast_shapes({2, 3}, {3}) == shape{2, 3});
  CHECK(broadcast_shapes({3}, {2, 3}) == shape{2, 3});
  CHECK(broadcast_shapes({2, 1, 4}, {3, 1}) == shape{2, 3, 4});
  CHECK(broadcast_shapes({8, 1, 6, 1}, {7, 1, 5}) == shape{8, 7, 6, 5});
  CHECK(broadcast_shapes({}, {4, 5}) == shape{4, 5});
  CHECK(broadcast_shapes({1}, {0}) == shape{0});
  CHECK(broadcast_shapes({0, 1}, {1, 3}) == shape{0, 3});
  CHECK(broadcast_shapes({}, {}) == shape{});
}

TEST_CASE("broadcast_shapes names the first incompatible axis from the end") {
  CHECK_THROWS_WITH_AS(broadcast_shapes({2, 3}, {4}),
                       "cannot broadcast shapes [2, 3] and [4]: axis -1 has sizes 3 and 4", fusedsl::error);
  CHECK_THROWS_WITH_AS(broadcast_shapes({4}, {2, 3}),
                       "cannot broadcast shapes [4] and [2, 3]: axis -1 has sizes 4 and 3", fusedsl::error);
  CHECK_THROWS_WITH_AS(broadcast_shapes({5, 2, 3}, {6, 1, 3}),
                       "cannot broadcast shapes [5, 2, 3] and [6, 1, 3]: axis -3 has sizes 5 and 6", fusedsl::error);
  CHECK_THROWS_WITH_AS(broadcast_shapes({2, 0}, {2, 3}),
                       "cannot broadcast shapes [2, 0] and [2, 3]: axis -1 has sizes 0 and 3", fusedsl::error);
}
