/// @file dtype.hpp
/// The element types fusedsl computes with, as a run-time enum and as C++ types.
#pragma once
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t, ...
#include <type_traits>

#include <fusedsl/core/half.hpp>  // half, bfloat16

namespace fusedsl {

/// Element type tags, in PyTorch's spelling order (f64 ... bool).
enum class dtype : unsigned char { f64, f32, f16, bf16, i64, i32, i16, i8, u8, boolean };

/// Every dtype, for tests and tables that iterate over all of them.
inline constexpr dtype all_dtypes[] = {dtype::f64, dtype::f32, dtype::f16, dtype::bf16, dtype::i64,
                                       dtype::i32, dtype::i16, dtype::i8,  dtype::u8,   dtype::boolean};

namespace detail {
template <class T>
struct dtype_of_impl {
  static constexpr bool supported = false;
};
#define FUSEDSL_DTYPE_ENTRY(T, D)            \
  template <>                                \
  struct dtype_of_impl<T> {                  \
    static constexpr bool supported = true;  \
    static constexpr dtype value = dtype::D; \
  };
FUSEDSL_DTYPE_ENTRY(double, f64)
FUSEDSL_DTYPE_ENTRY(float, f32)
FUSEDSL_DTYPE_ENTRY(half, f16)
FUSEDSL_DTYPE_ENTRY(bfloat16, bf16)
FUSEDSL_DTYPE_ENTRY(std::int64_t, i64)
FUSEDSL_DTYPE_ENTRY(std::int32_t, i32)
FUSEDSL_DTYPE_ENTRY(std::int16_t, i16)
FUSEDSL_DTYPE_ENTRY(std::int8_t, i8)
FUSEDSL_DTYPE_ENTRY(std::uint8_t, u8)
FUSEDSL_DTYPE_ENTRY(bool, boolean)
#undef FUSEDSL_DTYPE_ENTRY

template <dtype D>
struct element_of_impl;
template <>
struct element_of_impl<dtype::f64> {
  using type = double;
};
template <>
struct element_of_impl<dtype::f32> {
  using type = float;
};
template <>
struct element_of_impl<dtype::f16> {
  using type = half;
};
template <>
struct element_of_impl<dtype::bf16> {
  using type = bfloat16;
};
template <>
struct element_of_impl<dtype::i64> {
  using type = std::int64_t;
};
template <>
struct element_of_impl<dtype::i32> {
  using type = std::int32_t;
};
template <>
struct element_of_impl<dtype::i16> {
  using type = std::int16_t;
};
template <>
struct element_of_impl<dtype::i8> {
  using type = std::int8_t;
};
template <>
struct element_of_impl<dtype::u8> {
  using type = std::uint8_t;
};
template <>
struct element_of_impl<dtype::boolean> {
  using type = bool;
};
}  // namespace detail

/// True for the C++ types that tensors and placeholders may hold.
template <class T>
concept element = detail::dtype_of_impl<T>::supported;

/// The dtype tag of an element type.
template <element T>
inline constexpr dtype dtype_of = detail::dtype_of_impl<T>::value;

/// The C++ element type of a dtype tag.
template <dtype D>
using element_t = typename detail::element_of_impl<D>::type;

/// Short name as in the docs and error messages: "f32", "bf16", "bool", ...
constexpr const char* name(dtype d) {
  constexpr const char* names[] = {"f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"};
  return names[static_cast<int>(d)];
}

/// Bytes per element.
constexpr std::size_t size_of(dtype d) {
  constexpr std::size_t sizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};
  return sizes[static_cast<int>(d)];
}

/// f64, f32, f16, bf16.
constexpr bool is_floating_point(dtype d) { return d <= dtype::bf16; }
/// i64 ... u8 (bool is its own category, as in PyTorch).
constexpr bool is_integral(dtype d) { return d >= dtype::i64 && d <= dtype::u8; }
/// f16 and bf16: stored in 16 bits, computed in f32.
constexpr bool is_reduced_float(dtype d) { return d == dtype::f16 || d == dtype::bf16; }

}  // namespace fusedsl
