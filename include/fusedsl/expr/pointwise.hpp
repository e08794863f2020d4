/// @file pointwise.hpp
/// The pointwise expression node and the functions and operators that build it.
#pragma once
#include <limits>  // std::numeric_limits

#include <fusedsl/core/hana.hpp>  // hana: operands and type lists

#include <fusedsl/expr/expression.hpp>     // expression, operand, as_expr
#include <fusedsl/expr/index.hpp>          // detail::flat_position
#include <fusedsl/expr/pointwise_ops.hpp>  // ops::*

namespace fusedsl {

/// `Op` applied elementwise to broadcast operands `Args...`.
template <class Op, expression... Args>
struct pointwise {
  static_assert(sizeof...(Args) == Op::arity, "fusedsl: wrong number of operands for this op");
  using kind = fusedsl::kind::pointwise;
  using op = Op;
  static constexpr operand_info operands_info[] = {{Args::value_dtype, Args::is_scalar}...};
  static constexpr dtype value_dtype = Op::result_dtype(operands_info);
  static constexpr int rank = [] {
    int r = 0;
    ((r = broadcast_rank(r, Args::rank)), ...);
    return r;
  }();
  static constexpr bool is_scalar = (Args::is_scalar && ...);
  /// The dtype operand `I` is converted to before `Op::apply`.
  template <std::size_t I>
  static constexpr dtype operand_dtype = Op::operand_dtype(operands_info, I);

