/// @file placeholder.hpp
/// Named leaves of a program: tensors bound at call time (`in`, `out`,
/// `inout`), named intermediates (`local`) and run-time scalars (`param`).
#pragma once
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <type_traits>  // std::is_same_v

#include <fusedsl/core/fixed_string.hpp>   // fixed_string
#include <fusedsl/core/shape.hpp>          // max_rank
#include <fusedsl/expr/expression.hpp>     // operand, as_expr
#include <fusedsl/expr/pointwise.hpp>      // make_pointwise: compound assignments
#include <fusedsl/expr/traverse.hpp>       // index_rank, gathers_from
#include <fusedsl/program/binding.hpp>     // tensor_binding, param_binding
#include <fusedsl/program/statement.hpp>   // assign
#include <fusedsl/tensor/tensor.hpp>       // tensor
#include <fusedsl/tensor/tensor_view.hpp>  // tensor_view

namespace fusedsl {

/// How a program uses a placeholder.
enum class role {
  in,     ///< read only, bound at call time
  out,    ///< written (and then possibly read), bound at call time
  inout,  ///< read and updated in place, bound at call time
  local,  ///< a named intermediate: written then read, never bound
};

namespace detail {
/// The element type of a placeholder, or float when the user gave a
/// non-element type (the placeholder's static_assert reports that).
template <class T>
constexpr dtype dtype_or_f32() {
  if constexpr (element<T>) return dtype_of<T>;
  else return dtype::f32;
}
}  // namespace detail

/// A named tensor leaf of static element type `T` and static rank `Rank`
/// (or `dynamic_rank`: any rank, checked at run time by the ops).
/// Programs refer to it by `Name`; assigning to it makes a statement;
/// calling it with a tensor makes a binding: `prog.run(fx::cpu, x(tx))`.
template <fixed_string Name, class T, int Rank, role Role>
struct placeholder {
  static_assert(element<T>,
                "fusedsl: a placeholder's element type must be one of double, float, fx::half, fx::bfloat16, "
                "std::int64_t, std::int32_t, std::int16_t, std::int8_t, std::uint8_t or bool");
  static_assert((Rank >= 0 && Rank <= max_rank) || Rank == dynamic_rank,
                "fusedsl: a placeholder's rank must be in [0, 8] (or fx::dynamic_rank)");

  using kind = fusedsl::kind::input;
  using element_type = T;
  static constexpr fixed_string name = Name;
  static constexpr fusedsl::role role_of = Role;
  static constexpr dtype value_dtype = detail::dtype_or_f32<T>();
  static constexpr int rank = Rank;
  static constexpr bool is_scalar = false;

  /// `target = value`: a statement; inputs cannot be assigned.
  template <operand E>
  constexpr auto operator=(const E& value) const {
    static_assert(
        Role != role::in,
        "fusedsl: cannot assign to an input placeholder: declare it fx::out<...> or fx::inout<...> to write it");
    static_assert(Rank == dynamic_rank || index_rank<as_expr_t<E>>() <= Rank,
                  "fusedsl: fx::index axis out of range of the statement's target: use an axis in [-rank, rank) of "
                  "the target");
    static_assert(!gathers_from<placeholder, as_expr_t<E>>(),
                  "fusedsl: a statement cannot gather from its own target (it would read elements it has already "
                  "overwritten): assign the result to another placeholder");
    return assign<placeholder, as_expr_t<E>>{*this, as_expr(value)};
  }
  /// `target += value` is `target = target + value`.
  template <operand E>
  constexpr auto operator+=(const E& v) const {
    return *this = make_pointwise<ops::add>(*this, v);
  }
  /// `target -= value` is `target = target - value`.
  template <operand E>
  constexpr auto operator-=(const E& v) const {
    return *this = make_pointwise<ops::sub>(*this, v);
  }
  /// `target *= value` is `target = target * value`.
  template <operand E>
  constexpr auto operator*=(const E& v) const {
    return *this = make_pointwise<ops::mul>(*this, v);
  }
  /// `target /= value` is `target = target / value`.
  template <operand E>
  constexpr auto operator/=(const E& v) const {
    return *this = make_pointwise<ops::div>(*this, v);
  }

  /// Binds a tensor or view to this placeholder for one call.
  template <class U>
  auto operator()(const tensor_view<U>& view) const {
    static_assert(Role != role::local, "fusedsl: a local placeholder is computed by the program and cannot be bound");
    static_assert(std::is_same_v<std::remove_const_t<U>, T>,
                  "fusedsl: the bound tensor's element type differs from the placeholder's: convert it first");
    static_assert(Role == role::in || !std::is_const_v<U>,
                  "fusedsl: an out or inout placeholder needs a writable tensor, not a view of const elements");
    return tensor_binding<placeholder, U>{view};
  }
  /// Binds a span as a contiguous rank-1 view: `x(std::span(values))`.
  template <class U, std::size_t Extent>
  auto operator()(std::span<U, Extent> s) const {
    return (*this)(tensor_view<U>(s));
  }
  /// Binds a tensor (by view: the tensor must outlive the call).
  template <class U>
  auto operator()(tensor<U>& t) const {
    return (*this)(t.view());
  }
  /// Binds a const tensor (inputs only).
  template <class U>
  auto operator()(const tensor<U>& t) const {
    return (*this)(t.view());
  }
};

/// A tensor the program reads: `constexpr fx::in<"x", float, 2> x;`
template <fixed_string Name, class T, int Rank>
using in = placeholder<Name, T, Rank, role::in>;
/// A tensor the program writes.
template <fixed_string Name, class T, int Rank>
using out = placeholder<Name, T, Rank, role::out>;
/// A tensor the program reads and updates in place.
template <fixed_string Name, class T, int Rank>
using inout = placeholder<Name, T, Rank, role::inout>;
/// A named intermediate: assigned by a statement, read by later ones; its
/// memory is the program's.
template <fixed_string Name, class T, int Rank>
using local = placeholder<Name, T, Rank, role::local>;

/// A scalar given at call time: `constexpr fx::param<"lr", float> lr;` then
/// `prog.run(fx::cpu, ..., lr(0.01f))`. Promotes like a C++ number.
template <fixed_string Name, class T>
struct param {
  static_assert(element<T>,
                "fusedsl: a param's type must be a fusedsl element type (float, double, integers, bool, ...)");
  using kind = fusedsl::kind::input;
  using element_type = T;
  static constexpr fixed_string name = Name;
  static constexpr dtype value_dtype = detail::dtype_or_f32<T>();
  static constexpr int rank = 0;
  static constexpr bool is_scalar = true;

  /// Binds a value for one call (converted to T).
  template <class U>
  requires std::is_arithmetic_v<U> || element<U>
  constexpr auto operator()(U value) const { return param_binding<param>{static_cast<T>(value)}; }
};

}  // namespace fusedsl
