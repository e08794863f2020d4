/// @file promote.hpp
/// Type promotion as PyTorch's `torch.promote_types` does it, as a constexpr
/// function of dtypes and as a type function of element types.
#pragma once
#include <fusedsl/core/dtype.hpp>  // dtype, element, element_t

namespace fusedsl {

/// The dtype of `a op b` for two tensors: bool < integers < floating point;
/// within a category the wider type wins; f16 with bf16 gives f32; u8 with a
/// signed integer gives the signed type, at least i16.
constexpr dtype promote(dtype a, dtype b) {
  if (a == b) return a;
  if (a == dtype::boolean) return b;
  if (b == dtype::boolean) return a;
  if (is_floating_point(a) != is_floating_point(b)) return is_floating_point(a) ? a : b;
  if (is_floating_point(a)) {
    if (is_reduced_float(a) && is_reduced_float(b)) return dtype::f32;
    return size_of(a) >= size_of(b) ? a : b;
  }
  if (a == dtype::u8 || b == dtype::u8) {
    const dtype other = a == dtype::u8 ? b : a;
    return other == dtype::i8 ? dtype::i16 : other;
  }
  return size_of(a) >= size_of(b) ? a : b;
}

/// The dtype of `tensor op scalar` where the scalar is a C++ number in the
/// expression (PyTorch's "wrapped number" rule): the scalar only matters when
/// it is of a higher category, and then gives that category's default dtype
/// (f32 for floating point, i64 for integers).
constexpr dtype promote_with_scalar(dtype tensor, dtype scalar) {
  const auto category = [](dtype d) { return is_floating_point(d) ? 2 : is_integral(d) ? 1 : 0; };
  if (category(scalar) <= category(tensor)) return tensor;
  return category(scalar) == 2 ? dtype::f32 : dtype::i64;
}

/// `promote` on element types.
template <element A, element B>
using promote_t = element_t<promote(dtype_of<A>, dtype_of<B>)>;

}  // namespace fusedsl
