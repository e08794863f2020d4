// tensor_view: construction, layout queries and the view operations, over plain host arrays.
#include <doctest/doctest.h>

#include <cstdint>      // std::int64_t
#include <numeric>      // std::iota
#include <type_traits>  // std::is_convertible_v, std::is_trivially_copyable_v
#include <vector>       // std::vector

#include <fusedsl/core/error.hpp>          // fusedsl::error
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

using fusedsl::device;
using fusedsl::shape;
using fusedsl::tensor_view;

namespace {
/// 0, 1, 2, ...: element i of a contiguous view holds i, so a value names its flat position.
std::vector<float> iota(std::int64_t n) {
  std::vector<float> values(static_cast<std::size_t>(n));
  std::iota(values.begin(), values.end(), 0.0f);
  return values;
}
}  // namespace

static_assert(std::is_convertible_v<tensor_view<float>, tensor_view<const float>>);
static_assert(!std::is_convertible_v<tensor_view<const float>, tensor_view<float>>);
static_assert(!std::is_convertible_v<tensor_view<float>, tensor_view<double>>);
static_assert(std::is_trivially_copyable_v<tensor_view<float>>, "views are passed to kernels by value");

TEST_CASE("a contiguous view reports row-major strides and indexes elements") {
  std::vector<float> values = iota(24);
  const tensor_view<float> v(values.data(), {2, 3, 4});
  CHECK(v.rank() == 3);
  CHECK(v.numel() == 24);
  CHECK(v.sizes() == shape{2, 3, 4});
  CHECK(v.strides() == shape{12, 4, 1});
  CHECK(v.where() == device::cpu);
  CHECK(v.is_contiguous());
  CHECK(v.size(-1) == 4);
  CHECK(v.size(0) == 2);
  CHECK(v.stride(-3) == 12);
  CHECK(v(1, 2, 3) == 23.0f);
  CHECK(v.at({1, 0, 2}) == 14.0f);
  v(0, 1, 0) = -1.0f;
  CHECK(values[4] == -1.0f);
  const tensor_view<const float> read_only = v;
  CHECK(read_only(0, 1, 0) == -1.0f);
  CHECK(read_only.data() == values.data());
}

TEST_CASE("the default view is empty") {
  const tensor_view<int> v;
  CHECK(v.numel() == 0);
  CHECK(v.rank() == 1);
  CHECK(v.data() == nullptr);
}

