/// @file reduce.hpp
/// The reduction expression node, axis tags and the functions that build
/// reductions. Reduced axes are kept with size 1 by default, so that the
/// result broadcasts back against the operand: `exp(x - max(x, axis<1>))`.
#pragma once
#include <algorithm>    // std::sort
#include <type_traits>  // std::is_same_v, std::remove_const_t

#include <fusedsl/core/numerics.hpp>       // compute_t, kernel_numerics
#include <fusedsl/core/promote.hpp>        // promote
#include <fusedsl/expr/expression.hpp>     // expression, operand, as_expr
#include <fusedsl/expr/reduction_ops.hpp>  // ops::sum, ...

namespace fusedsl {

/// A set of axes, negative ones counted from the end; empty means all axes.
template <int... Axes>
struct axes_t {
  static constexpr int count = sizeof...(Axes);
  static constexpr int values[count + 1] = {Axes..., 0};  // +1: a zero-size array is ill-formed
};
/// Reduce over several axes: `sum(x, axes<0, 2>)`.
template <int... Axes>
inline constexpr axes_t<Axes...> axes{};
/// Reduce over one axis: `max(x, axis<-1>)`.
template <int Axis>
inline constexpr axes_t<Axis> axis{};

/// Option that removes the reduced axes instead of keeping them with size 1:
/// `sum(x, axis<1>, fx::drop_axes)` has rank one less than x.
struct drop_axes_t {};
inline constexpr drop_axes_t drop_axes{};

namespace detail {
/// Static validity of a set of axes for an operand of rank `Rank`.
template <int Rank, int... Axes>
constexpr bool axes_in_range() {
  if constexpr (Rank == dynamic_rank) return true;
  else return ((Axes >= -Rank && Axes < Rank) && ...);
}
template <int Rank, int... Axes>
constexpr bool axes_distinct() {
  if constexpr (Rank == dynamic_rank) return true;
  else {
    int normalized[] = {(Axes < 0 ? Axes + Rank : Axes)..., Rank};
    std::sort(normalized, normalized + sizeof...(Axes));
    for (std::size_t i = 0; i + 1 < sizeof...(Axes) + 1; ++i)  // (no `1 < 0` for nvcc to warn about)
      if (i > 0 && normalized[i] == normalized[i - 1]) return false;
    return true;
  }
}
}  // namespace detail

/// Reduction `Op` of `Arg` over `Axes`, keeping them (size 1) if `KeepAxes`.
template <class Op, class Axes, bool KeepAxes, expression Arg>
struct reduce {
  using kind = fusedsl::kind::reduction;
  using op_type = Op;
  using axes_type = Axes;
  static constexpr bool keep_axes = KeepAxes;
  /// The dtype the operand is converted to before accumulating.
  static constexpr dtype input_dtype = Op::input_dtype(Arg::value_dtype);
  static constexpr dtype value_dtype = Op::result_dtype(Arg::value_dtype);
  static constexpr int rank = KeepAxes || Arg::rank == dynamic_rank ? Arg::rank
                              : Axes::count == 0                    ? 0
                                                                    : Arg::rank - Axes::count;
  static constexpr bool is_scalar = false;

