/// @file expression.hpp
/// What an expression is, how its dtype is decided, and how C++ scalars and
/// tensors become expression leaves.
#pragma once
#include <concepts>     // std::same_as
#include <type_traits>  // std::remove_cvref_t, std::is_arithmetic_v

#include <fusedsl/core/dtype.hpp>    // dtype, element
#include <fusedsl/core/promote.hpp>  // promote, promote_with_scalar
#include <fusedsl/expr/kind.hpp>     // kind::*

namespace fusedsl {

/// The rank of an expression whose rank is only known at run time
/// (tensors used directly in `fx::eval`).
inline constexpr int dynamic_rank = -1;

/// An expression type: a kind tag, a dtype, a rank and whether it is a
/// "scalar" in PyTorch's promotion sense (a C++ number or a run-time
/// parameter, which only promote by category).
template <class E>
concept expression = requires {
  typename E::kind;
  { E::value_dtype } -> std::convertible_to<dtype>;
  { E::rank } -> std::convertible_to<int>;
  { E::is_scalar } -> std::convertible_to<bool>;
};

/// What an op needs to know about one operand to decide dtypes.
struct operand_info {
  dtype type;
  bool is_scalar;
};

/// PyTorch's result_type: tensors promote among themselves, scalars only
/// raise the category (bool < integer < floating point).
template <std::size_t N>
constexpr dtype promote_operands(const operand_info (&operands)[N]) {
  bool any_tensor = false;
  dtype tensors = dtype::boolean;
  for (const auto& o : operands)
    if (!o.is_scalar) tensors = any_tensor ? promote(tensors, o.type) : o.type, any_tensor = true;
  if (!any_tensor) {  // only scalars: they promote among themselves
    dtype all = operands[0].type;
    for (const auto& o : operands) all = promote(all, o.type);
    return all;
  }
  dtype result = tensors;
  for (const auto& o : operands)
    if (o.is_scalar) result = promote_with_scalar(result, o.type);
  return result;
}

/// A literal C++ number in an expression (`0.9f * m`): a scalar leaf.
template <element T>
struct constant {
  using kind = fusedsl::kind::input;
  static constexpr dtype value_dtype = dtype_of<T>;
  static constexpr int rank = 0;
  static constexpr bool is_scalar = true;
  T value;
};

namespace detail {
/// The element type a C++ number literal stands for: `2` is i64-category,
/// `2.0` f64-category; the exact width does not matter for scalars.
template <class T>
using literal_element_t =
    std::conditional_t<std::is_same_v<T, bool>, bool,
                       std::conditional_t<std::is_floating_point_v<T>,
                                          std::conditional_t<std::is_same_v<T, float>, float, double>, std::int64_t>>;

/// Customisation point: other headers (tensors) teach `as_expr` new leaf types.
template <class T>
struct leaf_of {};
}  // namespace detail

/// Things that may appear as an operand: expressions, C++ numbers, and
/// types with a `detail::leaf_of` specialisation (tensors and views).
template <class T>
concept operand = expression<std::remove_cvref_t<T>> || std::is_arithmetic_v<std::remove_cvref_t<T>> ||
    requires(const T& t) {
  detail::leaf_of<std::remove_cvref_t<T>>::make(t);
};

/// Turns an operand into an expression (identity for expressions).
template <operand T>
constexpr auto as_expr(const T& t) {
  using U = std::remove_cvref_t<T>;
  if constexpr (expression<U>) return t;
  else if constexpr (std::is_arithmetic_v<U>) {
    using E = detail::literal_element_t<U>;
    return constant<E>{static_cast<E>(t)};
  } else return detail::leaf_of<U>::make(t);
}

/// The expression type an operand becomes.
template <class T>
using as_expr_t = decltype(as_expr(std::declval<const T&>()));

/// Combines two static ranks the way broadcasting does (the larger one;
/// dynamic if either is dynamic).
constexpr int broadcast_rank(int a, int b) {
  return a == dynamic_rank || b == dynamic_rank ? dynamic_rank : (a > b ? a : b);
}

}  // namespace fusedsl
