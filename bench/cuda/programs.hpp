/// @file programs.hpp
/// The programs of the CUDA benchmark, shared by programs.cpp (the C++
/// compiler: the one-kernel static_asserts, built without CUDA too; nvcc
/// folds plans as well, docs/limits.md "Compile time") and main.cu (the
/// timed runs). Declared `constexpr fx::program name{...}`
/// (nvcc 13 cannot compile `constexpr auto name = fx::program{...}`).
#pragma once
#include <fusedsl/fusedsl.hpp>  // fx::program, placeholders, ops

namespace bench_cuda {

namespace fx = fusedsl;

inline constexpr fx::in<"a", float, 1> a;
inline constexpr fx::in<"b", float, 1> b;
inline constexpr fx::in<"c", float, 1> c;
inline constexpr fx::out<"y", float, 1> y;
/// exp(a) * b + c over f32.
inline constexpr fx::program pointwise_f32{y = fx::exp(a) * b + c};

inline constexpr fx::in<"a", fx::bfloat16, 1> ha;
inline constexpr fx::in<"b", fx::bfloat16, 1> hb;
inline constexpr fx::in<"c", fx::bfloat16, 1> hc;
inline constexpr fx::out<"y", fx::bfloat16, 1> hy;
/// exp(a) * b + c over bf16 (computed in f32).
inline constexpr fx::program pointwise_bf16{hy = fx::exp(ha) * hb + hc};

inline constexpr fx::in<"x", float, 2> x;
inline constexpr fx::in<"w", float, 1> w;
inline constexpr fx::in<"bias", float, 1> bias;
inline constexpr fx::out<"y", float, 2> y2;
/// Softmax over the rows.
inline constexpr fx::program softmax{y2 = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                          fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
/// Layer normalization with weight and bias.
inline constexpr fx::program layernorm{
    y2 = (x - fx::mean(x, fx::axis<1>)) * fx::rsqrt(fx::var(x, fx::axis<1>, fx::correction{0}) + 1e-5f) * w + bias};
/// RMS normalization with weight.
inline constexpr fx::program rmsnorm{y2 = x * fx::rsqrt(fx::mean(x * x, fx::axis<1>) + 1e-6f) * w};
/// Bias then gelu (erf form, torch's default).
inline constexpr fx::program bias_gelu{y2 = fx::gelu(x + bias)};

inline constexpr fx::out<"s", float, 1> s;
/// Sum of each row.
inline constexpr fx::program row_sum{s = fx::sum(x, fx::axis<1>, fx::drop_axes)};
/// Sum of each column.
inline constexpr fx::program column_sum{s = fx::sum(x, fx::axis<0>, fx::drop_axes)};

inline constexpr fx::in<"v", float, 1> v;
inline constexpr fx::out<"t", float, 0> t;
/// Sum of every element.
inline constexpr fx::program full_sum{t = fx::sum(v, fx::axes<>, fx::drop_axes)};

inline constexpr fx::out<"p", float, 2> p2;
inline constexpr fx::out<"q", float, 2> q2;
/// The horizontal case: two pointwise outputs and a row sum over one input.
inline constexpr fx::program horizontal{p2 = x * 2, q2 = x + 1, s = fx::sum(x, fx::axis<1>, fx::drop_axes)};

inline constexpr fx::in<"g", float, 1> g;
inline constexpr fx::inout<"p", float, 1> p;
inline constexpr fx::inout<"m", float, 1> m;
inline constexpr fx::inout<"v", float, 1> vv;
inline constexpr fx::param<"lr", float> lr;
/// Adam's in-place update (moments, then the parameter).
inline constexpr fx::program adam{m = 0.9f * m + 0.1f * g, vv = 0.999f * vv + 0.001f * g * g,
                                  p -= lr * m / (fx::sqrt(vv) + 1e-8f)};

}  // namespace bench_cuda