  hana::tuple<Args...> args;
};

/// Builds `pointwise<Op, ...>` from operands of any operand kind.
template <class Op, operand... Args>
constexpr auto make_pointwise(const Args&... args) {
  return pointwise<Op, as_expr_t<Args>...>{{as_expr(args)...}};
}

namespace detail {
/// At least one of the operands is an expression or tensor (not two plain
/// numbers), so the overloaded operators never hijack arithmetic on numbers.
template <class A, class B>
concept operator_operands = operand<A> && operand<B> &&
    !(std::is_arithmetic_v<std::remove_cvref_t<A>> && std::is_arithmetic_v<std::remove_cvref_t<B>>);
}  // namespace detail

#define FUSEDSL_BINARY_OPERATOR(SYMBOL, OP) \
  template <class A, class B>               \
  requires detail::operator_operands<A, B>  \
  constexpr auto operator SYMBOL(const A& a, const B& b) { return make_pointwise<ops::OP>(a, b); }
FUSEDSL_BINARY_OPERATOR(+, add)
FUSEDSL_BINARY_OPERATOR(-, sub)
FUSEDSL_BINARY_OPERATOR(*, mul)
FUSEDSL_BINARY_OPERATOR(/, div)
FUSEDSL_BINARY_OPERATOR(==, eq)
FUSEDSL_BINARY_OPERATOR(!=, ne)
FUSEDSL_BINARY_OPERATOR(<, lt)
FUSEDSL_BINARY_OPERATOR(<=, le)
FUSEDSL_BINARY_OPERATOR(>, gt)
FUSEDSL_BINARY_OPERATOR(>=, ge)
FUSEDSL_BINARY_OPERATOR(&&, logical_and)
FUSEDSL_BINARY_OPERATOR(||, logical_or)
#undef FUSEDSL_BINARY_OPERATOR

namespace detail {
/// Bitwise operators take integers and bool (shifts: integers), as torch's.
template <bool Shift, class E>
constexpr E bitwise_checked(E e) {
  static_assert(!is_floating_point(E::value_dtype),
                "fusedsl: bitwise operators and shifts need integer or bool operands (convert with fx::cast first)");
  static_assert(!Shift || E::value_dtype != dtype::boolean, "fusedsl: shifts need integer operands, not bool");
  return e;
}
}  // namespace detail

#define FUSEDSL_BITWISE_OPERATOR(SYMBOL, OP, SHIFT)                       \
  template <class A, class B>                                             \
  requires detail::operator_operands<A, B>                                \
  constexpr auto operator SYMBOL(const A& a, const B& b) {                \
    return detail::bitwise_checked<SHIFT>(make_pointwise<ops::OP>(a, b)); \
  }
FUSEDSL_BITWISE_OPERATOR(&, bitwise_and, false)
FUSEDSL_BITWISE_OPERATOR(|, bitwise_or, false)
FUSEDSL_BITWISE_OPERATOR(^, bitwise_xor, false)
FUSEDSL_BITWISE_OPERATOR(<<, shift_left, true)
FUSEDSL_BITWISE_OPERATOR(>>, shift_right, true)
#undef FUSEDSL_BITWISE_OPERATOR

namespace detail {
/// `%` and fx::fmod take integers and floating-point numbers (not bool, as torch).
template <class E>
constexpr E remainder_checked(E e) {
  static_assert(E::value_dtype != dtype::boolean,
                "fusedsl: % and fx::fmod need integer or floating-point operands, not bool");
  return e;
}
}  // namespace detail

/// a % b: Python's remainder, with the sign of b (torch.remainder); integers:
/// a divisor of 0 is an error of the run.
template <class A, class B>
requires detail::operator_operands<A, B>
constexpr auto operator%(const A& a, const B& b) {
  return detail::remainder_checked(make_pointwise<ops::remainder>(a, b));
}

/// -x
template <class A>
requires(operand<A> && !std::is_arithmetic_v<std::remove_cvref_t<A>>) constexpr auto operator-(const A& a) {
  return make_pointwise<ops::neg>(a);
}
/// !x (logical not)
template <class A>
requires(operand<A> && !std::is_arithmetic_v<std::remove_cvref_t<A>>) constexpr auto operator!(const A& a) {
  return make_pointwise<ops::logical_not>(a);
}
/// ~x (bitwise not of integers; logical not of bool, as torch)
template <class A>
requires(operand<A> && !std::is_arithmetic_v<std::remove_cvref_t<A>>) constexpr auto operator~(const A& a) {
  return detail::bitwise_checked<false>(make_pointwise<ops::bitwise_not>(a));
}

#define FUSEDSL_UNARY_FUNCTION(NAME)                        \
  /** Pointwise NAME of an expression, tensor or number. */ \
  template <operand A>                                      \
  constexpr auto NAME(const A& a) {                         \
    return make_pointwise<ops::NAME>(a);                    \
  }
FUSEDSL_UNARY_FUNCTION(abs)
FUSEDSL_UNARY_FUNCTION(relu)
FUSEDSL_UNARY_FUNCTION(exp)
FUSEDSL_UNARY_FUNCTION(log)
FUSEDSL_UNARY_FUNCTION(log1p)
FUSEDSL_UNARY_FUNCTION(expm1)
FUSEDSL_UNARY_FUNCTION(sqrt)
FUSEDSL_UNARY_FUNCTION(rsqrt)
FUSEDSL_UNARY_FUNCTION(sin)
FUSEDSL_UNARY_FUNCTION(cos)
FUSEDSL_UNARY_FUNCTION(tanh)
FUSEDSL_UNARY_FUNCTION(sigmoid)
FUSEDSL_UNARY_FUNCTION(erf)
FUSEDSL_UNARY_FUNCTION(erfc)
FUSEDSL_UNARY_FUNCTION(log2)
FUSEDSL_UNARY_FUNCTION(log10)
FUSEDSL_UNARY_FUNCTION(exp2)
FUSEDSL_UNARY_FUNCTION(silu)
FUSEDSL_UNARY_FUNCTION(gelu)
FUSEDSL_UNARY_FUNCTION(realize)
FUSEDSL_UNARY_FUNCTION(floor)
FUSEDSL_UNARY_FUNCTION(ceil)
FUSEDSL_UNARY_FUNCTION(trunc)
FUSEDSL_UNARY_FUNCTION(round)
FUSEDSL_UNARY_FUNCTION(sign)
#undef FUSEDSL_UNARY_FUNCTION

/// Tag selecting gelu's tanh approximation: `gelu(x, fx::tanh_approximation)`.
struct tanh_approximation_t {};
inline constexpr tanh_approximation_t tanh_approximation{};
/// gelu with the tanh approximation (PyTorch's `approximate="tanh"`).
template <operand A>
constexpr auto gelu(const A& a, tanh_approximation_t) {
  return make_pointwise<ops::gelu_tanh>(a);
}

/// Elementwise maximum of two operands; NaN propagates.
template <operand A, operand B>
constexpr auto maximum(const A& a, const B& b) {
  return make_pointwise<ops::maximum>(a, b);
}
/// Elementwise minimum of two operands; NaN propagates.
template <operand A, operand B>
constexpr auto minimum(const A& a, const B& b) {
  return make_pointwise<ops::minimum>(a, b);
}
/// `a` limited to [lo, hi]: `minimum(maximum(a, lo), hi)`, as torch.clamp (NaN
/// propagates; lo > hi gives hi). lo and hi are operands or numbers.
template <operand A, operand L, operand H>
constexpr auto clamp(const A& a, const L& lo, const H& hi) {
  return minimum(maximum(a, lo), hi);
}
/// True where `a` is NaN (`a != a`; never for integers).
template <operand A>
constexpr auto isnan(const A& a) {
  return make_pointwise<ops::ne>(a, a);  // not `a != a`: for a plain number that is C++'s own !=
}
/// True where `a` is +-infinity (never for integers).
template <operand A>
constexpr auto isinf(const A& a) {
  return make_pointwise<ops::eq>(make_pointwise<ops::abs>(a), std::numeric_limits<double>::infinity());
}
/// True where `a` is neither NaN nor infinite (always for integers).
template <operand A>
constexpr auto isfinite(const A& a) {
  return make_pointwise<ops::lt>(make_pointwise<ops::abs>(a), std::numeric_limits<double>::infinity());
}
/// C's remainder of a / b, with the sign of a (torch.fmod); integers: a divisor
/// of 0 is an error of the run.
template <operand A, operand B>
constexpr auto fmod(const A& a, const B& b) {
  return detail::remainder_checked(make_pointwise<ops::fmod>(a, b));
}
/// The angle of the point (b, a) in [-pi, pi] (torch.atan2(a, b)).
template <operand A, operand B>
constexpr auto atan2(const A& a, const B& b) {
  return make_pointwise<ops::atan2>(a, b);
}
/// sqrt(a^2 + b^2) without intermediate overflow (torch.hypot).
template <operand A, operand B>
constexpr auto hypot(const A& a, const B& b) {
  return make_pointwise<ops::hypot>(a, b);
}
/// a * b + c rounded once for floating types (std::fma); the operands promote.
template <operand A, operand B, operand C>
constexpr auto fma(const A& a, const B& b, const C& c) {
  return make_pointwise<ops::fma>(a, b, c);
}
/// a raised to the power b (integer pow for integer operands).
template <operand A, operand B>
constexpr auto pow(const A& a, const B& b) {
  return make_pointwise<ops::pow>(a, b);
}
/// `condition ? a : b`, elementwise.
template <operand C, operand A, operand B>
constexpr auto where(const C& condition, const A& a, const B& b) {
  return make_pointwise<ops::where>(condition, a, b);
}
/// A uniform f32 in [0, 1) for each element of the space it is computed in:
/// Philox-4x32-10 at the element's row-major position plus `offset`, keyed
/// by `seed` (integers: params or numbers), so the same on the CPU and on
/// CUDA for the same seed, offset and shape. Draw the next numbers of a
/// stream with `offset` advanced by the element count (torch's philox offset).
template <operand S, operand O>
constexpr auto rand(const S& seed, const O& offset) {
  return make_pointwise<ops::rand>(detail::flat_position, seed, offset);
}
/// A standard normal f32 for each element, as fx::rand draws it (Box-Muller
/// of the same Philox output): see docs/dsl.md for how alike the backends are.
template <operand S, operand O>
constexpr auto randn(const S& seed, const O& offset) {
  return make_pointwise<ops::randn>(detail::flat_position, seed, offset);
}
/// Dropout as torch's in training: each element of `x` is 0 with
/// probability `p`, else `x / (1 - p)`; the mask is fx::rand(seed, offset) < p,
/// the same on every backend.
template <operand X, operand Pr, operand S, operand O>
constexpr auto dropout(const X& x, const Pr& p, const S& seed, const O& offset) {
  return where(rand(seed, offset) < p, 0, x / (1 - as_expr(p)));
}

/// Converts to element type `T` (`fx::cast<float>(x)`).
template <element T, operand A>
constexpr auto cast(const A& a) {
  return make_pointwise<ops::cast<dtype_of<T>>>(a);
}

}  // namespace fusedsl
