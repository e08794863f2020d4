/// @file copy.hpp
/// Element copies between views of equal sizes (any strides, any devices), and
/// `contiguous`, which copies a view into a new dense tensor.
#pragma once
#include <string>       // std::string, std::to_string
#include <type_traits>  // std::type_identity_t

#include <fusedsl/core/dtype.hpp>                  // element
#include <fusedsl/core/error.hpp>                  // fusedsl::error
#include <fusedsl/core/shape.hpp>                  // to_string
#include <fusedsl/tensor/detail/strided_copy.hpp>  // copy_views
#include <fusedsl/tensor/device.hpp>               // device
#include <fusedsl/tensor/tensor.hpp>               // tensor
#include <fusedsl/tensor/tensor_view.hpp>          // tensor_view

namespace fusedsl {

/// Copies every element of `src` into `dst`. The sizes must be equal; strides
/// and devices may differ (a CPU pair is a strided loop, two contiguous views
/// one `cudaMemcpy`; see `detail::copy_views` for strided CUDA views). `dst`
/// must not repeat elements (no stride 0 on an axis longer than 1) and must
/// not overlap `src`. `T` is taken from `dst`, so `src` may be a writable view
/// or a tensor. Throws `fusedsl::error` for mismatched sizes, a repeating
/// `dst`, or CUDA memory without the CUDA runtime.
template <element T>
void copy(std::type_identity_t<tensor_view<const T>> src, tensor_view<T> dst) {
  if (src.sizes() != dst.sizes())
    throw error("copy: source sizes " + to_string(src.sizes()) + " and destination sizes " + to_string(dst.sizes()) +
                " differ");
  for (int axis = 0; axis < dst.rank(); ++axis)
    if (dst.strides()[axis] == 0 && dst.sizes()[axis] > 1)
      throw error("copy: the destination has stride 0 at axis " + std::to_string(axis) + " (sizes " +
                  to_string(dst.sizes()) + ", strides " + to_string(dst.strides()) +
                  "), so several elements would be written to one memory location");
  detail::copy_views(src, dst);
}

/// `copy` into a whole tensor.
template <element T>
void copy(std::type_identity_t<tensor_view<const T>> src, tensor<T>& dst) {
  copy<T>(src, dst.view());
}

/// A new dense row-major tensor on the same device holding the elements of `view`.
template <element T>
tensor<T> contiguous(tensor_view<const T> view) {
  tensor<T> result(view.sizes(), view.where());
  detail::copy_views(view, result.view());
  return result;
}

/// `contiguous` of a writable view.
template <element T>
tensor<T> contiguous(tensor_view<T> view) {
  return contiguous(tensor_view<const T>(view));
}

}  // namespace fusedsl
