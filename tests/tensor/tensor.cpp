// tensor: ownership, construction, forwarding view operations, and device handling without a GPU.
#include <doctest/doctest.h>

#include <cstddef>      // std::byte
#include <cstdint>      // std::int64_t, std::uintptr_t
#include <type_traits>  // std::is_copy_constructible_v, ...
#include <utility>      // std::move

#include <fusedsl/core/error.hpp>          // fusedsl::error
#include <fusedsl/core/half.hpp>           // half, bfloat16
#include <fusedsl/core/host_memory.hpp>    // host_alignment, host_vector
#include <fusedsl/tensor/tensor.hpp>       // tensor
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

using fusedsl::device;
using fusedsl::shape;
using fusedsl::tensor;
using fusedsl::tensor_view;

static_assert(!std::is_copy_constructible_v<tensor<float>>, "copies are explicit: clone()");
static_assert(!std::is_copy_assignable_v<tensor<float>>);
static_assert(std::is_nothrow_move_constructible_v<tensor<float>>);
static_assert(std::is_nothrow_move_assignable_v<tensor<float>>);
static_assert(std::is_convertible_v<tensor<float>&, tensor_view<float>>);
static_assert(std::is_convertible_v<tensor<float>&, tensor_view<const float>>);
static_assert(std::is_convertible_v<const tensor<float>&, tensor_view<const float>>);
static_assert(!std::is_convertible_v<const tensor<float>&, tensor_view<float>>, "a const tensor gives read-only views");
static_assert(!std::is_constructible_v<tensor<float>, shape, int>, "the device is a fusedsl::device, not a number");

TEST_CASE("a tensor is contiguous row-major and owns its elements") {
  tensor<std::int64_t> t({2, 3});
  CHECK(t.sizes() == shape{2, 3});
  CHECK(t.strides() == shape{3, 1});
  CHECK(t.rank() == 2);
  CHECK(t.numel() == 6);
  CHECK(t.where() == device::cpu);
  CHECK(t.is_contiguous());
  CHECK(t.size(-1) == 3);
  CHECK(t.stride(0) == 3);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) t(i, j) = 10 * i + j;
  CHECK(t.data()[4] == 11);
  const tensor<std::int64_t>& read_only = t;
  CHECK(read_only(1, 2) == 12);
  CHECK(read_only.view().data() == t.data());
  CHECK_THROWS_WITH_AS(t(2, 0), doctest::Contains("out of bounds for sizes [2, 3] at axis 0"), fusedsl::error);
}

TEST_CASE("host tensors start on a cache line, small and large, of every element type") {
  // Large buffers come from mmap, where malloc's data starts 16 bytes into a page.
  const auto starts_on_a_line = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; };
  static_assert(fusedsl::host_alignment == 64);
  for (std::int64_t n : {1, 3, 1023, 4097, 1 << 22}) {
    CAPTURE(n);
    CHECK(starts_on_a_line(tensor<float>({n}).data()));
    CHECK(starts_on_a_line(tensor<double>({n}).data()));
    CHECK(starts_on_a_line(tensor<std::int8_t>({n}).data()));
    CHECK(starts_on_a_line(tensor<bool>({n}).data()));
    CHECK(starts_on_a_line(tensor<fusedsl::bfloat16>({n}).data()));
  }
  const fusedsl::detail::host_vector<std::byte> bytes(100);
  CHECK(starts_on_a_line(bytes.data()));
}

TEST_CASE("full fills every element, for every element type") {
  CHECK(tensor<float>::full({4}, 2.5f)(3) == 2.5f);
  CHECK(tensor<bool>::full({2, 2}, true)(1, 1));
  CHECK(static_cast<float>(tensor<fusedsl::half>::full({3}, fusedsl::half(1.5f))(2)) == 1.5f);
  CHECK(static_cast<float>(tensor<fusedsl::bfloat16>::full({3}, fusedsl::bfloat16(-2.0f))(0)) == -2.0f);
  CHECK(tensor<std::uint8_t>::full({1, 2, 3}, 255)(0, 1, 2) == 255);
}

