/// @file tensor.hpp
/// `tensor<T>`: an owning, contiguous, row-major array on the CPU or a CUDA device.
#pragma once
#include <algorithm>         // std::fill_n
#include <concepts>          // std::integral
#include <cstddef>           // std::size_t
#include <cstdint>           // std::int64_t
#include <initializer_list>  // std::initializer_list
#include <memory>            // std::unique_ptr, std::uninitialized_default_construct_n
#include <utility>           // std::exchange

#include <fusedsl/core/dtype.hpp>                  // element
#include <fusedsl/core/host_memory.hpp>            // allocate_host, free_host
#include <fusedsl/core/shape.hpp>                  // shape
#include <fusedsl/tensor/detail/cuda_memory.hpp>   // cuda_allocate, cuda_free
#include <fusedsl/tensor/detail/strided_copy.hpp>  // copy_views
#include <fusedsl/tensor/device.hpp>               // device
#include <fusedsl/tensor/tensor_view.hpp>          // tensor_view, detail::check_sizes

namespace fusedsl {

/// An owning array of `T`, contiguous in row-major order, on the CPU or on the
/// current CUDA device. Move-only, so that a copy of the data is always
/// visible in the code (`clone()`, `to()`). A moved-from tensor is empty
/// (sizes [0]).
///
/// The view operations (`permute`, `slice`, ...) return views into this
/// tensor's memory; they must not outlive it.
template <element T>
class tensor {
 public:
  /// The element type.
  using value_type = T;

  /// An empty rank-1 tensor (sizes [0]) on the CPU; allocates nothing.
  tensor() = default;

  /// Memory for `sizes` on `where`, on the host starting on a cache line
  /// (`host_alignment`). The elements are left uninitialized (they are about
  /// to be overwritten, and filling costs a pass over memory); use `full`
  /// for defined values. Throws `fusedsl::error` for a negative size,
  /// or for `device::cuda` without the CUDA runtime.
  explicit tensor(const shape& sizes, device where = device::cpu)
      : storage_(allocate(sizes, where), release{where}), view_(storage_.get(), sizes, where) {}

  /// A tensor of `sizes` on `where` with every element equal to `value`.
  static tensor full(const shape& sizes, T value, device where = device::cpu) {
    tensor host(sizes);
    std::fill_n(host.data(), host.numel(), value);
    return where == device::cpu ? std::move(host) : host.to(where);
  }

  /// Not copyable: a copy of the data is always visible in the code (`clone()`, `to()`).
  tensor(const tensor&) = delete;
  /// Not copy-assignable; see the deleted copy constructor.
  tensor& operator=(const tensor&) = delete;
  /// Takes over `other`'s memory; `other` becomes empty.
  tensor(tensor&& other) noexcept
      : storage_(std::move(other.storage_)), view_(std::exchange(other.view_, tensor_view<T>{})) {}
  /// Releases this tensor's memory and takes over `other`'s; `other` becomes empty.
  tensor& operator=(tensor&& other) noexcept {
    storage_ = std::move(other.storage_);
    view_ = std::exchange(other.view_, tensor_view<T>{});
    return *this;
  }

  /// First element.
  T* data() { return view_.data(); }
  /// First element.
  const T* data() const { return view_.data(); }
  /// Extent of each axis.
  const shape& sizes() const { return view_.sizes(); }
  /// Row-major strides in elements.
  const shape& strides() const { return view_.strides(); }
  /// Number of axes.
  int rank() const { return view_.rank(); }
  /// Number of elements (1 for rank 0).
  std::int64_t numel() const { return view_.numel(); }
  /// The device the memory is on.
  device where() const { return view_.where(); }
  /// Extent of `axis`; negative axes count from the end.
  std::int64_t size(int axis) const { return view_.size(axis); }
  /// Stride of `axis` in elements; negative axes count from the end.
  std::int64_t stride(int axis) const { return view_.stride(axis); }
  /// Always true; here so that tensors and views answer the same questions.
  bool is_contiguous() const { return true; }

