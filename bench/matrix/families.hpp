/// @file families.hpp
/// The matrix's families as fusedsl programs, one struct per family (the name in
/// workloads.txt), each generic over the element type and the harness. `run<T>` makes
/// the cell's inputs (harness_base::input, numbered in the order declared here, which
/// peers.py follows) and hands the harness the fused run, the oracle (fx::run_reference,
/// double accumulation), the bytes the work must move and the program's kernel count.
#pragma once
#include <algorithm>  // std::max
#include <cmath>      // INFINITY, std::sqrt
#include <cstdint>    // std::int64_t, std::int32_t
#include <string>     // std::string

#include <fusedsl/fusedsl.hpp>

#include "harness.hpp"    // measurement, one_output's harness
#include "workloads.hpp"  // workload

namespace matrix {

namespace fx = fusedsl;

/// The rows x columns of a 2-d workload (a 1-d one is 1 x N).
inline fx::shape matrix_shape(const workload& w) {
  return w.shape.size() == 2 ? fx::shape{w.shape[0], w.shape[1]} : fx::shape{1, w.shape[0]};
}

/// The elements of a workload as one vector.
inline std::int64_t flat_size(const workload& w) { return matrix_shape(w).numel(); }

/// How an output is compared with the oracle's (compare): `ops` roundings over `reduced`
/// elements, relative to the larger of |expected| and `magnitude`.
struct tolerance_of {
  int ops = 1;
  std::int64_t reduced = 1;
  double magnitude = 1;
};

/// Bytes of the tensor a binding views.
template <class P, class U>
std::int64_t bytes_of(const fx::tensor_binding<P, U>& b) {
  return b.view.numel() * static_cast<std::int64_t>(sizeof(U));
}

/// A family with one output `y` (element type U, shape `out`) of the tensors bound in
/// `inputs`: the fused run and the oracle, compared within `tol`; the bytes are every
/// input read once and the output written once.
template <class U, class H, class P, class Y, class... Inputs>
measurement one_output(H& h, const P& prog, Y y, const fx::shape& out, tolerance_of tol, const Inputs&... inputs) {
  fx::tensor<U> result(out), expected(out);
  const std::int64_t out_bytes = out.numel() * static_cast<std::int64_t>(sizeof(U));
  return h.measure((bytes_of(inputs) + ... + out_bytes), fx::kernel_count(prog),
                   [&](auto target, auto place) { prog.run(target, place(inputs)..., place(y(result))); },
                   [&] { fx::run_reference(prog, inputs..., y(expected)); },
                   {compare(result, expected, tol.ops, tol.reduced, tol.magnitude)});
}

// ---------------------------------------------------------------- pointwise

/// A pointwise function of one vector, `Op::apply(x)` (Op: name, types, ops, apply).
template <class Op>
struct unary_family {
  using types = typename Op::types;
  static constexpr const char* name = Op::name;
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"y", T, 1> y;
    constexpr fx::program prog{y = Op::apply(x)};
    const auto a = h.template input<T>({flat_size(w)});
    return one_output<T>(h, prog, y, a.sizes(), {Op::ops}, x(a));
  }
};
/// What an Op of unary_family declares besides its name and `apply`: the roundings
/// compared (compare) and the element types it is built for.
template <int Ops, class Types = type_list<float>>
struct unary_op {
  using types = Types;
  static constexpr int ops = Ops;
};
struct exp_op : unary_op<1, type_list<float, double>> {
  static constexpr const char* name = "exp";
  static constexpr auto apply(const auto& x) { return fx::exp(x); }
};
struct gelu_op : unary_op<2, type_list<float, fx::bfloat16, fx::half>> {
  static constexpr const char* name = "gelu";
  static constexpr auto apply(const auto& x) { return fx::gelu(x); }
};
struct tanh_op : unary_op<2> {
  static constexpr const char* name = "tanh";
  static constexpr auto apply(const auto& x) { return fx::tanh(x); }
};
struct sigmoid_op : unary_op<2> {
  static constexpr const char* name = "sigmoid";
  static constexpr auto apply(const auto& x) { return fx::sigmoid(x); }
};
struct erf_op : unary_op<2, type_list<float, double>> {
  static constexpr const char* name = "erf";
  static constexpr auto apply(const auto& x) { return fx::erf(x); }
};
struct log_op : unary_op<2> {  // of |x| + 1, so that every input has a finite log
  static constexpr const char* name = "log";
  static constexpr auto apply(const auto& x) { return fx::log(fx::abs(x) + 1); }
};

