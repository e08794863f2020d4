/// @file families.hpp
/// The matrix's families as fusedsl programs, one struct per family (the name in
/// workloads.txt), each generic over the element type. `run<T>` makes fresh random
/// inputs for a workload's shape and hands the harness the fused run, the oracle
/// (fx::run_reference, double accumulation) and the bytes the work must move.
#pragma once
#include <cmath>    // INFINITY
#include <cstdint>  // std::int64_t, std::int32_t
#include <string>   // std::string

#include <fusedsl/fusedsl.hpp>

#include "harness.hpp"  // harness, measurement

namespace matrix {

namespace fx = fusedsl;

/// Random inputs in [-2, 2) (integers in [-20, 20)), a fresh seed per call.
template <class T>
fx::tensor<T> random_input(const fx::shape& s, harness& h) {
  if constexpr (std::is_integral_v<T>) return random_tensor<T>(s, h.next_seed(), -20, 20);
  else return random_tensor<T>(s, h.next_seed(), -2, 2);
}

/// The rows x columns of a 2-d workload (a 1-d one is 1 x N).
inline fx::shape matrix_shape(const workload& w) {
  return w.shape.size() == 2 ? fx::shape{w.shape[0], w.shape[1]} : fx::shape{1, w.shape[0]};
}

/// The elements of a workload as one vector.
inline std::int64_t flat_size(const workload& w) { return matrix_shape(w).numel(); }

/// A family with one input `x` of shape `in` and one output `y` of shape `out`: fresh
/// inputs, the fused run, the oracle, compared with `ops` roundings over `reduced`
/// elements (compare), the bytes of reading x and writing y once.
template <class T, class P, class X, class Y>
measurement one_in_one_out(harness& h, const P& prog, X x, Y y, const fx::shape& in, const fx::shape& out, int ops,
                           std::int64_t reduced = 1, double magnitude = 1) {
  const auto a = random_input<T>(in, h);
  fx::tensor<T> result(out), expected(out);
  return h.measure((in.numel() + out.numel()) * static_cast<std::int64_t>(sizeof(T)),
                   [&](auto target) { prog.run(target, x(a), y(result)); },
                   [&] { fx::run_reference(prog, x(a), y(expected)); },
                   {compare(result, expected, ops, reduced, magnitude)});
}

// ---------------------------------------------------------------- pointwise

struct exp_family {
  using types = type_list<float, double>;  ///< the element types it is built for
  static constexpr const char* name = "exp";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"y", T, 1> y;
    constexpr fx::program prog{y = fx::exp(x)};
    return one_in_one_out<T>(h, prog, x, y, {flat_size(w)}, {flat_size(w)}, 1);
  }
};

struct gelu_family {
  using types = type_list<float>;
  static constexpr const char* name = "gelu";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"y", T, 1> y;
    constexpr fx::program prog{y = fx::gelu(x)};
    return one_in_one_out<T>(h, prog, x, y, {flat_size(w)}, {flat_size(w)}, 2);
  }
};

/// x + b with b a row vector (broadcast along the rows).
struct add_row_family {
  using types = type_list<float>;
  static constexpr const char* name = "add_row";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"b", T, 1> b;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = x + b};
    const fx::shape s = matrix_shape(w);
    const auto a = random_input<T>(s, h), bias = random_input<T>({s[1]}, h);
    fx::tensor<T> out(s), expected(s);
    return h.measure((2 * s.numel() + s[1]) * sizeof(T), [&](auto target) { prog.run(target, x(a), b(bias), y(out)); },
                     [&] { fx::run_reference(prog, x(a), b(bias), y(expected)); }, {compare(out, expected, 1)});
  }
};

/// where(mask, x, 0) with a bool mask tensor.
struct where_mask_family {
  using types = type_list<float>;
  static constexpr const char* name = "where_mask";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"m", bool, 2> m;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = fx::where(m, x, 0)};
    const fx::shape s = matrix_shape(w);
    const auto a = random_input<T>(s, h);
    const auto mask = random_tensor<bool>(s, h.next_seed(), 0, 2);
    fx::tensor<T> out(s), expected(s);
    return h.measure(
        s.numel() * (2 * sizeof(T) + 1), [&](auto target) { prog.run(target, x(a), m(mask), y(out)); },
        [&] { fx::run_reference(prog, x(a), m(mask), y(expected)); }, {compare(out, expected, 1)});
  }
};