TEST_CASE("clone copies, moves transfer, a moved-from tensor is empty") {
  tensor<int> a = tensor<int>::full({2, 2}, 7);
  tensor<int> b = a.clone();
  CHECK(b.data() != a.data());
  b(0, 0) = 1;
  CHECK(a(0, 0) == 7);

  const int* memory = a.data();
  tensor<int> c = std::move(a);
  CHECK(c.data() == memory);
  CHECK(a.numel() == 0);  // NOLINT(bugprone-use-after-move): the moved-from state is documented
  CHECK(a.data() == nullptr);
  b = std::move(c);
  CHECK(b.data() == memory);
  CHECK(b(1, 1) == 7);
  CHECK(tensor<int>().sizes() == shape{0});
}

TEST_CASE("view operations on a tensor return views into its memory") {
  tensor<int> t({2, 3});
  for (int i = 0; i < 6; ++i) t.data()[i] = i;
  CHECK(t.transpose(0, 1)(2, 1) == 5);
  CHECK(t.permute({1, 0}).strides() == shape{1, 3});
  CHECK(t.permute(shape{1, 0}).sizes() == shape{3, 2});
  CHECK(t.slice(1, 0, 3, 2)(1, 1) == 5);
  CHECK(t.reshape({3, 2})(2, 0) == 4);
  CHECK(t.expand({4, 2, 3}).strides() == shape{0, 3, 1});
  CHECK(t.unsqueeze(0).sizes() == shape{1, 2, 3});
  CHECK(t.reshape({1, 6}).squeeze(0).sizes() == shape{6});
  t.slice(0, 1, 2)(0, 0) = 100;  // a view of a non-const tensor writes through
  CHECK(t(1, 0) == 100);
  const tensor<int>& c = t;
  static_assert(std::is_same_v<decltype(c.transpose(0, 1)), tensor_view<const int>>);
  static_assert(std::is_same_v<decltype(t.transpose(0, 1)), tensor_view<int>>);
  CHECK(c.slice(1, 1, 2).squeeze(1)(1) == 4);
  CHECK(c.permute({1, 0}).unsqueeze(0).expand({2, 3, 2}).numel() == 12);
}

TEST_CASE("empty and rank-0 tensors") {
  tensor<float> empty({3, 0, 2});
  CHECK(empty.numel() == 0);
  CHECK(empty.strides() == shape{2, 2, 1});
  CHECK(empty.clone().sizes() == shape{3, 0, 2});
  CHECK(empty.reshape({0, 5}).numel() == 0);

  tensor<double> scalar = tensor<double>::full(shape{}, 4.0);
  CHECK(scalar.rank() == 0);
  CHECK(scalar.numel() == 1);
  CHECK(scalar() == 4.0);
  CHECK(scalar.clone()() == 4.0);
  CHECK(scalar.expand({2, 2})(1, 1) == 4.0);
}

TEST_CASE("a negative size is rejected before allocating") {
  CHECK_THROWS_WITH_AS(tensor<float>({2, -3}),
                       doctest::Contains("tensor: sizes [2, -3] have a negative size at axis 1"), fusedsl::error);
  CHECK_THROWS_WITH_AS(tensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}),
                       doctest::Contains("shape: cannot have more than 8 axes"), fusedsl::error);
}

#if !defined(FUSEDSL_HAS_CUDA_RUNTIME)
TEST_CASE("without the CUDA runtime, CUDA memory is a clear error") {
  constexpr const char* message =
      "fusedsl was compiled without the CUDA runtime; compile with nvcc or define FUSEDSL_WITH_CUDART and link "
      "CUDA::cudart";
  CHECK_THROWS_WITH_AS(tensor<float>({2}, device::cuda), message, fusedsl::error);
  CHECK_THROWS_WITH_AS(tensor<float>({0}, device::cuda), message, fusedsl::error);
  CHECK_THROWS_WITH_AS(tensor<float>::full({2}, 1.0f, device::cuda), message, fusedsl::error);
  CHECK_THROWS_WITH_AS(tensor<float>::full({2}, 1.0f).to(device::cuda), message, fusedsl::error);
}
#endif