/// x + c with c a column vector [rows, 1] (broadcast along the columns).
struct add_col_family {
  using types = type_list<float>;
  static constexpr const char* name = "add_col";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"c", T, 2> c;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = x + c};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s), column = h.template input<T>({s[0], 1});
    return one_output<T>(h, prog, y, s, {1}, x(a), c(column));
  }
};

/// x + b with b a row vector (broadcast along the rows).
struct add_row_family {
  using types = type_list<float>;
  static constexpr const char* name = "add_row";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"b", T, 1> b;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = x + b};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s), bias = h.template input<T>({s[1]});
    return one_output<T>(h, prog, y, s, {1}, x(a), b(bias));
  }
};

/// where(mask, x, 0) with a bool mask tensor.
struct where_mask_family {
  using types = type_list<float>;
  static constexpr const char* name = "where_mask";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"m", bool, 2> m;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = fx::where(m, x, 0)};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s);
    const auto mask = h.template input<bool>(s);
    return one_output<T>(h, prog, y, s, {1}, x(a), m(mask));
  }
};

/// where(x > 0, erf(x), x): a select on a comparison, with math in one branch.
struct where_cmp_family {
  using types = type_list<float>;
  static constexpr const char* name = "where_cmp";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"y", T, 1> y;
    constexpr fx::program prog{y = fx::where(x > 0, fx::erf(x), x)};
    const auto a = h.template input<T>({flat_size(w)});
    return one_output<T>(h, prog, y, a.sizes(), {2}, x(a));
  }
};

/// A float32 vector cast to the cell's (narrower) element type.
struct downcast_family {
  using types = type_list<fx::bfloat16, fx::half>;
  static constexpr const char* name = "downcast";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", float, 1> x;
    constexpr fx::out<"y", T, 1> y;
    constexpr fx::program prog{y = fx::cast<T>(x)};
    const auto a = h.template input<float>({flat_size(w)});
    return one_output<T>(h, prog, y, a.sizes(), {0}, x(a));
  }
};

/// int64((int32(x) + y) * z), x and y of the workload's integer type, z int32.
struct int_chain_family {
  using types = type_list<std::int64_t>;
  static constexpr const char* name = "int_chain";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::in<"y", T, 1> y;
    constexpr fx::in<"z", std::int32_t, 1> z;
    constexpr fx::out<"r", std::int64_t, 1> r;
    constexpr fx::program prog{r = fx::cast<std::int64_t>((fx::cast<std::int32_t>(x) + y) * z)};
    const std::int64_t n = flat_size(w);
    const auto a = h.template input<T>({n}), b = h.template input<T>({n});
    const auto c = h.template input<std::int32_t>({n});
    return one_output<std::int64_t>(h, prog, r, {n}, {1}, x(a), y(b), z(c));
  }
};

// ---------------------------------------------------------------- rows

