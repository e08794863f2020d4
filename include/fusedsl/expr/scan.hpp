/// @file scan.hpp
/// The scan expression node and the functions that build scans:
/// `fx::cumsum(x, fx::axis<1>)`, cumprod, cummax, cummin and logcumsumexp
/// along one axis. The value has the operand's shape; element i along the
/// axis combines the operand's elements 0..i.
#pragma once
#include <type_traits>  // std::remove_const_t

#include <fusedsl/expr/expression.hpp>  // expression, operand, as_expr
#include <fusedsl/expr/reduce.hpp>      // axes_t, accumulate_t, detail::axes_in_range, detail::accumulating
#include <fusedsl/expr/scan_ops.hpp>    // ops::cumsum, ...

namespace fusedsl {

/// Scan `Op` of `Arg` along axis `Axis` (negative: from the end).
template <class Op, int Axis, expression Arg>
struct scan {
  using kind = fusedsl::kind::scan;
  using op_type = Op;
  static constexpr int axis = Axis;
  /// The axis as a reduction's axes: the one a scan node iterates along.
  using axes_type = axes_t<Axis>;
  /// The dtype the operand is converted to and combined in.
  static constexpr dtype input_dtype = Op::input_dtype(Arg::value_dtype);
  static constexpr dtype value_dtype = Op::result_dtype(Arg::value_dtype);
  static constexpr int rank = Arg::rank;
  static constexpr bool is_scalar = false;

  Op op;
  Arg arg;
};

/// Builds a scan, checking the axis, the options and the operand's dtype at
/// compile time.
template <class Op, operand A, int... Axes, class... Options>
constexpr auto make_scan(Op op, const A& a, axes_t<Axes...>, Options...) {
  using Arg = as_expr_t<A>;
  static_assert(sizeof...(Axes) == 1, "fusedsl: a scan runs along one axis: write fx::axis<A>");
  static_assert(detail::axes_in_range<Arg::rank, Axes...>(),
                "fusedsl: scan axis out of range: use an axis in [-rank, rank) of the operand");
  static_assert(!Op::needs_floating || is_floating_point(Arg::value_dtype),
                "fusedsl: logcumsumexp needs a floating-point operand: cast it first, e.g. fx::cast<float>(x)");
  static_assert((detail::is_accumulate<Options> && ...), "fusedsl: unknown scan option: expected fx::accumulate<T>");
  constexpr bool has_accumulate = (detail::is_accumulate<Options> || ...);
  static_assert(!has_accumulate || Op::adds_up,
                "fusedsl: fx::accumulate applies to cumsum, cumprod and logcumsumexp only");
  const auto acc_op = detail::accumulating<Op, Op::input_dtype(Arg::value_dtype), Options...>(op);
  return scan<std::remove_const_t<decltype(acc_op)>, (0 + ... + Axes), Arg>{acc_op, as_expr(a)};
}

#define FUSEDSL_SCAN_FUNCTION(NAME, OP)                                     \
  /** NAME along an axis, with options (`fx::accumulate<T>`). */            \
  template <operand A, int... Axes, class... Options>                       \
  constexpr auto NAME(const A& a, axes_t<Axes...> ax, Options... options) { \
    return make_scan(OP{}, a, ax, options...);                              \
  }
FUSEDSL_SCAN_FUNCTION(cumsum, ops::cumsum)
FUSEDSL_SCAN_FUNCTION(cumprod, ops::cumprod)
FUSEDSL_SCAN_FUNCTION(cummax, ops::cummax)
FUSEDSL_SCAN_FUNCTION(cummin, ops::cummin)
FUSEDSL_SCAN_FUNCTION(logcumsumexp, ops::logcumsumexp)
#undef FUSEDSL_SCAN_FUNCTION

}  // namespace fusedsl
