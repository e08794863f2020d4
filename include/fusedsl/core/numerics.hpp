/// @file numerics.hpp
/// Compute types: the C++ type a value of each dtype is computed in.
#pragma once
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::conditional_t

#include <fusedsl/core/dtype.hpp>  // dtype, element_t

namespace fusedsl {

/// What kernels compute in: f16 and bf16 widen to float (as Inductor does),
/// every other dtype computes in its own type.
struct kernel_numerics {
  template <dtype D>
  using type = std::conditional_t<is_reduced_float(D), float, element_t<D>>;
};

/// What the reference interpreter computes in: double for every floating
/// dtype, int64 for every integer dtype, bool for bool.
struct wide_numerics {
  template <dtype D>
  using type = std::conditional_t<is_floating_point(D), double, std::conditional_t<is_integral(D), std::int64_t, bool>>;
};

/// The compute type of dtype `D` under numerics policy `N`.
template <class N, dtype D>
using compute_t = typename N::template type<D>;

}  // namespace fusedsl
