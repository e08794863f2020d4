/// @file print.hpp
/// Expressions as text, in the DSL's own spelling: `exp(x - max(x, axis<1>))`.
/// Error messages and `explain` use it to name operands.
#pragma once
#include <fusedsl/core/hana.hpp>  // hana: operands and type lists
#include <sstream>  // std::ostringstream
#include <string>   // std::string

#include <fusedsl/expr/pointwise.hpp>    // pointwise
#include <fusedsl/expr/reduce.hpp>       // reduce, axes_t
#include <fusedsl/expr/tensor_leaf.hpp>  // tensor_leaf

namespace fusedsl {

template <class E>
  requires expression<E>
std::string to_string(const E& e);

namespace detail {
template <class T>
std::string constant_text(T value) {
  if constexpr (std::is_same_v<T, bool>) return value ? "true" : "false";
  else {
    std::ostringstream text;
    text << +value;
    return text.str();
  }
}
template <int... Axes>
std::string axes_text(axes_t<Axes...>) {
  if constexpr (sizeof...(Axes) == 1) return ((", axis<" + std::to_string(Axes) + ">") + ...);
  else {
    std::string text = ", axes<";
    const char* separator = "";
    ((text += separator + std::to_string(Axes), separator = ", "), ...);
    return text + ">";
  }
}
}  // namespace detail

/// The expression in DSL spelling. Placeholders print their names, tensors
/// used directly print as `tensor`.
template <class E>
  requires expression<E>
std::string to_string(const E& e) {
  if constexpr (requires { e.args; }) {
    using Op = typename E::op;
    std::string text;
    hana::for_each(e.args, [&](const auto& a) { text += (text.empty() ? "" : ", ") + to_string(a); });
    if constexpr (Op::symbol != nullptr && Op::arity == 2) {
      const auto& a = hana::at_c<0>(e.args);
      const auto& b = hana::at_c<1>(e.args);
      return "(" + to_string(a) + " " + Op::symbol + " " + to_string(b) + ")";
    } else if constexpr (std::is_same_v<Op, ops::neg>) {
      return "-" + text;
    } else if constexpr (std::is_same_v<Op, ops::logical_not>) {
      return "!" + text;
    } else if constexpr (requires { typename Op::is_cast; }) {
      return std::string("cast<") + name(E::value_dtype) + ">(" + text + ")";
    } else {
      return std::string(Op::name) + "(" + text + ")";
    }
  } else if constexpr (requires { e.op; e.arg; }) {
    return std::string(E::op_type::name) + "(" + to_string(e.arg) +
           (E::axes_type::count ? detail::axes_text(typename E::axes_type{}) : std::string()) +
           (E::keep_axes ? "" : ", drop_axes") + ")";
  } else if constexpr (requires { e.value; } && !requires { E::name; }) {
    return detail::constant_text(e.value);
  } else if constexpr (requires { E::name; }) {
    return std::string(E::name.view());
  } else {
    return "tensor";
  }
}

}  // namespace fusedsl
