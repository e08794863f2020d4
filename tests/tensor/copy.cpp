// copy and contiguous between host views of any strides.
#include <doctest/doctest.h>

#include <cstdint>  // std::int64_t
#include <vector>   // std::vector

#include <fusedsl/core/error.hpp>          // fusedsl::error
#include <fusedsl/core/half.hpp>           // half
#include <fusedsl/tensor/copy.hpp>         // copy, contiguous
#include <fusedsl/tensor/tensor.hpp>       // tensor
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

using fusedsl::device;
using fusedsl::shape;
using fusedsl::tensor;
using fusedsl::tensor_view;

namespace {
/// A tensor whose element at flat position i holds i.
tensor<int> numbered(const shape& sizes) {
  tensor<int> t(sizes);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<int>(i);
  return t;
}
}  // namespace

TEST_CASE("copy between contiguous views") {
  const tensor<int> src = numbered({2, 3});
  tensor<int> dst({2, 3});
  fusedsl::copy(src, dst);
  for (int i = 0; i < 6; ++i) CHECK(dst.data()[i] == i);
}

TEST_CASE("copy from a transposed view materializes the transpose") {
  const tensor<int> src = numbered({3, 4});
  tensor<int> dst({4, 3});
  fusedsl::copy(src.transpose(0, 1), dst);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) CHECK(dst(i, j) == src(j, i));
}

TEST_CASE("copy into a strided destination leaves the gaps untouched") {
  const tensor<int> src = numbered({2, 3});
  tensor<int> dst = tensor<int>::full({4, 6}, -1);
  fusedsl::copy(src, dst.slice(0, 0, 4, 2).slice(1, 1, 6, 2));  // rows 0, 2; columns 1, 3, 5
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) {
      const bool written = i % 2 == 0 && j % 2 == 1;
      CHECK(dst(i, j) == (written ? src(i / 2, j / 2) : -1));
    }
}

TEST_CASE("copy between two strided views of rank 4") {
  const tensor<int> src = numbered({2, 3, 4, 5});
  tensor<int> dst = tensor<int>::full({5, 4, 3, 2}, 0);
  fusedsl::copy(src.permute({3, 2, 1, 0}), dst.view());
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 5; ++d) CHECK(dst(d, c, b, a) == src(a, b, c, d));
  // Both sides strided: the permutation undone into every other column of a wider tensor.
  tensor<int> wide = tensor<int>::full({2, 3, 4, 10}, -1);
  fusedsl::copy(dst.permute({3, 2, 1, 0}), wide.slice(3, 0, 10, 2));
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 10; ++d) CHECK(wide(a, b, c, d) == (d % 2 == 0 ? src(a, b, c, d / 2) : -1));
}

TEST_CASE("copy from an expanded (stride-0) source broadcasts") {
  const tensor<fusedsl::half> row = tensor<fusedsl::half>::full({1, 3}, fusedsl::half(0.5f));
  tensor<fusedsl::half> dst({4, 3});
  fusedsl::copy(row.expand({4, 3}), dst);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) CHECK(static_cast<float>(dst(i, j)) == 0.5f);
}

TEST_CASE("copy of empty and rank-0 views") {
  tensor<bool> empty_dst({0, 3});
  fusedsl::copy(tensor<bool>({0, 3}), empty_dst);
  tensor<double> scalar_dst(shape{});
  fusedsl::copy(tensor<double>::full(shape{}, 2.0), scalar_dst);
  CHECK(scalar_dst() == 2.0);
}

TEST_CASE("copy checks sizes and refuses destinations that repeat elements") {
  const tensor<int> src = numbered({2, 3});
  tensor<int> dst({3, 2});
  CHECK_THROWS_WITH_AS(fusedsl::copy(src, dst),
                       doctest::Contains("copy: source sizes [2, 3] and destination sizes [3, 2] differ"),
                       fusedsl::error);
  tensor<int> row({1, 3});
  CHECK_THROWS_WITH_AS(fusedsl::copy(src, row.expand({2, 3})),
                       doctest::Contains("copy: the destination has stride 0 at axis 0 (sizes [2, 3], strides [0, 1]), "
                                         "so several elements would be written to one memory location"),
                       fusedsl::error);
}

TEST_CASE("contiguous makes a dense copy on the same device") {
  const tensor<int> src = numbered({3, 4});
  const tensor<int> t = fusedsl::contiguous(src.transpose(0, 1));
  CHECK(t.sizes() == shape{4, 3});
  CHECK(t.strides() == shape{3, 1});
  CHECK(t(3, 2) == src(2, 3));
  tensor<int> writable = numbered({2, 2});
  const tensor<int> u = fusedsl::contiguous(writable.view().slice(1, 1, 2));
  CHECK(u.sizes() == shape{2, 1});
  CHECK(u(1, 0) == 3);
  // A view that cannot be reshaped can be after contiguous().
  CHECK(fusedsl::contiguous(src.transpose(0, 1)).reshape({-1})(1) == 4);
}

#if !defined(FUSEDSL_HAS_CUDA_RUNTIME)
TEST_CASE("copy to or from a cuda view needs the CUDA runtime") {
  const tensor<int> src = numbered({2, 3});
  int memory[6] = {};
  const tensor_view<int> on_gpu(memory, {2, 3}, device::cuda);
  CHECK_THROWS_WITH_AS(fusedsl::copy(src, on_gpu), doctest::Contains("compiled without the CUDA runtime"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(fusedsl::copy(on_gpu, tensor<int>({2, 3}).view()),
                       doctest::Contains("compiled without the CUDA runtime"), fusedsl::error);
  CHECK_THROWS_WITH_AS(fusedsl::contiguous(on_gpu), doctest::Contains("compiled without the CUDA runtime"),
                       fusedsl::error);
}
#endif
