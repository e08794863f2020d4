/// @file dlpack.hpp
/// DLPack both ways, without copies: `from_dlpack<T>` views a `DLTensor`
/// (what PyTorch's `torch.utils.dlpack.to_dlpack`, CuPy and JAX hand over)
/// as a `tensor_view<T>`; `to_dlpack` describes a view, or takes over a
/// tensor, as a `DLManagedTensor` for a framework to import (PyTorch's
/// `torch.utils.dlpack.from_dlpack`), which calls its deleter when done.
/// Needs `<dlpack/dlpack.h>` (version 0.6 or later; Debian: libdlpack-dev),
/// so `<fusedsl/fusedsl.hpp>` does not include it.
#pragma once
#ifndef DLPACK_DLPACK_H_  // a framework's bundled copy (PyTorch's ATen/dlpack.h) may come first
#  include <dlpack/dlpack.h>
#endif

#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint8_t, std::uintptr_t
#include <string>       // std::string, std::to_string
#include <type_traits>  // std::is_const_v, std::remove_const_t
#include <utility>      // std::move

#include <fusedsl/core/dtype.hpp>          // element, dtype_of, name(dtype)
#include <fusedsl/core/error.hpp>          // fusedsl::error
#include <fusedsl/core/shape.hpp>          // shape, max_rank
#include <fusedsl/tensor/device.hpp>       // device
#include <fusedsl/tensor/tensor.hpp>       // tensor
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