  /// A writable view of the whole tensor.
  tensor_view<T> view() { return view_; }
  /// A read-only view of the whole tensor.
  tensor_view<const T> view() const { return view_; }
  /// Same as `view()`: a tensor can be passed where a view is expected.
  operator tensor_view<T>() { return view_; }
  /// Same as `view() const`.
  operator tensor_view<const T>() const { return view_; }

  /// See `tensor_view::permute`.
  tensor_view<T> permute(std::initializer_list<int> order) { return view_.permute(order); }
  /// See `tensor_view::permute`.
  tensor_view<const T> permute(std::initializer_list<int> order) const { return view().permute(order); }
  /// See `tensor_view::permute`.
  tensor_view<T> permute(const shape& order) { return view_.permute(order); }
  /// See `tensor_view::permute`.
  tensor_view<const T> permute(const shape& order) const { return view().permute(order); }
  /// See `tensor_view::transpose`.
  tensor_view<T> transpose(int a, int b) { return view_.transpose(a, b); }
  /// See `tensor_view::transpose`.
  tensor_view<const T> transpose(int a, int b) const { return view().transpose(a, b); }
  /// See `tensor_view::slice`.
  tensor_view<T> slice(int axis, std::int64_t start, std::int64_t stop, std::int64_t step = 1) {
    return view_.slice(axis, start, stop, step);
  }
  /// See `tensor_view::slice`.
  tensor_view<const T> slice(int axis, std::int64_t start, std::int64_t stop, std::int64_t step = 1) const {
    return view().slice(axis, start, stop, step);
  }
  /// See `tensor_view::expand`.
  tensor_view<T> expand(const shape& new_sizes) { return view_.expand(new_sizes); }
  /// See `tensor_view::expand`.
  tensor_view<const T> expand(const shape& new_sizes) const { return view().expand(new_sizes); }
  /// See `tensor_view::reshape`.
  tensor_view<T> reshape(const shape& new_sizes) { return view_.reshape(new_sizes); }
  /// See `tensor_view::reshape`.
  tensor_view<const T> reshape(const shape& new_sizes) const { return view().reshape(new_sizes); }
  /// See `tensor_view::unsqueeze`.
  tensor_view<T> unsqueeze(int axis) { return view_.unsqueeze(axis); }
  /// See `tensor_view::unsqueeze`.
  tensor_view<const T> unsqueeze(int axis) const { return view().unsqueeze(axis); }
  /// See `tensor_view::squeeze`.
  tensor_view<T> squeeze(int axis) { return view_.squeeze(axis); }
  /// See `tensor_view::squeeze`.
  tensor_view<const T> squeeze(int axis) const { return view().squeeze(axis); }

  /// The element at (idx...), bounds-checked; CPU tensors only (see `tensor_view::operator()`).
  template <std::integral... Idx>
  T& operator()(Idx... idx) {
    return view_(idx...);
  }
  /// The element at (idx...), bounds-checked; CPU tensors only.
  template <std::integral... Idx>
  const T& operator()(Idx... idx) const {
    return view()(idx...);
  }

  /// A copy of this tensor on `where` (also when it is already there).
  tensor to(device where) const {
    tensor result(sizes(), where);
    detail::copy_views(view(), result.view());
    return result;
  }

  /// A copy of this tensor on the same device.
  tensor clone() const { return to(where()); }

 private:
  /// Frees memory with the allocator that matches its device.
  struct release {
    device where = device::cpu;
    void operator()(T* memory) const noexcept {
      if (where == device::cpu) detail::free_host(memory);
      else detail::cuda_free(memory);
    }
  };

  /// Uninitialized memory for `sizes` elements on `where`: on the host
  /// aligned to `host_alignment`.
  static T* allocate(const shape& sizes, device where) {
    detail::check_sizes(sizes, "tensor");
    const auto count = static_cast<std::size_t>(sizes.numel());
    if (where == device::cpu) {
      T* memory = detail::allocate_host<T>(count);
      std::uninitialized_default_construct_n(memory, count);  // as new T[count]: values left undefined
      return memory;
    }
    return static_cast<T*>(detail::cuda_allocate(count * sizeof(T)));
  }

  std::unique_ptr<T, release> storage_;
  tensor_view<T> view_;
};

}  // namespace fusedsl
