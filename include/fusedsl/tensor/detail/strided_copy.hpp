/// @file strided_copy.hpp
/// The element copy between two views of equal sizes, on any pair of devices.
/// Callers check the sizes; `copy()` in copy.hpp is the public, checked entry.
#pragma once
#include <algorithm>  // std::copy_n
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <memory>     // std::unique_ptr, std::make_unique_for_overwrite

#include <fusedsl/core/shape.hpp>                 // shape
#include <fusedsl/tensor/detail/cuda_memory.hpp>  // cuda_memcpy
#include <fusedsl/tensor/device.hpp>              // device
#include <fusedsl/tensor/tensor_view.hpp>         // tensor_view

namespace fusedsl::detail {

/// Elements from the first to the last one `view` addresses (0 when it has
/// none): the contiguous stretch of memory a strided view lives in.
template <class T>
std::int64_t span_of(const tensor_view<T>& view) {
  if (view.numel() == 0) return 0;
  std::int64_t last = 0;
  for (int axis = 0; axis < view.rank(); ++axis) last += (view.sizes()[axis] - 1) * view.strides()[axis];
  return last + 1;
}

/// Element-wise copy between two host views of equal sizes: a loop over the
/// innermost axis inside an odometer over the outer axes.
template <class T>
void copy_on_host(tensor_view<const T> src, tensor_view<T> dst) {
  if (src.numel() == 0) return;
  if (src.is_contiguous() && dst.is_contiguous()) {
    std::copy_n(src.data(), src.numel(), dst.data());
    return;
  }
  const shape& sizes = src.sizes();
  const int inner = src.rank() - 1;
  // Rank 0 is one innermost "row" of one element.
  const std::int64_t count = inner >= 0 ? sizes[inner] : 1;
  const std::int64_t src_step = inner >= 0 ? src.strides()[inner] : 0;
  const std::int64_t dst_step = inner >= 0 ? dst.strides()[inner] : 0;
  shape index = sizes;
  for (std::int64_t& i : index) i = 0;
  const T* from = src.data();
  T* to = dst.data();
  while (true) {
    for (std::int64_t i = 0; i < count; ++i) to[i * dst_step] = from[i * src_step];
    int axis = inner - 1;
    for (; axis >= 0; --axis) {
      if (++index[axis] < sizes[axis]) {
        from += src.strides()[axis];
        to += dst.strides()[axis];
        break;
      }
      index[axis] = 0;
      from -= (sizes[axis] - 1) * src.strides()[axis];
      to -= (sizes[axis] - 1) * dst.strides()[axis];
    }
    if (axis < 0) return;
  }
}

/// Copies `src` into `dst` (equal sizes, any strides, any devices). Between
/// host views: a strided loop. Both contiguous: one `cudaMemcpy`. Otherwise a
/// strided CUDA side goes through a host buffer holding its whole span: a
/// source span is downloaded; a destination span is downloaded, updated and
/// uploaded again, so the elements in its gaps are rewritten with the values
/// they had, which is only safe while no other stream writes them.
template <class T>
void copy_views(tensor_view<const T> src, tensor_view<T> dst) {
  if (src.numel() == 0) return;
  if (src.where() == device::cpu && dst.where() == device::cpu) {
    copy_on_host(src, dst);
    return;
  }
  if (src.is_contiguous() && dst.is_contiguous()) {
    cuda_memcpy(dst.data(), dst.where(), src.data(), src.where(), static_cast<std::size_t>(src.numel()) * sizeof(T));
    return;
  }
  const auto src_span = static_cast<std::size_t>(span_of(src)), dst_span = static_cast<std::size_t>(span_of(dst));
  std::unique_ptr<T[]> src_stage;
  tensor_view<const T> host_src = src;
  if (src.where() == device::cuda) {
    src_stage = std::make_unique_for_overwrite<T[]>(src_span);
    cuda_memcpy(src_stage.get(), device::cpu, src.data(), device::cuda, src_span * sizeof(T));
    host_src = tensor_view<const T>(src_stage.get(), src.sizes(), src.strides());
  }
  if (dst.where() == device::cpu) {
    copy_on_host(host_src, dst);
    return;
  }
  const std::unique_ptr<T[]> dst_stage = std::make_unique_for_overwrite<T[]>(dst_span);
  if (!dst.is_contiguous())  // the gaps between the elements must be written back unchanged
    cuda_memcpy(dst_stage.get(), device::cpu, dst.data(), device::cuda, dst_span * sizeof(T));
  copy_on_host(host_src, tensor_view<T>(dst_stage.get(), dst.sizes(), dst.strides()));
  cuda_memcpy(dst.data(), device::cuda, dst_stage.get(), device::cpu, dst_span * sizeof(T));
}

}  // namespace fusedsl::detail
