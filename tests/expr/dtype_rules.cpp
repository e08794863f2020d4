// Compile-time facts of expressions: kinds, dtypes (PyTorch's result_type
// rules, with C++ numbers as "wrapped numbers"), ranks. They pass by compiling.
#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;
using fx::dtype;

namespace {
constexpr fx::in<"f", float, 2> f32_2d;
constexpr fx::in<"d", double, 1> f64_1d;
constexpr fx::in<"h", fx::half, 2> f16_2d;
constexpr fx::in<"b", fx::bfloat16, 2> bf16_2d;
constexpr fx::in<"i", std::int32_t, 2> i32_2d;
constexpr fx::in<"l", std::int64_t, 0> i64_0d;
constexpr fx::in<"u", std::uint8_t, 3> u8_3d;
constexpr fx::in<"c", std::int8_t, 1> i8_1d;
constexpr fx::in<"m", bool, 2> bool_2d;
constexpr fx::param<"lr", float> lr;

template <class E>
constexpr dtype dtype_of_expr(const E&) {
  return E::value_dtype;
}
template <class E>
constexpr int rank_of(const E&) {
  return E::rank;
}
}  // namespace

// Tensor with tensor: torch.promote_types.
static_assert(dtype_of_expr(f32_2d + f64_1d) == dtype::f64);
static_assert(dtype_of_expr(f16_2d * bf16_2d) == dtype::f32);
static_assert(dtype_of_expr(u8_3d + i8_1d) == dtype::i16);
static_assert(dtype_of_expr(i32_2d + i64_0d) == dtype::i64);
static_assert(dtype_of_expr(i32_2d + f16_2d) == dtype::f16);
static_assert(dtype_of_expr(bool_2d + bool_2d) == dtype::boolean);
static_assert(dtype_of_expr(bf16_2d + f32_2d) == dtype::f32);
// Tensor with a C++ number: only a higher category promotes.
static_assert(dtype_of_expr(bf16_2d * 0.9) == dtype::bf16);
static_assert(dtype_of_expr(0.9f * f16_2d) == dtype::f16);
static_assert(dtype_of_expr(i32_2d * 2) == dtype::i32);
static_assert(dtype_of_expr(i32_2d * 2.5) == dtype::f32);
static_assert(dtype_of_expr(u8_3d + 1000) == dtype::u8);
static_assert(dtype_of_expr(bool_2d + 1) == dtype::i64);
static_assert(dtype_of_expr(bool_2d * 1.5f) == dtype::f32);
// Params promote like numbers.
static_assert(dtype_of_expr(lr * bf16_2d) == dtype::bf16);
static_assert(dtype_of_expr(lr * i32_2d) == dtype::f32);
// Op families.
static_assert(dtype_of_expr(i32_2d / i32_2d) == dtype::f32);
static_assert(dtype_of_expr(f64_1d / 2) == dtype::f64);
static_assert(dtype_of_expr(fx::exp(i32_2d)) == dtype::f32);
static_assert(dtype_of_expr(fx::exp(bf16_2d)) == dtype::bf16);
static_assert(dtype_of_expr(f32_2d < f64_1d) == dtype::boolean);
static_assert(dtype_of_expr(bool_2d && (f32_2d > 0)) == dtype::boolean);
static_assert(dtype_of_expr(fx::where(bool_2d, i32_2d, f16_2d)) == dtype::f16);
static_assert(dtype_of_expr(fx::where(f32_2d > 0, f32_2d, 0)) == dtype::f32);
static_assert(dtype_of_expr(fx::cast<fx::bfloat16>(f32_2d)) == dtype::bf16);
static_assert(dtype_of_expr(-i8_1d) == dtype::i8);
static_assert(dtype_of_expr(fx::abs(u8_3d)) == dtype::u8);
static_assert(dtype_of_expr(fx::relu(i32_2d)) == dtype::i32);
static_assert(dtype_of_expr(fx::pow(i32_2d, 2)) == dtype::i32);
static_assert(dtype_of_expr(fx::maximum(f16_2d, f32_2d)) == dtype::f32);
// Reductions: sums of integers and bool widen to i64; argmax gives i64.
static_assert(dtype_of_expr(fx::sum(i32_2d)) == dtype::i64);
static_assert(dtype_of_expr(fx::sum(bool_2d, fx::axis<1>)) == dtype::i64);
static_assert(dtype_of_expr(fx::prod(u8_3d)) == dtype::i64);
static_assert(dtype_of_expr(fx::sum(bf16_2d)) == dtype::bf16);
static_assert(dtype_of_expr(fx::max(i32_2d, fx::axis<0>)) == dtype::i32);
static_assert(dtype_of_expr(fx::argmax(f32_2d, fx::axis<1>)) == dtype::i64);
static_assert(dtype_of_expr(fx::any(f32_2d > 1)) == dtype::boolean);
static_assert(dtype_of_expr(fx::all(i32_2d)) == dtype::boolean);
static_assert(dtype_of_expr(fx::mean(f16_2d)) == dtype::f16);
static_assert(dtype_of_expr(fx::var(f64_1d)) == dtype::f64);
static_assert(dtype_of_expr(fx::logsumexp(i32_2d, fx::axis<1>)) == dtype::f32);
// fx::accumulate<T> changes the accumulator, not the result; an accumulator the kernels
// compute in anyway (f32 for f16, i64 for integer sums) is the plain reduction.
using sum_in_f64 = decltype(fx::sum(f32_2d, fx::axis<1>, fx::accumulate<double>));
static_assert(sum_in_f64::value_dtype == dtype::f32 && sum_in_f64::input_dtype == dtype::f64);
static_assert(decltype(fx::logsumexp(i32_2d, fx::axes<>, fx::accumulate<double>))::input_dtype == dtype::f64);
static_assert(
    std::is_same_v<decltype(fx::mean(f16_2d, fx::axes<>, fx::accumulate<float>)), decltype(fx::mean(f16_2d))>);