TEST_CASE("construction checks ranks, sizes and strides") {
  float x = 0;
  CHECK_THROWS_WITH_AS(tensor_view<float>(&x, {2, 3}, {1}),
                       doctest::Contains("sizes [2, 3] and strides [1] have different ranks (2 and 1)"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(tensor_view<float>(&x, {2, -1}),
                       doctest::Contains("sizes [2, -1] have a negative size at axis 1"), fusedsl::error);
  CHECK_THROWS_WITH_AS(tensor_view<float>(&x, {2, 2}, {-2, 1}),
                       doctest::Contains("negative stride at axis 0; only non-negative strides are supported"),
                       fusedsl::error);
}

TEST_CASE("permute and transpose reorder sizes and strides without copying") {
  std::vector<float> values = iota(24);
  const tensor_view<float> v(values.data(), {2, 3, 4});
  const auto p = v.permute({2, 0, 1});
  CHECK(p.sizes() == shape{4, 2, 3});
  CHECK(p.strides() == shape{1, 12, 4});
  CHECK(p.data() == v.data());
  CHECK_FALSE(p.is_contiguous());
  CHECK(p(3, 1, 2) == v(1, 2, 3));
  CHECK(v.permute(shape{-1, -2, -3}).sizes() == shape{4, 3, 2});

  const auto t = v.transpose(0, -1);
  CHECK(t.sizes() == shape{4, 3, 2});
  CHECK(t.strides() == shape{1, 4, 12});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) CHECK(t(i, j, k) == v(k, j, i));
  CHECK(t.transpose(0, 2).is_contiguous());

  CHECK_THROWS_WITH_AS(v.permute({0, 0, 1}),
                       doctest::Contains("permute: order [0, 0, 1] is not a permutation of the axes of a rank-3 view"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.permute({0, 1, 3}), doctest::Contains("is not a permutation"), fusedsl::error);
  CHECK_THROWS_WITH_AS(v.permute({1, 0}),
                       doctest::Contains("permute: order [1, 0] has length 2 but the view has rank 3"), fusedsl::error);
  CHECK_THROWS_WITH_AS(v.transpose(0, 3),
                       doctest::Contains("transpose: axis 3 is out of range for a rank-3 view (expected -3 to 2)"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.size(-4), doctest::Contains("size: axis -4 is out of range"), fusedsl::error);
  CHECK_THROWS_WITH_AS(v.stride(3), doctest::Contains("stride: axis 3 is out of range"), fusedsl::error);
}

TEST_CASE("slice with a step selects every step-th element") {
  std::vector<float> values = iota(30);
  const tensor_view<float> v(values.data(), {3, 10});
  const auto s = v.slice(1, 1, 8, 3);  // columns 1, 4, 7
  CHECK(s.sizes() == shape{3, 3});
  CHECK(s.strides() == shape{10, 3});
  CHECK(s(0, 0) == 1.0f);
  CHECK(s(2, 2) == 27.0f);
  CHECK(v.slice(1, 1, 9, 3).size(1) == 3);   // 1, 4, 7 (10 is past the stop)
  CHECK(v.slice(1, 1, 10, 3).size(1) == 3);  // 1, 4, 7
  CHECK(v.slice(-2, 1, 3).sizes() == shape{2, 10});
  CHECK(v.slice(-2, 1, 3).is_contiguous());
  CHECK(v.slice(1, 4, 4).numel() == 0);
  CHECK(v.slice(1, 10, 10).numel() == 0);
  // Slicing twice composes offsets and steps.
  const auto twice = v.slice(1, 2, 10, 2).slice(1, 1, 4, 2);  // columns 4, 8
  CHECK(twice(1, 0) == 14.0f);
  CHECK(twice(1, 1) == 18.0f);

  CHECK_THROWS_WITH_AS(
      v.slice(1, 2, 11),
      doctest::Contains(
          "slice: axis 1 of size 10 expects 0 <= start <= stop <= 10 and step >= 1, got start 2, stop 11, step 1"),
      fusedsl::error);
  CHECK_THROWS_WITH_AS(v.slice(0, 2, 1), doctest::Contains("got start 2, stop 1, step 1"), fusedsl::error);
  CHECK_THROWS_WITH_AS(v.slice(0, -1, 1), doctest::Contains("got start -1"), fusedsl::error);
  CHECK_THROWS_WITH_AS(v.slice(0, 0, 1, 0), doctest::Contains("step 0"), fusedsl::error);
  CHECK_THROWS_WITH_AS(v.slice(2, 0, 1), doctest::Contains("slice: axis 2 is out of range"), fusedsl::error);
}

TEST_CASE("expand repeats size-1 axes with stride 0 and adds leading axes") {
  std::vector<float> values = iota(3);
  const tensor_view<float> column(values.data(), {3, 1});
  const auto e = column.expand({2, 3, 4});
  CHECK(e.sizes() == shape{2, 3, 4});
  CHECK(e.strides() == shape{0, 1, 0});
  CHECK(e.numel() == 24);
  CHECK_FALSE(e.is_contiguous());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) CHECK(e(i, j, k) == static_cast<float>(j));
  CHECK(column.expand({3, 1}).strides() == column.strides());
  CHECK(column.expand({3, 0}).numel() == 0);
  const tensor_view<float> scalar(values.data(), shape{});
  CHECK(scalar.expand({5}).strides() == shape{0});

  CHECK_THROWS_WITH_AS(column.expand({2, 4}),
                       doctest::Contains(
                           "expand: cannot expand sizes [3, 1] to [2, 4]: axis 0 has size 3, expected 1 or 2"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(column.expand({3}),
                       doctest::Contains("expand: cannot expand sizes [3, 1] to [3], which has fewer axes"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(column.expand({3, -1}),
                       doctest::Contains("expand: sizes [3, -1] have a negative size at axis 1"), fusedsl::error);
}

TEST_CASE("reshape views contiguous data with new sizes") {
  std::vector<float> values = iota(24);
  const tensor_view<float> v(values.data(), {2, 3, 4});
  const auto r = v.reshape({6, 4});
  CHECK(r.sizes() == shape{6, 4});
  CHECK(r.strides() == shape{4, 1});
  CHECK(r(5, 3) == 23.0f);
  CHECK(v.reshape({-1}).sizes() == shape{24});
  CHECK(v.reshape({4, -1, 2}).sizes() == shape{4, 3, 2});
  CHECK(v.reshape({2, 1, 12}).sizes() == shape{2, 1, 12});
  CHECK(v.slice(0, 1, 2).reshape({3, 4})(0, 0) == 12.0f);  // a contiguous slice may be reshaped
  const tensor_view<float> empty(values.data(), {0, 3});
  CHECK(empty.reshape({3, 0, 5}).numel() == 0);
  const tensor_view<float> scalar(values.data(), shape{});
  CHECK(scalar.reshape({1, 1}).sizes() == shape{1, 1});
  CHECK_THROWS_AS(v.reshape(shape{}), fusedsl::error);  // rank 0 holds one element, not 24
}

TEST_CASE("reshape rejects non-contiguous views and impossible sizes") {
  std::vector<float> values = iota(24);
  const tensor_view<float> v(values.data(), {2, 3, 4});
  CHECK_THROWS_WITH_AS(v.transpose(0, 1).reshape({6, 4}),
                       doctest::Contains("reshape: the view with sizes [3, 2, 4] and strides [4, 12, 1] is not "
                                         "contiguous; copy it first with fusedsl::contiguous(view)"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.slice(2, 0, 4, 2).reshape({12}), doctest::Contains("is not contiguous; copy it first"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.reshape({5, 5}),
                       doctest::Contains("reshape: cannot reshape sizes [2, 3, 4] (24 elements) to [5, 5]"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.reshape({5, -1}), doctest::Contains("cannot reshape sizes [2, 3, 4] (24 elements) to [5, -1]"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.reshape({-1, -1}),
                       doctest::Contains("reshape: sizes [-1, -1] may hold -1 once and no other negative size"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.reshape({-2, 12}), doctest::Contains("may hold -1 once"), fusedsl::error);
  const tensor_view<float> empty(values.data(), {0, 3});
  CHECK_THROWS_WITH_AS(empty.reshape({0, -1}), doctest::Contains("cannot reshape sizes [0, 3] (0 elements) to [0, -1]"),
                       fusedsl::error);
}

TEST_CASE("unsqueeze and squeeze add and remove size-1 axes") {
  std::vector<float> values = iota(6);
  const tensor_view<float> v(values.data(), {2, 3});
  CHECK(v.unsqueeze(0).sizes() == shape{1, 2, 3});
  CHECK(v.unsqueeze(1).sizes() == shape{2, 1, 3});
  CHECK(v.unsqueeze(-1).sizes() == shape{2, 3, 1});
  CHECK(v.unsqueeze(1).is_contiguous());
  CHECK(v.unsqueeze(-1).is_contiguous());
  CHECK(v.unsqueeze(1).squeeze(1).sizes() == v.sizes());
  CHECK(v.unsqueeze(1).squeeze(1).strides() == v.strides());
  CHECK(v.unsqueeze(2)(1, 2, 0) == 5.0f);
  CHECK_THROWS_WITH_AS(v.squeeze(0), doctest::Contains("squeeze: axis 0 of sizes [2, 3] has size 2, expected 1"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.unsqueeze(3), doctest::Contains("unsqueeze: axis 3 is out of range for a rank-3 view"),
                       fusedsl::error);
  const tensor_view<float> full_rank(values.data(), {1, 1, 1, 1, 1, 1, 1, 1});
  CHECK_THROWS_WITH_AS(full_rank.unsqueeze(0), doctest::Contains("shape: cannot have more than 8 axes"),
                       fusedsl::error);
}

TEST_CASE("element access checks the index count, the bounds and the device") {
  std::vector<float> values = iota(6);
  const tensor_view<float> v(values.data(), {2, 3});
  CHECK_THROWS_WITH_AS(v(0), doctest::Contains("tensor_view: index [0] has rank 1 but the view has rank 2"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v(1, 3),
                       doctest::Contains("tensor_view: index [1, 3] is out of bounds for sizes [2, 3] at axis 1"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v(-1, 0), doctest::Contains("index [-1, 0] is out of bounds for sizes [2, 3] at axis 0"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(v.at({0, 0, 0}), doctest::Contains("index [0, 0, 0] has rank 3 but the view has rank 2"),
                       fusedsl::error);
  const tensor_view<float> on_gpu(values.data(), {2, 3}, device::cuda);
  CHECK_THROWS_WITH_AS(
      on_gpu(0, 0),
      doctest::Contains("element access on the host needs a cpu view, this one is on cuda; copy it to the cpu first"),
      fusedsl::error);
  CHECK(on_gpu.slice(1, 1, 2).where() == device::cuda);  // view operations keep the device
}

TEST_CASE("a rank-0 view has one element") {
  float x = 7.0f;
  const tensor_view<float> v(&x, shape{});
  CHECK(v.rank() == 0);
  CHECK(v.numel() == 1);
  CHECK(v.is_contiguous());
  CHECK(v() == 7.0f);
  CHECK(v.at(shape{}) == 7.0f);
  CHECK(v.unsqueeze(0).sizes() == shape{1});
}

TEST_CASE("sizes are 64-bit: a stride-0 view larger than 2^32 elements over one element") {
  float x = 3.0f;
  const tensor_view<float> one(&x, {1, 1, 1});
  const auto huge = one.expand({1 << 20, 1 << 20, 5});
  CHECK(huge.numel() == std::int64_t{5} << 40);
  CHECK(huge.size(0) == std::int64_t{1} << 20);
  CHECK(huge((1 << 20) - 1, 123456, 4) == 3.0f);
  CHECK(huge.slice(2, 1, 5, 2).numel() == std::int64_t{1} << 41);
  CHECK_THROWS_WITH_AS(huge.reshape({-1}), doctest::Contains("is not contiguous"), fusedsl::error);
}