/// A function of one matrix `x` [rows, columns] (Op: name, types, ops, apply, and `kind`:
/// `same` writes a matrix, `rows` a vector of the rows, `columns` a vector of the columns).
enum class output_kind { same, rows, columns };
template <class Op>
struct matrix_family {
  using types = typename Op::types;
  static constexpr const char* name = Op::name;
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr int rank = Op::kind == output_kind::same ? 2 : 1;
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"y", T, rank> y;
    constexpr fx::program prog{y = Op::apply(x)};
    const fx::shape s = matrix_shape(w);
    const std::int64_t reduced = Op::kind == output_kind::columns ? s[0] : s[1];
    const fx::shape out = Op::kind == output_kind::same   ? s
                          : Op::kind == output_kind::rows ? fx::shape{s[0]}
                                                          : fx::shape{s[1]};
    const auto a = h.template input<T>(s);
    return one_output<T>(h, prog, y, out, {Op::ops, reduced, Op::sums ? sum_magnitude(reduced) : 1.0}, x(a));
  }
};
/// What an Op of matrix_family declares besides its name and `apply`: the output's kind,
/// the roundings compared (compare), whether it is a plain sum (compared relative to its
/// partial sums), the element types it is built for.
template <output_kind Kind, int Ops, bool Sums = false, class Types = type_list<float>>
struct matrix_op {
  using types = Types;
  static constexpr output_kind kind = Kind;
  static constexpr int ops = Ops;
  static constexpr bool sums = Sums;
};
struct softmax_op : matrix_op<output_kind::same, 4, false, type_list<float, fx::bfloat16, fx::half>> {
  static constexpr const char* name = "softmax";
  static constexpr auto apply(const auto& x) {
    return fx::exp(x - fx::max(x, fx::axis<1>)) / fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>);
  }
};
struct log_softmax_op : matrix_op<output_kind::same, 4> {  // written with max and sum, as torch computes it
  static constexpr const char* name = "log_softmax";
  static constexpr auto apply(const auto& x) {
    return x - fx::max(x, fx::axis<1>) - fx::log(fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>));
  }
};
struct log_softmax_lse_op : matrix_op<output_kind::same, 4> {  // written with logsumexp
  static constexpr const char* name = "log_softmax_lse";
  static constexpr auto apply(const auto& x) { return x - fx::logsumexp(x, fx::axis<1>); }
};
struct scale_op : matrix_op<output_kind::same, 1> {  // x * 2 on a matrix (short rows: [N, 3])
  static constexpr const char* name = "scale";
  static constexpr auto apply(const auto& x) { return x * 2; }
};
struct logsumexp_op : matrix_op<output_kind::rows, 4> {
  static constexpr const char* name = "logsumexp";
  static constexpr auto apply(const auto& x) { return fx::logsumexp(x, fx::axis<1>, fx::drop_axes); }
};
struct row_sum_op : matrix_op<output_kind::rows, 1, true> {
  static constexpr const char* name = "row_sum";
  static constexpr auto apply(const auto& x) { return fx::sum(x, fx::axis<1>, fx::drop_axes); }
};
struct column_sum_op : matrix_op<output_kind::columns, 1, true> {
  static constexpr const char* name = "column_sum";
  static constexpr auto apply(const auto& x) { return fx::sum(x, fx::axis<0>, fx::drop_axes); }
};
struct column_mean_op : matrix_op<output_kind::columns, 1> {
  static constexpr const char* name = "column_mean";
  static constexpr auto apply(const auto& x) { return fx::mean(x, fx::axis<0>, fx::drop_axes); }
};
struct column_var_op : matrix_op<output_kind::columns, 4> {  // correction 0
  static constexpr const char* name = "column_var";
  static constexpr auto apply(const auto& x) { return fx::var(x, fx::axis<0>, fx::correction{0}, fx::drop_axes); }
};
struct column_center_op : matrix_op<output_kind::same, 2> {  // each column minus its mean
  static constexpr const char* name = "column_center";
  static constexpr auto apply(const auto& x) { return x - fx::mean(x, fx::axis<0>); }
};

/// The largest 1/sqrt(var + eps) over the rows of `a`: how much a normalization magnifies
/// the rounding of x - mean (a row of three nearly equal values: by hundreds), the
/// magnitude its output is compared at.
template <class T>
double max_inverse_deviation(const fx::tensor<T>& a, double eps) {
  const std::int64_t rows = a.size(0), cols = a.size(1);
  double largest = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum = 0, squares = 0;
    for (std::int64_t c = 0; c < cols; ++c) sum += static_cast<double>(a.data()[r * cols + c]);
    const double mean = sum / static_cast<double>(cols);
    for (std::int64_t c = 0; c < cols; ++c) {
      const double d = static_cast<double>(a.data()[r * cols + c]) - mean;
      squares += d * d;
    }
    largest = std::max(largest, 1 / std::sqrt(squares / static_cast<double>(cols) + eps));
  }
  return largest;
}

/// Layer normalization with weight and bias.
struct layernorm_family {
  using types = type_list<float, fx::bfloat16, fx::half>;
  static constexpr const char* name = "layernorm";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"w", T, 1> wt;
    constexpr fx::in<"b", T, 1> b;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{
        y = (x - fx::mean(x, fx::axis<1>)) * fx::rsqrt(fx::var(x, fx::axis<1>, fx::correction{0}) + 1e-5f) * wt + b};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s), weight = h.template input<T>({s[1]}), bias = h.template input<T>({s[1]});
    return one_output<T>(h, prog, y, s, {8, s[1], 2 * max_inverse_deviation(a, 1e-5)}, x(a), wt(weight), b(bias));
  }
};