/// int64((int32(x) + y) * z), x and y of the workload's integer type, z int32.
struct int_chain_family {
  using types = type_list<std::int64_t>;
  static constexpr const char* name = "int_chain";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::in<"y", T, 1> y;
    constexpr fx::in<"z", std::int32_t, 1> z;
    constexpr fx::out<"r", std::int64_t, 1> r;
    constexpr fx::program prog{r = fx::cast<std::int64_t>((fx::cast<std::int32_t>(x) + y) * z)};
    const std::int64_t n = flat_size(w);
    const auto a = random_input<T>({n}, h), b = random_input<T>({n}, h);
    const auto c = random_input<std::int32_t>({n}, h);
    fx::tensor<std::int64_t> out({n}), expected({n});
    return h.measure(
        n * (2 * sizeof(T) + 4 + 8), [&](auto target) { prog.run(target, x(a), y(b), z(c), r(out)); },
        [&] { fx::run_reference(prog, x(a), y(b), z(c), r(expected)); }, {compare(out, expected, 1)});
  }
};

// ---------------------------------------------------------------- rows

struct softmax_family {
  using types = type_list<float, fx::bfloat16>;
  static constexpr const char* name = "softmax";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                   fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
    const fx::shape s = matrix_shape(w);
    return one_in_one_out<T>(h, prog, x, y, s, s, 4, s[1]);
  }
};

/// log_softmax written with logsumexp.
struct log_softmax_family {
  using types = type_list<float>;
  static constexpr const char* name = "log_softmax";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = x - fx::logsumexp(x, fx::axis<1>)};
    const fx::shape s = matrix_shape(w);
    return one_in_one_out<T>(h, prog, x, y, s, s, 4, s[1]);
  }
};

/// logsumexp of each row, into a vector.
struct logsumexp_family {
  using types = type_list<float>;
  static constexpr const char* name = "logsumexp";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"s", T, 1> s;
    constexpr fx::program prog{s = fx::logsumexp(x, fx::axis<1>, fx::drop_axes)};
    const fx::shape sh = matrix_shape(w);
    return one_in_one_out<T>(h, prog, x, s, sh, {sh[0]}, 4, sh[1]);
  }
};

/// Sum of each row, into a vector.
struct row_sum_family {
  using types = type_list<float>;
  static constexpr const char* name = "row_sum";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"s", T, 1> s;
    constexpr fx::program prog{s = fx::sum(x, fx::axis<1>, fx::drop_axes)};
    const fx::shape sh = matrix_shape(w);
    return one_in_one_out<T>(h, prog, x, s, sh, {sh[0]}, 1, sh[1], sum_magnitude(sh[1]));
  }
};

/// Layer normalization with weight and bias.
struct layernorm_family {
  using types = type_list<float, fx::bfloat16>;
  static constexpr const char* name = "layernorm";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"w", T, 1> wt;
    constexpr fx::in<"b", T, 1> b;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{
        y = (x - fx::mean(x, fx::axis<1>)) * fx::rsqrt(fx::var(x, fx::axis<1>, fx::correction{0}) + 1e-5f) * wt + b};
    const fx::shape s = matrix_shape(w);
    const auto a = random_input<T>(s, h), weight = random_input<T>({s[1]}, h), bias = random_input<T>({s[1]}, h);
    fx::tensor<T> out(s), expected(s);
    return h.measure((2 * s.numel() + 2 * s[1]) * sizeof(T),
                     [&](auto target) { prog.run(target, x(a), wt(weight), b(bias), y(out)); },
                     [&] { fx::run_reference(prog, x(a), wt(weight), b(bias), y(expected)); },
                     {compare(out, expected, 8, s[1])});
  }
};

/// RMS normalization with weight.
struct rmsnorm_family {
  using types = type_list<float>;
  static constexpr const char* name = "rmsnorm";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"w", T, 1> wt;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = x * fx::rsqrt(fx::mean(x * x, fx::axis<1>) + 1e-6f) * wt};
    const fx::shape s = matrix_shape(w);
    const auto a = random_input<T>(s, h), weight = random_input<T>({s[1]}, h);
    fx::tensor<T> out(s), expected(s);
    return h.measure((2 * s.numel() + s[1]) * sizeof(T),
                     [&](auto target) { prog.run(target, x(a), wt(weight), y(out)); },
                     [&] { fx::run_reference(prog, x(a), wt(weight), y(expected)); },
                     {compare(out, expected, 6, s[1])});
  }
};

// ---------------------------------------------------------------- columns, full, several outputs, in place

