/// @file tensor_leaf.hpp
/// Tensors used directly inside expressions (`fx::eval(y, exp(a) * b)`):
/// each becomes a leaf that holds its view. Their rank is only known at run
/// time, so such expressions have `dynamic_rank`.
#pragma once
#include <type_traits>  // std::remove_const_t

#include <fusedsl/expr/expression.hpp>     // detail::leaf_of, dynamic_rank
#include <fusedsl/tensor/tensor.hpp>       // tensor
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

namespace fusedsl {

/// A read-only view captured in an expression.
template <element T>
struct tensor_leaf {
  using kind = fusedsl::kind::input;
  using element_type = T;
  static constexpr dtype value_dtype = dtype_of<T>;
  static constexpr int rank = dynamic_rank;
  static constexpr bool is_scalar = false;

  tensor_view<const T> view;
};

namespace detail {
template <class T>
struct leaf_of<tensor_view<T>> {
  static tensor_leaf<std::remove_const_t<T>> make(const tensor_view<T>& v) { return {v}; }
};
template <class T>
struct leaf_of<tensor<T>> {
  static tensor_leaf<T> make(const tensor<T>& t) { return {t.view()}; }
};
}  // namespace detail

}  // namespace fusedsl
