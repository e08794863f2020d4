/// @file mdspan.hpp
/// `from_mdspan(m)`: a `tensor_view` of a strided mdspan, without a copy.
/// Works on `std::mdspan` where the standard library has it (C++23,
/// `__cpp_lib_mdspan`; g++ 12 has not) and on any type with its interface,
/// such as the reference implementation's `Kokkos::mdspan`.
#pragma once
#include <concepts>     // std::convertible_to, std::integral, std::same_as
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::remove_const_t

#include <fusedsl/core/dtype.hpp>          // element
#include <fusedsl/core/error.hpp>          // fusedsl::error
#include <fusedsl/core/shape.hpp>          // shape, max_rank
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

namespace fusedsl {

/// A type with `std::mdspan`'s interface whose data handle is a pointer (the
/// default accessor): `rank()`, `extent(r)`, `stride(r)`, `is_strided()` and
/// `data_handle()`.
template <class M>
concept mdspan_like = requires(const M& m, std::size_t r) {
  typename M::element_type;
  requires std::same_as<typename M::data_handle_type, typename M::element_type*>;
  { M::rank() } -> std::convertible_to<std::size_t>;
  { m.extent(r) } -> std::integral;
  { m.stride(r) } -> std::integral;
  { m.is_strided() } -> std::convertible_to<bool>;
  { m.data_handle() } -> std::convertible_to<typename M::element_type*>;
};

/// A view of the elements `m` refers to, on device `where` (mdspans do not
/// record it), with `m`'s extents and strides: layout_right is contiguous,
/// layout_left a transposed order, layout_stride any strides. `const`
/// elements give a `tensor_view<const T>`. Throws `fusedsl::error` when the
/// layout is not strided or a stride is negative.
template <mdspan_like M>
tensor_view<typename M::element_type> from_mdspan(const M& m, device where = device::cpu) {
  using T = typename M::element_type;
  static_assert(element<std::remove_const_t<T>>,
                "fusedsl: from_mdspan: the mdspan's element type is not a fusedsl element type");
  static_assert(M::rank() <= static_cast<std::size_t>(max_rank),
                "fusedsl: from_mdspan: the mdspan has more axes than a fusedsl view holds (fusedsl::max_rank)");
  if (!m.is_strided())
    throw error(
        "from_mdspan: the mdspan's layout is not strided (its is_strided() is false); a fusedsl view needs "
        "a stride per axis");
  shape sizes, strides;
  for (std::size_t r = 0; r < M::rank(); ++r) {
    sizes.push_back(static_cast<std::int64_t>(m.extent(r)));
    strides.push_back(static_cast<std::int64_t>(m.stride(r)));
  }
  return tensor_view<T>(m.data_handle(), sizes, strides, where);
}

}  // namespace fusedsl