static_assert(
    std::is_same_v<decltype(fx::sum(i32_2d, fx::axes<>, fx::accumulate<std::int64_t>)), decltype(fx::sum(i32_2d))>);
// Ranks: broadcasting takes the larger; reductions keep axes unless told.
static_assert(rank_of(f32_2d + f64_1d) == 2);
static_assert(rank_of(u8_3d * i64_0d) == 3);
static_assert(rank_of(fx::sum(u8_3d, fx::axis<1>)) == 3);
static_assert(rank_of(fx::sum(u8_3d, fx::axis<1>, fx::drop_axes)) == 2);
static_assert(rank_of(fx::sum(u8_3d, fx::axes<0, -1>, fx::drop_axes)) == 1);
static_assert(rank_of(fx::sum(u8_3d, fx::axes<>, fx::drop_axes)) == 0);
// Kinds (Inductor's node classes).
static_assert(fx::is_kind<decltype(f32_2d), fx::kind::input>);
static_assert(fx::is_kind<decltype(f32_2d + 1), fx::kind::pointwise>);
static_assert(fx::is_kind<decltype(fx::max(f32_2d, fx::axis<1>)), fx::kind::reduction>);
static_assert(fx::is_kind<decltype(lr), fx::kind::input>);
// A subexpression used twice is one node.
using softmax_type = decltype(fx::exp(f32_2d - fx::max(f32_2d, fx::axis<1>)) /
                              fx::sum(fx::exp(f32_2d - fx::max(f32_2d, fx::axis<1>)), fx::axis<1>));
static_assert(boost::hana::length(fx::distinct_nodes<softmax_type>()) == boost::hana::size_c<2>);
// Expressions are constexpr values: the constant inside is readable while compiling.
static_assert(boost::hana::at_c<1>(boost::hana::at_c<0>(fx::exp(f32_2d * 2.0f).args).args).value == 2.0f);
// same_value compares constants and reduction options (repeated subexpressions must agree).
static_assert(fx::same_value(fx::exp(f32_2d * 2.0f), fx::exp(f32_2d * 2.0f)));
static_assert(!fx::same_value(fx::exp(f32_2d * 2.0f), fx::exp(f32_2d * 3.0f)));
static_assert(!fx::same_value(fx::var(f32_2d, fx::axis<1>), fx::var(f32_2d, fx::axis<1>, fx::correction{0})));
static_assert(!fx::same_value(fx::var(f32_2d, fx::axis<1>, fx::accumulate<double>),
                              fx::var(f32_2d, fx::axis<1>, fx::correction{0}, fx::accumulate<double>)));
// A sum in double and the plain sum of the same operand are two nodes.
static_assert(boost::hana::length(fx::distinct_nodes<decltype(sum_in_f64{} - fx::sum(f32_2d, fx::axis<1>))>()) ==
              boost::hana::size_c<2>);
// `==` of two expressions is an expression (a C++ equality of the node types would
// give a bool for two operands of one type, and silently turn `x != x` into false).
static_assert(fx::is_kind<decltype(fx::exp(f32_2d) == fx::exp(f32_2d)), fx::kind::pointwise>);
static_assert(fx::is_kind<decltype(f32_2d != f32_2d), fx::kind::pointwise>);

TEST_CASE("expression dtype and rank rules hold at compile time") {
  CHECK(dtype_of_expr(f32_2d + f64_1d) == dtype::f64);  // the static_asserts above are the real test
}