namespace fusedsl {
namespace detail {

/// DLPack's type code of bool, `kDLBool`, from DLPack 0.8 on (0.6 has none).
inline constexpr std::uint8_t dlpack_bool_code = 6;
/// True when the `DLPack` header in use has `kDLBool` (PyTorch bundles a newer one).
#if defined(DLPACK_MAJOR_VERSION) || DLPACK_VERSION >= 80
inline constexpr bool dlpack_has_bool = true;
#else
inline constexpr bool dlpack_has_bool = false;
#endif

/// DLPack's type of `T`: bool as `kDLBool` where the header has it, else as
/// 8-bit unsigned (DLPack 0.6's way).
template <element T>
constexpr DLDataType dlpack_type_of() {
  constexpr auto bits = static_cast<std::uint8_t>(8 * sizeof(T));
  switch (dtype_of<T>) {
    case dtype::f64:
    case dtype::f32:
    case dtype::f16: return {kDLFloat, bits, 1};
    case dtype::bf16: return {kDLBfloat, bits, 1};
    case dtype::i64:
    case dtype::i32:
    case dtype::i16:
    case dtype::i8: return {kDLInt, bits, 1};
    case dtype::u8: return {kDLUInt, bits, 1};
    case dtype::boolean: return {dlpack_has_bool ? dlpack_bool_code : std::uint8_t{kDLUInt}, bits, 1};
  }
  return {};
}

/// A DLPack type as error messages spell it: "float32", "bfloat16", "int8x4".
inline std::string dlpack_type_name(DLDataType t) {
  const char* code = t.code == kDLInt             ? "int"
                     : t.code == kDLUInt          ? "uint"
                     : t.code == kDLFloat         ? "float"
                     : t.code == kDLBfloat        ? "bfloat"
                     : t.code == dlpack_bool_code ? "bool"
                                                  : nullptr;
  std::string text = code ? code + std::to_string(t.bits)
                          : "type code " + std::to_string(t.code) + " of " + std::to_string(t.bits) + " bits";
  return t.lanes == 1 ? text : text + "x" + std::to_string(t.lanes);
}

/// What a `DLManagedTensor` made by `to_dlpack` holds: its sizes and
/// strides, and the tensor it took over (empty for a view).
template <element T>
struct dlpack_holder {
  DLManagedTensor managed{};
  std::int64_t sizes[max_rank] = {}, strides[max_rank] = {};
  tensor<T> owned;
};

template <element T>
DLManagedTensor* make_dlpack(tensor_view<T> view, tensor<T> owned, int device_id) {
  auto* holder = new dlpack_holder<T>{};
  holder->owned = std::move(owned);
  for (int axis = 0; axis < view.rank(); ++axis) {
    holder->sizes[axis] = view.sizes()[axis];
    holder->strides[axis] = view.strides()[axis];
  }
  DLTensor& t = holder->managed.dl_tensor;
  t.data = view.data();
  t.device = {view.where() == device::cpu ? kDLCPU : kDLCUDA, view.where() == device::cpu ? 0 : device_id};
  t.ndim = view.rank();
  t.dtype = dlpack_type_of<T>();
  t.shape = holder->sizes;
  t.strides = holder->strides;
  t.byte_offset = 0;
  holder->managed.manager_ctx = holder;
  holder->managed.deleter = [](DLManagedTensor* self) { delete static_cast<dlpack_holder<T>*>(self->manager_ctx); };
  return &holder->managed;
}

}  // namespace detail

/// A view of DLPack tensor `t` (no copy), whose element type must be `T`
/// (or `const T`): CPU memory (`kDLCPU`, `kDLCUDAHost`) or CUDA device memory
/// (`kDLCUDA`, of the device that will run the program). Throws
/// `fusedsl::error` saying what does not fit: another element type, vector
/// lanes, another device type, more than `max_rank` axes, a negative size or
/// stride (fusedsl's views have none), an offset that is not a whole element.
template <class T>
requires element<std::remove_const_t<T>> tensor_view<T> from_dlpack(const DLTensor& t) {
  using V = std::remove_const_t<T>;
  const std::string what = "fusedsl::from_dlpack<" + std::string(name(dtype_of<V>)) + ">: the DLPack tensor ";
  const DLDataType want = detail::dlpack_type_of<V>();
  // bool arrives either way: as kDLBool or, from DLPack 0.6 producers, as 8-bit unsigned.
  const bool bool_bytes = std::is_same_v<V, bool> && t.dtype.bits == 8 && t.dtype.lanes == 1 &&
                          (t.dtype.code == kDLUInt || t.dtype.code == detail::dlpack_bool_code);
  if (!bool_bytes && (t.dtype.code != want.code || t.dtype.bits != want.bits || t.dtype.lanes != 1))
    throw error(what + "holds " + detail::dlpack_type_name(t.dtype) + " elements, expected " +
                detail::dlpack_type_name(want));
  device where = device::cpu;
  if (t.device.device_type == kDLCUDA) where = device::cuda;
  else if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost)
    throw error(what + "is on DLPack device type " + std::to_string(t.device.device_type) +
                ", expected kDLCPU (1), kDLCUDA (2) or kDLCUDAHost (3)");
  if (t.ndim < 0 || t.ndim > max_rank)
    throw error(what + "has " + std::to_string(t.ndim) + " axes, expected 0 to " + std::to_string(max_rank));
  if (t.ndim > 0 && t.shape == nullptr) throw error(what + "has no shape");
  if (t.byte_offset % sizeof(V) != 0)
    throw error(what + "starts " + std::to_string(t.byte_offset) + " bytes into its data, not a whole number of " +
                std::to_string(sizeof(V)) + "-byte elements");
  shape sizes;
  for (int axis = 0; axis < t.ndim; ++axis) sizes.push_back(t.shape[axis]);
  shape strides = contiguous_strides(sizes);  // DLPack: no strides means row-major
  if (t.strides != nullptr) {
    for (int axis = 0; axis < t.ndim; ++axis) {
      if (t.strides[axis] < 0)
        throw error(what + "has stride " + std::to_string(t.strides[axis]) + " along axis " + std::to_string(axis) +
                    "; fusedsl's views have none below 0 (copy it first)");
      strides[axis] = t.strides[axis];
    }
  }
  auto* data = reinterpret_cast<T*>(static_cast<unsigned char*>(t.data) + t.byte_offset);
  return tensor_view<T>(data, sizes, strides, where);
}

/// A view of the tensor that `m` manages; see `from_dlpack(const DLTensor&)`.
/// `m` keeps the memory: the view must not outlive `m`'s deleter call.
template <class T>
requires element<std::remove_const_t<T>> tensor_view<T> from_dlpack(const DLManagedTensor& m) {
  return from_dlpack<T>(m.dl_tensor);
}

/// A DLPack tensor describing `view` (no copy), for a framework to import;
/// the framework calls its deleter when done with it, which frees the
/// description, not the memory: that must outlive the framework's use.
/// `device_id`: the CUDA device of a view on `device::cuda` (views do not
/// record it).
template <element T>
DLManagedTensor* to_dlpack(tensor_view<T> view, int device_id = 0) {
  return detail::make_dlpack<T>(view, tensor<T>{}, device_id);
}

/// A DLPack tensor that takes over `t`'s memory: the framework that imports
/// it frees the memory when it calls the deleter. `device_id` as above.
template <element T>
DLManagedTensor* to_dlpack(tensor<T>&& t, int device_id = 0) {
  const tensor_view<T> view = t.view();
  return detail::make_dlpack<T>(view, std::move(t), device_id);
}

}  // namespace fusedsl