/// RMS normalization with weight.
struct rmsnorm_family {
  using types = type_list<float, fx::bfloat16>;
  static constexpr const char* name = "rmsnorm";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"w", T, 1> wt;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = x * fx::rsqrt(fx::mean(x * x, fx::axis<1>) + 1e-6f) * wt};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s), weight = h.template input<T>({s[1]});
    return one_output<T>(h, prog, y, s, {6, s[1]}, x(a), wt(weight));
  }
};

// ---------------------------------------------------------------- columns, full, several outputs, in place

/// The sum of every element.
struct full_sum_family {
  using types = type_list<float>;
  static constexpr const char* name = "full_sum";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"s", T, 0> s;
    constexpr fx::program prog{s = fx::sum(x, fx::axis<0>, fx::drop_axes)};
    const std::int64_t n = flat_size(w);
    const auto a = h.template input<T>({n});
    return one_output<T>(h, prog, s, fx::shape{}, {1, n, sum_magnitude(n)}, x(a));
  }
};

/// softmax(where(mask, x * 0.125, -inf)) over the rows, with a bool mask tensor.
struct masked_softmax_family {
  using types = type_list<float, fx::bfloat16>;
  static constexpr const char* name = "masked_softmax";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"m", bool, 2> m;
    constexpr fx::out<"y", T, 2> y;
    constexpr auto t = fx::where(m, x * 0.125f, -INFINITY);
    constexpr fx::program prog{y = fx::exp(t - fx::max(t, fx::axis<1>)) /
                                   fx::sum(fx::exp(t - fx::max(t, fx::axis<1>)), fx::axis<1>)};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s);
    const auto mask = h.template input<bool>(s);
    return one_output<T>(h, prog, y, s, {5, s[1]}, x(a), m(mask));
  }
};

/// Variance (correction 1, as torch.var_mean) and mean of each row: two outputs.
struct var_mean_family {
  using types = type_list<float>;
  static constexpr const char* name = "var_mean";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"v", T, 1> v;
    constexpr fx::out<"m", T, 1> m;
    constexpr fx::program prog{v = fx::var(x, fx::axis<1>, fx::drop_axes), m = fx::mean(x, fx::axis<1>, fx::drop_axes)};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s);
    fx::tensor<T> ov({s[0]}), om({s[0]}), ev({s[0]}), em({s[0]});
    return h.measure((s.numel() + 2 * s[0]) * sizeof(T), fx::kernel_count(prog),
                     [&](auto target, auto place) { prog.run(target, place(x(a)), place(v(ov)), place(m(om))); },
                     [&] { fx::run_reference(prog, x(a), v(ev), m(em)); },
                     {compare(ov, ev, 4, s[1]), compare(om, em, 1, s[1])});
  }
};

/// The position of each row's largest element (int64).
struct argmax_family {
  using types = type_list<float>;
  static constexpr const char* name = "argmax";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"i", std::int64_t, 1> i;
    constexpr fx::program prog{i = fx::argmax(x, fx::axis<1>, fx::drop_axes)};
    const fx::shape s = matrix_shape(w);
    const auto a = h.template input<T>(s);
    return one_output<std::int64_t>(h, prog, i, {s[0]}, {1}, x(a));
  }
};

/// Residual add, then RMS normalization with weight: writes the sum and the norm.
struct add_rmsnorm_family {
  using types = type_list<float, fx::bfloat16>;
  static constexpr const char* name = "add_rmsnorm";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::in<"r", T, 2> r;
    constexpr fx::in<"w", T, 1> wt;
    constexpr fx::out<"s", T, 2> s;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{s = x + r, y = s * fx::rsqrt(fx::mean(s * s, fx::axis<1>) + 1e-6f) * wt};
    const fx::shape sh = matrix_shape(w);
    const auto a = h.template input<T>(sh), res = h.template input<T>(sh), weight = h.template input<T>({sh[1]});
    fx::tensor<T> os(sh), oy(sh), es(sh), ey(sh);
    return h.measure((4 * sh.numel() + sh[1]) * sizeof(T), fx::kernel_count(prog),
                     [&](auto target, auto place) {
                       prog.run(target, place(x(a)), place(r(res)), place(wt(weight)), place(s(os)), place(y(oy)));
                     },
                     [&] { fx::run_reference(prog, x(a), r(res), wt(weight), s(es), y(ey)); },
                     {compare(os, es, 1), compare(oy, ey, 6, sh[1])});
  }
};

