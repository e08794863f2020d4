/// @file print.hpp
/// Expressions as text, in the DSL's own spelling: `exp(x - max(x, axis<1>))`.
/// Error messages and `explain` use it to name operands.
#pragma once
#include <fusedsl/core/hana.hpp>  // hana: operands
#include <sstream>                // std::ostringstream
#include <string>                 // std::string

#include <fusedsl/expr/gather.hpp>       // is_gather_node, is_gathered_leaf
#include <fusedsl/expr/index.hpp>        // index_leaf
#include <fusedsl/expr/pointwise.hpp>    // pointwise
#include <fusedsl/expr/reduce.hpp>       // reduce, axes_t
#include <fusedsl/expr/scan.hpp>         // scan
#include <fusedsl/expr/tensor_leaf.hpp>  // tensor_leaf

namespace fusedsl {

namespace detail {
/// C++ precedence of an infix operator symbol (higher binds tighter).
constexpr int precedence(std::string_view symbol) {
  if (symbol == "*" || symbol == "/") return 10;
  if (symbol == "+" || symbol == "-") return 9;
  if (symbol == "<<" || symbol == ">>") return 8;
  if (symbol == "<" || symbol == "<=" || symbol == ">" || symbol == ">=") return 7;
  if (symbol == "==" || symbol == "!=") return 6;
  if (symbol == "&") return 5;
  if (symbol == "^") return 4;
  if (symbol == "|") return 3;
  if (symbol == "&&") return 2;
  return 1;  // ||
}
/// Operands of prefix operators and function calls, and leaves.
inline constexpr int atom_precedence = 11;

/// Text of an expression and the precedence of its outermost operator.
struct printed {
  std::string text;
  int precedence;
  /// The text, in parentheses when it binds looser than `needed`.
  std::string at_least(int needed) const { return precedence < needed ? "(" + text + ")" : text; }
};

template <class T>
std::string number_text(T value) {
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

/// The `fx::accumulate<T>` option of a reduction's or scan's op, if it has one.
template <class Op>
std::string accumulate_text() {
  if constexpr (requires { Op::accumulation; }) return std::string(", accumulate ") + name(Op::accumulation);
  else return {};
}

template <class E>
printed print(const E& e) {
  if constexpr (is_kind<E, kind::pointwise>) {
    using Op = typename E::op;
    if constexpr (is_gather_node<E>) {
      return {std::string(Op::name) + "(" + print(hana::at_c<0>(e.args)).text + ", " +
                  print(hana::at_c<1>(e.args)).text + ", axis<" + std::to_string(Op::axis) + ">)",
              atom_precedence};
    } else if constexpr (Op::symbol != nullptr && Op::arity == 2) {
      const int p = precedence(Op::symbol);
      return {print(hana::at_c<0>(e.args)).at_least(p) + " " + Op::symbol + " " +
                  print(hana::at_c<1>(e.args)).at_least(p + 1),
              p};
    } else if constexpr (std::is_same_v<Op, ops::neg> || std::is_same_v<Op, ops::logical_not> ||
                         std::is_same_v<Op, ops::bitwise_not>) {
      const char* prefix = std::is_same_v<Op, ops::neg> ? "-" : std::is_same_v<Op, ops::logical_not> ? "!" : "~";
      return {prefix + print(hana::at_c<0>(e.args)).at_least(atom_precedence), atom_precedence};
    } else {
      std::string operands;
      hana::for_each(e.args, [&](const auto& a) { operands += (operands.empty() ? "" : ", ") + print(a).text; });
      if constexpr (requires { typename Op::is_cast; })
        return {std::string("cast<") + name(E::value_dtype) + ">(" + operands + ")", atom_precedence};
      else return {std::string(Op::name) + "(" + operands + ")", atom_precedence};
    }
  } else if constexpr (is_kind<E, kind::reduction>) {
    std::string options = E::axes_type::count ? axes_text(typename E::axes_type{}) : std::string();
    if constexpr (requires { e.op.correction; })
      if (e.op.correction != 1) options += ", correction " + number_text(e.op.correction);
    options += accumulate_text<typename E::op_type>();
    if (!E::keep_axes) options += ", drop_axes";
    return {std::string(E::op_type::name) + "(" + print(e.arg).text + options + ")", atom_precedence};
  } else if constexpr (is_kind<E, kind::scan>) {
    const std::string options = axes_text(axes_t<E::axis>{}) + accumulate_text<typename E::op_type>();
    return {std::string(E::op_type::name) + "(" + print(e.arg).text + options + ")", atom_precedence};
  } else if constexpr (is_gathered_leaf<E>) {
    return print(e.x);
  } else if constexpr (is_index_node<E>) {
    if constexpr (E::axis == all_axes) return {"position", atom_precedence};
    else return {"index<" + std::to_string(E::axis) + ">", atom_precedence};
  } else if constexpr (requires { E::name; }) {
    return {std::string(E::name.view()), atom_precedence};
  } else if constexpr (requires { e.value; }) {
    return {number_text(e.value), atom_precedence};
  } else {
    return {"tensor" + to_string(e.view.sizes()), atom_precedence};
  }
}
}  // namespace detail

/// The expression in DSL spelling, with the parentheses C++ would need.
/// Placeholders and params print their names, index leaves as `index<1>`;
/// tensors used directly print as `tensor[sizes]`.
template <class E>
requires expression<E> std::string to_string(const E& e) { return detail::print(e).text; }

}  // namespace fusedsl
