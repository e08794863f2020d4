/// @file pointwise_ops.hpp
/// The pointwise operations: their names, how they choose dtypes, and the
/// scalar function each computes. `apply` receives operands already
/// converted to the compute type of `operand_dtype`, so the same definition
/// serves the kernels (f32 compute) and the reference interpreter (f64).
#pragma once
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <type_traits>  // std::is_integral_v

#include <fusedsl/core/config.hpp>      // FUSEDSL_HOST_DEVICE
#include <fusedsl/core/math.hpp>        // math::*
#include <fusedsl/core/philox.hpp>      // philox::draw, uniform, normal
#include <fusedsl/expr/expression.hpp>  // operand_info, promote_operands

namespace fusedsl::ops {

/// Dtype rules shared by families of ops.
namespace rule {
/// Result and operands: the promoted dtype (add, mul, where's values, ...).
struct promoting {
  template <std::size_t N>
  static constexpr dtype result_dtype(const operand_info (&o)[N]) {
    return promote_operands(o);
  }
  template <std::size_t N>
  static constexpr dtype operand_dtype(const operand_info (&o)[N], std::size_t) {
    return promote_operands(o);
  }
};
/// Keeps the operand's dtype (neg, abs, relu).
struct same : promoting {};
/// Floating-point result; integers and bool compute in f32 (exp, division).
struct floating {
  template <std::size_t N>
  static constexpr dtype result_dtype(const operand_info (&o)[N]) {
    const dtype p = promote_operands(o);
    return is_floating_point(p) ? p : dtype::f32;
  }
  template <std::size_t N>
  static constexpr dtype operand_dtype(const operand_info (&o)[N], std::size_t) {
    return result_dtype(o);
  }
};
/// Compares in the promoted dtype, gives bool.
struct comparison {
  template <std::size_t N>
  static constexpr dtype result_dtype(const operand_info (&)[N]) {
    return dtype::boolean;
  }
  template <std::size_t N>
  static constexpr dtype operand_dtype(const operand_info (&o)[N], std::size_t) {
    return promote_operands(o);
  }
};
/// Random numbers: the operands (the element's position, the seed, the
/// offset) are i64, the result f32, as torch.rand's default.
struct random {
  template <std::size_t N>
  static constexpr dtype result_dtype(const operand_info (&)[N]) {
    return dtype::f32;
  }
  template <std::size_t N>
  static constexpr dtype operand_dtype(const operand_info (&)[N], std::size_t) {
    return dtype::i64;
  }
};
/// Bool in, bool out (and, or, not).
struct logical {
  template <std::size_t N>
  static constexpr dtype result_dtype(const operand_info (&)[N]) {
    return dtype::boolean;
  }
  template <std::size_t N>
  static constexpr dtype operand_dtype(const operand_info (&)[N], std::size_t) {
    return dtype::boolean;
  }
};
}  // namespace rule

#define FUSEDSL_UNARY_OP(NAME, RULE, BODY)                                     \
  /** Pointwise NAME. */                                                       \
  struct NAME : rule::RULE {                                                   \
    static constexpr const char* name = #NAME;                                 \
    static constexpr const char* symbol = nullptr;                             \
    static constexpr int arity = 1;                                            \
    template <class T>                                                         \
    FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE static constexpr auto apply(T a) { \
      return BODY;                                                             \
    }                                                                          \
  };
#define FUSEDSL_BINARY_OP(NAME, SYMBOL, RULE, BODY)                                 \
  /** Pointwise NAME. */                                                            \
  struct NAME : rule::RULE {                                                        \
    static constexpr const char* name = #NAME;                                      \
    static constexpr const char* symbol = SYMBOL;                                   \
    static constexpr int arity = 2;                                                 \
    template <class T>                                                              \
    FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE static constexpr auto apply(T a, T b) { \
      return BODY;                                                                  \
    }                                                                               \
  };

FUSEDSL_BINARY_OP(add, "+", promoting, math::wrap_add(a, b))
FUSEDSL_BINARY_OP(sub, "-", promoting, math::wrap_sub(a, b))
FUSEDSL_BINARY_OP(mul, "*", promoting, math::wrap_mul(a, b))
FUSEDSL_BINARY_OP(div, "/", floating, math::divide(a, b))
FUSEDSL_BINARY_OP(maximum, nullptr, promoting, math::nan_max(a, b))
FUSEDSL_BINARY_OP(minimum, nullptr, promoting, math::nan_min(a, b))
FUSEDSL_BINARY_OP(pow, nullptr, promoting, math::pow(a, b))
FUSEDSL_BINARY_OP(remainder, "%", promoting, math::remainder(a, b))
FUSEDSL_BINARY_OP(fmod, nullptr, promoting, math::fmod(a, b))
FUSEDSL_BINARY_OP(atan2, nullptr, floating, math::atan2(a, b))
FUSEDSL_BINARY_OP(hypot, nullptr, floating, math::hypot(a, b))
FUSEDSL_BINARY_OP(eq, "==", comparison, a == b)
FUSEDSL_BINARY_OP(ne, "!=", comparison, a != b)
FUSEDSL_BINARY_OP(lt, "<", comparison, a < b)
FUSEDSL_BINARY_OP(le, "<=", comparison, a <= b)
FUSEDSL_BINARY_OP(gt, ">", comparison, a > b)
FUSEDSL_BINARY_OP(ge, ">=", comparison, a >= b)
FUSEDSL_BINARY_OP(logical_and, "&&", logical, a&& b)
FUSEDSL_BINARY_OP(logical_or, "||", logical, a || b)
FUSEDSL_BINARY_OP(bitwise_and, "&", promoting, static_cast<T>(a& b))
FUSEDSL_BINARY_OP(bitwise_or, "|", promoting, static_cast<T>(a | b))
FUSEDSL_BINARY_OP(bitwise_xor, "^", promoting, static_cast<T>(a ^ b))
FUSEDSL_BINARY_OP(shift_left, "<<", promoting, math::shift_left(a, b))
FUSEDSL_BINARY_OP(shift_right, ">>", promoting, math::shift_right(a, b))

FUSEDSL_UNARY_OP(logical_not, logical, !a)
FUSEDSL_UNARY_OP(bitwise_not, same, math::bitwise_not(a))
FUSEDSL_UNARY_OP(floor, same, math::to_integral<math::rounding::floor>(a))
FUSEDSL_UNARY_OP(ceil, same, math::to_integral<math::rounding::ceil>(a))
FUSEDSL_UNARY_OP(trunc, same, math::to_integral<math::rounding::trunc>(a))
FUSEDSL_UNARY_OP(round, same, math::to_integral<math::rounding::half_even>(a))
FUSEDSL_UNARY_OP(sign, same, math::sign(a))
FUSEDSL_UNARY_OP(neg, same, math::wrap_neg(a))
FUSEDSL_UNARY_OP(abs, same, math::abs(a))
FUSEDSL_UNARY_OP(relu, same, a < T(0) ? T(0) : a)
FUSEDSL_UNARY_OP(exp, floating, math::exp(a))
FUSEDSL_UNARY_OP(log, floating, math::log(a))
FUSEDSL_UNARY_OP(log1p, floating, math::log1p(a))
FUSEDSL_UNARY_OP(log2, floating, math::log2(a))
FUSEDSL_UNARY_OP(log10, floating, math::log10(a))
FUSEDSL_UNARY_OP(exp2, floating, math::exp2(a))
FUSEDSL_UNARY_OP(expm1, floating, math::expm1(a))
FUSEDSL_UNARY_OP(sqrt, floating, math::sqrt(a))
FUSEDSL_UNARY_OP(rsqrt, floating, math::rsqrt(a))
FUSEDSL_UNARY_OP(sin, floating, math::sin(a))
FUSEDSL_UNARY_OP(cos, floating, math::cos(a))
FUSEDSL_UNARY_OP(tanh, floating, math::tanh(a))
FUSEDSL_UNARY_OP(sigmoid, floating, math::sigmoid(a))
FUSEDSL_UNARY_OP(erf, floating, math::erf(a))
FUSEDSL_UNARY_OP(erfc, floating, math::erfc(a))
FUSEDSL_UNARY_OP(gelu, floating, math::gelu_erf(a))
FUSEDSL_UNARY_OP(gelu_tanh, floating, math::gelu_tanh(a))
FUSEDSL_UNARY_OP(silu, floating, math::silu(a))
/// Identity that forces the value to be materialized (`fx::realize`).
FUSEDSL_UNARY_OP(realize, same, a)

#undef FUSEDSL_UNARY_OP
#undef FUSEDSL_BINARY_OP

/// `where(condition, a, b)`: the condition is bool; a and b promote.
struct where {
  static constexpr const char* name = "where";
  static constexpr const char* symbol = nullptr;
  static constexpr int arity = 3;
  static constexpr dtype result_dtype(const operand_info (&o)[3]) {
    const operand_info values[] = {o[1], o[2]};
    return promote_operands(values);
  }
  static constexpr dtype operand_dtype(const operand_info (&o)[3], std::size_t i) {
    return i == 0 ? dtype::boolean : result_dtype(o);
  }
  template <class C, class T>
  FUSEDSL_HOST_DEVICE static constexpr T apply(C c, T a, T b) {
    return math::select(static_cast<bool>(c), a, b);
  }
};

/// `a * b + c` rounded once (`fx::fma`): the three operands promote.
struct fma : rule::promoting {
  static constexpr const char* name = "fma";
  static constexpr const char* symbol = nullptr;
  static constexpr int arity = 3;
  template <class T>
  FUSEDSL_HOST_DEVICE static constexpr T apply(T a, T b, T c) {
    return math::fma(a, b, c);
  }
};

/// Philox-4x32-10 at counter `offset + position`, key `seed` (both as 64-bit
/// words): a uniform float in [0, 1) (`fx::rand`) or a standard normal one
/// (`fx::randn`), the same for an element on every backend.
#define FUSEDSL_RANDOM_OP(NAME, VALUE)                                                                           \
  struct NAME : rule::random {                                                                                   \
    static constexpr const char* name = #NAME;                                                                   \
    static constexpr const char* symbol = nullptr;                                                               \
    static constexpr int arity = 3;                                                                              \
    template <class T>                                                                                           \
    FUSEDSL_HOST_DEVICE static constexpr float apply(T position, T seed, T offset) {                             \
      const philox::words r = philox::draw(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(offset), \
                                           static_cast<std::uint64_t>(position));                                \
      return VALUE;                                                                                              \
    }                                                                                                            \
  };
FUSEDSL_RANDOM_OP(rand, philox::uniform(r.w[0]))
FUSEDSL_RANDOM_OP(randn, philox::normal(r.w[0], r.w[1]))
#undef FUSEDSL_RANDOM_OP

/// Conversion to dtype `To`, with C++ conversion semantics (truncation
/// toward zero for float to integer, `!= 0` for bool, rounding to nearest
/// even for f16/bf16). The result is the element type itself, so that the
/// value is rounded to `To` even where the computation is wider.
template <dtype To>
struct cast {
  using is_cast = void;
  static constexpr const char* name = "cast";
  static constexpr const char* symbol = nullptr;
  static constexpr int arity = 1;
  static constexpr dtype result_dtype(const operand_info (&)[1]) { return To; }
  static constexpr dtype operand_dtype(const operand_info (&o)[1], std::size_t) { return o[0].type; }
  template <class T>
  FUSEDSL_HOST_DEVICE static constexpr element_t<To> apply(T a) {
    return static_cast<element_t<To>>(a);
  }
};

}  // namespace fusedsl::ops