/// Sum of each column, into a vector.
struct column_sum_family {
  using types = type_list<float>;
  static constexpr const char* name = "column_sum";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"s", T, 1> s;
    constexpr fx::program prog{s = fx::sum(x, fx::axis<0>, fx::drop_axes)};
    const fx::shape sh = matrix_shape(w);
    return one_in_one_out<T>(h, prog, x, s, sh, {sh[1]}, 1, sh[0], sum_magnitude(sh[0]));
  }
};

/// Mean of each column, into a vector.
struct column_mean_family {
  using types = type_list<float>;
  static constexpr const char* name = "column_mean";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"s", T, 1> s;
    constexpr fx::program prog{s = fx::mean(x, fx::axis<0>, fx::drop_axes)};
    const fx::shape sh = matrix_shape(w);
    return one_in_one_out<T>(h, prog, x, s, sh, {sh[1]}, 1, sh[0]);
  }
};

/// The sum of every element.
struct full_sum_family {
  using types = type_list<float>;
  static constexpr const char* name = "full_sum";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"s", T, 0> s;
    constexpr fx::program prog{s = fx::sum(x, fx::axis<0>, fx::drop_axes)};
    const std::int64_t n = flat_size(w);
    return one_in_one_out<T>(h, prog, x, s, {n}, fx::shape{}, 1, n, sum_magnitude(n));
  }
};

/// Several outputs of one input: x * 2, x + 1 and the sum of x.
struct horizontal_family {
  using types = type_list<float>;
  static constexpr const char* name = "horizontal";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"a", T, 1> a;
    constexpr fx::out<"b", T, 1> b;
    constexpr fx::out<"s", T, 0> s;
    constexpr fx::program prog{a = x * 2, b = x + 1, s = fx::sum(x, fx::axis<0>, fx::drop_axes)};
    const std::int64_t n = flat_size(w);
    const auto in = random_input<T>({n}, h);
    fx::tensor<T> oa({n}), ob({n}), os(fx::shape{}), ea({n}), eb({n}), es(fx::shape{});
    return h.measure(
        3 * n * sizeof(T), [&](auto target) { prog.run(target, x(in), a(oa), b(ob), s(os)); },
        [&] { fx::run_reference(prog, x(in), a(ea), b(eb), s(es)); },
        {compare(oa, ea, 1), compare(ob, eb, 1), compare(os, es, 1, n, sum_magnitude(n))});
  }
};

/// Adam's update, in place: m, v and the parameters.
struct adam_family {
  using types = type_list<float>;
  static constexpr const char* name = "adam";
  template <class T>
  static measurement run(const workload& w, harness& h) {
    constexpr fx::in<"g", T, 1> g;
    constexpr fx::inout<"p", T, 1> p;
    constexpr fx::inout<"m", T, 1> m;
    constexpr fx::inout<"v", T, 1> v;
    constexpr fx::param<"lr", T> lr;
    constexpr fx::program prog{m = 0.9f * m + 0.1f * g, v = 0.999f * v + 0.001f * g * g,
                               p -= lr * m / (fx::sqrt(v) + 1e-8f)};
    const std::int64_t n = flat_size(w);
    const auto grad = random_input<T>({n}, h);
    auto p0 = random_input<T>({n}, h), m0 = random_input<T>({n}, h), v0 = random_input<T>({n}, h);
    for (std::int64_t i = 0; i < n; ++i) v0.data()[i] = static_cast<T>(std::abs(static_cast<double>(v0.data()[i])));
    auto pa = p0.clone(), ma = m0.clone(), va = v0.clone(), pe = p0.clone(), me = m0.clone(), ve = v0.clone();
    const T rate = static_cast<T>(1e-3);
    // Timed runs keep updating pa, ma, va: the check is of the first run (the harness runs it first).
    return h.measure(
        7 * n * sizeof(T), [&](auto target) { prog.run(target, g(grad), p(pa), m(ma), v(va), lr(rate)); },
        [&] { fx::run_reference(prog, g(grad), p(pe), m(me), v(ve), lr(rate)); },
        {compare(pa, pe, 6), compare(ma, me, 2), compare(va, ve, 3)});
  }
};

/// Every family, for the harness's table of names.
using all_families =
    type_list<exp_family, gelu_family, add_row_family, where_mask_family, int_chain_family, softmax_family,
              log_softmax_family, logsumexp_family, row_sum_family, layernorm_family, rmsnorm_family, column_sum_family,
              column_mean_family, full_sum_family, horizontal_family, adam_family>;

}  // namespace matrix