/// Several outputs of one input: x * 2, x + 1 and the sum of x.
struct horizontal_family {
  using types = type_list<float>;
  static constexpr const char* name = "horizontal";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"x", T, 1> x;
    constexpr fx::out<"a", T, 1> a;
    constexpr fx::out<"b", T, 1> b;
    constexpr fx::out<"s", T, 0> s;
    constexpr fx::program prog{a = x * 2, b = x + 1, s = fx::sum(x, fx::axis<0>, fx::drop_axes)};
    const std::int64_t n = flat_size(w);
    const auto in = h.template input<T>({n});
    fx::tensor<T> oa({n}), ob({n}), os(fx::shape{}), ea({n}), eb({n}), es(fx::shape{});
    return h.measure(
        3 * n * sizeof(T), fx::kernel_count(prog),
        [&](auto target, auto place) { prog.run(target, place(x(in)), place(a(oa)), place(b(ob)), place(s(os))); },
        [&] { fx::run_reference(prog, x(in), a(ea), b(eb), s(es)); },
        {compare(oa, ea, 1), compare(ob, eb, 1), compare(os, es, 1, n, sum_magnitude(n))});
  }
};

/// Adam's update, in place: m, v and the parameters.
struct adam_family {
  using types = type_list<float>;
  static constexpr const char* name = "adam";
  template <class T, class H>
  static measurement run(const workload& w, H& h) {
    constexpr fx::in<"g", T, 1> g;
    constexpr fx::inout<"p", T, 1> p;
    constexpr fx::inout<"m", T, 1> m;
    constexpr fx::inout<"v", T, 1> v;
    constexpr fx::param<"lr", T> lr;
    constexpr fx::program prog{m = 0.9f * m + 0.1f * g, v = 0.999f * v + 0.001f * g * g,
                               p -= lr * m / (fx::sqrt(v) + 1e-8f)};
    const std::int64_t n = flat_size(w);
    const auto grad = h.template input<T>({n});
    auto p0 = h.template input<T>({n}), m0 = h.template input<T>({n}), v0 = h.template input<T>({n});
    for (std::int64_t i = 0; i < n; ++i) v0.data()[i] = static_cast<T>(std::abs(static_cast<double>(v0.data()[i])));
    auto pa = p0.clone(), ma = m0.clone(), va = v0.clone(), pe = p0.clone(), me = m0.clone(), ve = v0.clone();
    const T rate = static_cast<T>(1e-3);
    // Timed runs keep updating pa, ma, va: the check is of the first run (the harness runs it first).
    return h.measure(
        7 * n * sizeof(T), fx::kernel_count(prog),
        [&](auto target, auto place) {
          prog.run(target, place(g(grad)), place(p(pa)), place(m(ma)), place(v(va)), lr(rate));
        },
        [&] { fx::run_reference(prog, g(grad), p(pe), m(me), v(ve), lr(rate)); },
        {compare(pa, pe, 6), compare(ma, me, 2), compare(va, ve, 3)});
  }
};

/// The families, in three parts that the benchmarks compile in translation units of their
/// own (the families' kernels are most of a build): pointwise ones, full sums, several
/// outputs and in place; the softmax-like row reductions; the norms, the other row
/// reductions and the column ones. bench_matrix_cuda_rows builds the row families only.
using pointwise_families =
    type_list<unary_family<exp_op>, unary_family<gelu_op>, unary_family<tanh_op>, unary_family<sigmoid_op>,
              unary_family<erf_op>, unary_family<log_op>, matrix_family<scale_op>, add_row_family, add_col_family,
              where_mask_family, where_cmp_family, downcast_family, int_chain_family, full_sum_family,
              horizontal_family, adam_family>;
using softmax_families =
    type_list<matrix_family<softmax_op>, matrix_family<log_softmax_op>, matrix_family<log_softmax_lse_op>,
              matrix_family<logsumexp_op>, masked_softmax_family>;
using row_reduction_families = type_list<matrix_family<row_sum_op>, layernorm_family, rmsnorm_family, var_mean_family,
                                         argmax_family, add_rmsnorm_family>;
using column_families = type_list<matrix_family<column_sum_op>, matrix_family<column_mean_op>,
                                  matrix_family<column_var_op>, matrix_family<column_center_op>>;
using reduction_families = concat_t<row_reduction_families, column_families>;

}  // namespace matrix
