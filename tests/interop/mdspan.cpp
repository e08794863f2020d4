// std::mdspan's interface (interop/mdspan.hpp): views of layout_right, layout_left and
// layout_stride mdspans without copies, const elements, and a layout that is not strided
// refused. The type below has exactly the members from_mdspan uses (g++ 12 has no
// <mdspan>); where the standard library has one, std::mdspan is checked as well.
#include <array>
#include <cstddef>  // std::size_t
#include <vector>
#if __has_include(<mdspan>)
#  include <mdspan>
#endif

#include <doctest/doctest.h>

#include <fusedsl/interop/mdspan.hpp>

namespace fx = fusedsl;

namespace {

/// std::mdspan's members that a strided layout answers, over a pointer.
template <class T, std::size_t Rank>
struct strided_mdspan {
  using element_type = T;
  using data_handle_type = T*;
  T* data;
  std::array<std::size_t, Rank> extents, strides;
  bool strided = true;
  static constexpr std::size_t rank() { return Rank; }
  std::size_t extent(std::size_t r) const { return extents[r]; }
  std::size_t stride(std::size_t r) const { return strides[r]; }
  bool is_strided() const { return strided; }
  T* const& data_handle() const { return data; }
};

}  // namespace

TEST_CASE("from_mdspan views row-major, column-major and strided mdspans without copies") {
  std::vector<float> values(12);
  const strided_mdspan<float, 2> right{values.data(), {3, 4}, {4, 1}};
  const fx::tensor_view<float> r = fx::from_mdspan(right);
  CHECK(r.data() == values.data());
  CHECK(r.sizes() == fx::shape{3, 4});
  CHECK(r.is_contiguous());

  const strided_mdspan<const float, 2> left{values.data(), {3, 4}, {1, 3}};
  const fx::tensor_view<const float> l = fx::from_mdspan(left);
  CHECK(l.strides() == fx::shape{1, 3});
  CHECK(!l.is_contiguous());

  const strided_mdspan<float, 3> every_other{values.data() + 1, {2, 1, 3}, {6, 0, 2}};
  const fx::tensor_view<float> s = fx::from_mdspan(every_other, fx::device::cpu);
  CHECK(s.data() == values.data() + 1);
  CHECK(s.sizes() == fx::shape{2, 1, 3});
  CHECK(s.strides() == fx::shape{6, 0, 2});

  const strided_mdspan<double, 0> scalar{nullptr, {}, {}};
  CHECK(fx::from_mdspan(scalar).rank() == 0);
}

TEST_CASE("from_mdspan refuses a layout that is not strided, and non-mdspan types do not match") {
  std::vector<int> values(4);
  strided_mdspan<int, 1> packed{values.data(), {4}, {1}, false};
  CHECK_THROWS_WITH_AS(fx::from_mdspan(packed), doctest::Contains("layout is not strided"), fx::error);
  static_assert(!fx::mdspan_like<std::vector<int>>);
  static_assert(fx::mdspan_like<strided_mdspan<int, 1>>);
}

#if defined(__cpp_lib_mdspan)
TEST_CASE("from_mdspan views std::mdspan of every standard layout") {
  std::vector<double> values(6);
  const std::mdspan right(values.data(), 2, 3);
  CHECK(fx::from_mdspan(right).strides() == fx::shape{3, 1});
  const std::mdspan<double, std::dextents<int, 2>, std::layout_left> left(values.data(), 2, 3);
  CHECK(fx::from_mdspan(left).strides() == fx::shape{1, 2});
  const std::layout_stride::mapping strided(std::dextents<int, 2>(2, 2), std::array<int, 2>{3, 1});
  CHECK(fx::from_mdspan(std::mdspan(values.data(), strided)).strides() == fx::shape{3, 1});
}
#endif