  Op op;
  Arg arg;
};

/// Bessel-style correction for var and std, an option of theirs:
/// `var(x, axis<1>, fx::correction{0})` divides by count - 0.
struct correction {
  double value = 1;
};

/// The type of `fx::accumulate<T>`, an option of sum, prod, mean, var, std
/// and logsumexp.
template <class T>
struct accumulate_t {
  static_assert(element<T>,
                "fusedsl: fx::accumulate<T> needs an element type: double, float, fx::half, fx::bfloat16 or an "
                "integer type");
  /// The accumulation dtype (any one for a non-element `T`: the assertion reports it).
  static constexpr dtype value = [] {
    if constexpr (element<T>) return dtype_of<T>;
    else return dtype::f64;
  }();
};
/// Accumulate a reduction in `T`: `sum(x, axis<1>, fx::accumulate<double>)`
/// sums f32 data in double, in the same kernel; the result keeps its dtype
/// (f32 here), rounded once at the end.
template <class T>
inline constexpr accumulate_t<T> accumulate{};

namespace detail {
template <class Option>
inline constexpr bool is_accumulate = false;
template <class T>
inline constexpr bool is_accumulate<accumulate_t<T>> = true;
template <class Option>
inline constexpr bool is_reduction_option =
    std::is_same_v<Option, drop_axes_t> || std::is_same_v<Option, correction> || is_accumulate<Option>;

/// The accumulation dtype that `Options` ask for, or `natural` (the
/// reduction's own) without `fx::accumulate`.
template <dtype natural, class... Options>
constexpr dtype requested_accumulation() {
  dtype d = natural;
  (
      [&] {
        if constexpr (is_accumulate<Options>) d = Options::value;
      }(),
      ...);
  return d;
}
/// True when accumulating in `requested` loses nothing against the
/// reduction's own `natural` accumulation dtype: the same category
/// (floating-point data accumulates in a floating-point type, integers in an
/// integer type) and at least as wide.
constexpr bool widens(dtype natural, dtype requested) {
  return is_floating_point(natural) == is_floating_point(requested) && promote(natural, requested) == requested;
}

/// Op `Op` (a reduction's or a scan's, whose own accumulation dtype is
/// `natural`) as `Options` ask it to accumulate, checked: `Op` itself, or
/// `ops::accumulate_in<Op, ...>` with `fx::accumulate<T>`. An accumulator
/// that the kernels compute in anyway (f32 for f16 data) gives `Op`: the
/// same node as without the option.
template <class Op, dtype natural, class... Options>
constexpr auto accumulating(Op op) {
  constexpr dtype acc = requested_accumulation<natural, Options...>();
  static_assert(!Op::adds_up || widens(natural, acc),
                "fusedsl: fx::accumulate<T> must not be narrower than the reduction's own accumulator, nor of another "
                "kind: float or double for floating-point data and logsumexp (double for f64 data), std::int64_t for "
                "integer sums and products");
  if constexpr (std::is_same_v<compute_t<kernel_numerics, acc>, compute_t<kernel_numerics, natural>>) return op;
  else return ops::accumulate_in<Op, acc>{op};
}
}  // namespace detail

/// Builds a reduction, checking the axes, the options and the operand's
/// dtype at compile time.
template <class Op, operand A, int... Axes, class... Options>
constexpr auto make_reduce(Op op, const A& a, axes_t<Axes...>, Options... options) {
  using Arg = as_expr_t<A>;
  static_assert(detail::axes_in_range<Arg::rank, Axes...>(),
                "fusedsl: reduction axis out of range: use an axis in [-rank, rank) of the operand");
  static_assert(detail::axes_distinct<Arg::rank, Axes...>(), "fusedsl: a reduction axis is listed twice");
  static_assert(!Op::needs_floating || is_floating_point(Arg::value_dtype),
                "fusedsl: mean, var and std need a floating-point operand: cast it first, e.g. fx::cast<float>(x)");
  static_assert((detail::is_reduction_option<Options> && ...),
                "fusedsl: unknown reduction option: expected fx::drop_axes, fx::correction{...} or fx::accumulate<T>");
  constexpr bool has_correction = (std::is_same_v<Options, correction> || ...);
  static_assert(
      !has_correction || requires { op.correction; }, "fusedsl: fx::correction applies to var and std only");
  if constexpr (has_correction) {
    (
        [&] {
          if constexpr (std::is_same_v<Options, correction>) op.correction = options.value;
        }(),
        ...);
  }
  constexpr bool has_accumulate = (detail::is_accumulate<Options> || ...);
  static_assert(!has_accumulate || Op::adds_up,
                "fusedsl: fx::accumulate applies to sum, prod, mean, var, std and logsumexp only");
  constexpr bool keep = !(std::is_same_v<Options, drop_axes_t> || ...);
  const auto acc_op = detail::accumulating<Op, Op::input_dtype(Arg::value_dtype), Options...>(op);
  return reduce<std::remove_const_t<decltype(acc_op)>, axes_t<Axes...>, keep, Arg>{acc_op, as_expr(a)};
}

#define FUSEDSL_REDUCTION_FUNCTION(NAME, OP)                                \
  /** NAME over all axes (kept with size 1). */                             \
  template <operand A>                                                      \
  constexpr auto NAME(const A& a) {                                         \
    return make_reduce(OP{}, a, axes_t<>{});                                \
  }                                                                         \
  /** NAME over the given axes, with options (`fx::drop_axes`, ...). */     \
  template <operand A, int... Axes, class... Options>                       \
  constexpr auto NAME(const A& a, axes_t<Axes...> ax, Options... options) { \
    return make_reduce(OP{}, a, ax, options...);                            \
  }
FUSEDSL_REDUCTION_FUNCTION(sum, ops::sum)
FUSEDSL_REDUCTION_FUNCTION(prod, ops::prod)
FUSEDSL_REDUCTION_FUNCTION(mean, ops::mean)
FUSEDSL_REDUCTION_FUNCTION(max, ops::max)
FUSEDSL_REDUCTION_FUNCTION(min, ops::min)
FUSEDSL_REDUCTION_FUNCTION(argmax, ops::argmax)
FUSEDSL_REDUCTION_FUNCTION(argmin, ops::argmin)
FUSEDSL_REDUCTION_FUNCTION(any, ops::any)
FUSEDSL_REDUCTION_FUNCTION(all, ops::all)
FUSEDSL_REDUCTION_FUNCTION(logsumexp, ops::logsumexp)
FUSEDSL_REDUCTION_FUNCTION(var, ops::var)
FUSEDSL_REDUCTION_FUNCTION(std, ops::std_dev)
#undef FUSEDSL_REDUCTION_FUNCTION

}  // namespace fusedsl
