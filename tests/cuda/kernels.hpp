/// @file kernels.hpp
/// The CUDA backend against the oracle (fx::run_reference on the CPU): every
/// kernel class (pointwise, rows, columns, split/full reductions, horizontal
/// groups, in-place groups) for one element type per translation unit
/// (nvcc is slow), at the sizes 1, 7, 1023, 4097 and 1000003, with
/// transposed, sliced and expanded inputs. Programs are declared as
/// `constexpr fx::program prog{...}`: nvcc 13 cannot compile
/// `constexpr auto prog = fx::program{...}` (see docs/backends-cuda.md).
#pragma once
#include <cstdint>   // std::int64_t
#include <iterator>  // std::size
#include <limits>    // std::numeric_limits
#include <string>    // std::to_string
#include <tuple>     // std::tuple
#include <utility>   // std::pair

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>  // programs, run_reference, fx::cuda
#include <support/compare.hpp>  // mismatch, default_tolerance
#include <support/random.hpp>   // random_tensor

namespace cuda_test {

namespace fx = fusedsl;
using fx::device;
using fx::shape;
using fx::tensor;

/// The sizes.
inline constexpr std::int64_t sizes[] = {1, 7, 1023, 4097, 1000003};

/// Random values that suit T: small integers, or floats in [-2, 2).
template <class T>
tensor<T> input(const shape& s, std::uint64_t seed) {
  if constexpr (std::is_integral_v<T>) return fx::testing::random_tensor<T>(s, seed, -100, 100);
  else return fx::testing::random_tensor<T>(s, seed);
}

/// A tensor on the device holding a value the results must overwrite.
template <class T>
tensor<T> poisoned(const shape& s) {
  return tensor<T>::full(s, static_cast<T>(std::is_integral_v<T> ? 77 : 1e4), device::cuda);
}

/// Checks a device result against the oracle's CPU result.
template <class T, class U>
void check(const tensor<T>& gpu, const tensor<U>& expected, fx::testing::tolerance tol, const std::string& what) {
  const tensor<T> actual = gpu.to(device::cpu);
  const std::string message = fx::testing::mismatch(actual.view(), expected.view(), tol);
  CHECK_MESSAGE(message.empty(), what, ": ", message);
}

/// Tolerance of a sum of `n` values of magnitude <= 2 in T (f32 accumulation).
template <class T>
fx::testing::tolerance sum_tolerance(std::int64_t n) {
  fx::testing::tolerance t = fx::testing::default_tolerance<T>(2);
  if constexpr (!std::is_integral_v<T>) t.atol = 1e-5 + 2.0 * static_cast<double>(n) * 1.2e-7 * 4;
  return t;
}

/// Pointwise: contiguous 1-d at every size (vectorized where the size allows),
/// then transposed, sliced and expanded 2-d operands (scalar path).
template <class T>
void pointwise_case() {
  {
    constexpr fx::in<"a", T, 1> a;
    constexpr fx::in<"b", T, 1> b;
    constexpr fx::in<"c", T, 1> c;
    constexpr fx::out<"y", T, 1> y;
    constexpr fx::program prog{y = a * b + c};
    for (const std::int64_t n : sizes) {
      const auto ha = input<T>({n}, 1), hb = input<T>({n}, 2), hc = input<T>({n}, 3);
      tensor<T> expected({n});
      fx::run_reference(prog, a(ha), b(hb), c(hc), y(expected));
      for (const bool fused : {true, false}) {
        tensor<T> out = poisoned<T>({n});
        const auto da = ha.to(device::cuda), db = hb.to(device::cuda), dc = hc.to(device::cuda);
        prog.run(fused ? fx::cuda() : fx::cuda_unfused(), a(da), b(db), c(dc), y(out));
        check(out, expected, fx::testing::default_tolerance<T>(2), "a * b + c, n = " + std::to_string(n));
      }
    }
  }
  {
    constexpr fx::in<"a", T, 2> a;
    constexpr fx::in<"b", T, 2> b;
    constexpr fx::in<"c", T, 2> c;
    constexpr fx::out<"y", T, 2> y;
    constexpr fx::program prog{y = a * b - c};
    for (const std::int64_t n : {std::int64_t{7}, std::int64_t{1023}}) {
      const std::int64_t m = 5;
      const auto ha = input<T>({n, m}, 4), hb = input<T>({m, 2 * n}, 5), hc = input<T>({1, n}, 6);
      const auto da = ha.to(device::cuda), db = hb.to(device::cuda), dc = hc.to(device::cuda);
      tensor<T> expected({m, n});
      fx::run_reference(prog, a(ha.transpose(0, 1)), b(hb.slice(1, 0, 2 * n, 2)), c(hc.expand({m, n})), y(expected));
      tensor<T> out = poisoned<T>({m, n});
      prog.run(fx::cuda(), a(da.transpose(0, 1)), b(db.slice(1, 0, 2 * n, 2)), c(dc.expand({m, n})), y(out));
      check(out, expected, fx::testing::default_tolerance<T>(2),
            "transposed * sliced - expanded, n = " + std::to_string(n));
    }
  }
}

/// The rounding functions, sign, `%`, fx::fmod and fx::fma; for integers the bitwise
/// operators and shifts (counts in and out of range, negative), for floating types exp2,
/// log2, log10, erfc, atan2 and hypot: each program one pointwise kernel and a row
/// reduction, against the oracle. Integer divisors are never 0 (that stops the kernel).
template <class T>
void operators_and_functions_case() {
  constexpr fx::in<"a", T, 2> a;
  constexpr fx::in<"b", T, 2> b;
  constexpr fx::out<"y", T, 2> y;
  constexpr fx::out<"r", T, 2> r;
  const shape s{1023, 33};
  const auto ha = input<T>(s, 7), hb = input<T>(s, 8);
  const auto da = ha.to(device::cuda), db = hb.to(device::cuda);
  const auto run = [&](const auto& prog, const std::string& what) {
    tensor<T> expected(s), expected_rows({s[0], 1});
    fx::run_reference(prog, a(ha), b(hb), y(expected), r(expected_rows));
    tensor<T> out = poisoned<T>(s), rows = poisoned<T>({s[0], 1});
    prog.run(fx::cuda(), a(da), b(db), y(out), r(rows));
    check(out, expected, fx::testing::default_tolerance<T>(8), what);
    check(rows, expected_rows, fx::testing::default_tolerance<T>(4), what + ", row max");
  };
  if constexpr (std::is_integral_v<T>) {
    constexpr fx::program bitwise{y = ((a & b) | (~a ^ 5)) + (a << (b >> 3)) - (a >> b) + fx::sign(b),
                                  r = fx::max(a << b, fx::axis<1>)};
    run(bitwise, "bitwise and shifts");
    constexpr fx::program remainders{y = a % (fx::abs(b) + 1) + fx::fmod(a, b - 200) * 3 + fx::fma(a, b, a),
                                     r = fx::max(a % -7, fx::axis<1>)};
    run(remainders, "remainders and fma");
  } else {
    // Powers of two: the products are exact, so no rounding boundary moves between f32 and the oracle's f64.
    constexpr fx::program rounding{y = fx::floor(a * 4) + fx::ceil(b) - fx::round(a * 8) +
                                       fx::trunc(b * 2) * fx::sign(a),
                                   r = fx::max(fx::round(a * 16), fx::axis<1>)};
    run(rounding, "rounding and sign");
    constexpr fx::program functions{y = fx::erfc(a) + fx::log2(fx::abs(b) + 0.5f) + fx::log10(fx::abs(a) + 0.5f) +
                                        fx::exp2(a) + fx::atan2(a, b) + fx::hypot(a, b) + fx::fma(a, b, a) +
                                        fx::fmod(a, b) + a % b,
                                    r = fx::max(fx::erfc(a * 4) + fx::atan2(b, a), fx::axis<1>)};
    run(functions, "exp2, log2, log10, erfc, atan2, hypot, fma, fmod, %");
  }
}

/// Relative error CUDA's float division may add (`div.full.f32`: 2 ulp).
inline constexpr double division_rtol = 2.4e-7;

/// Float division on CUDA (`div.full.f32`, docs/math.md) against the CPU's
/// IEEE division: within 2 ulp (2 subnormal steps for subnormal quotients),
/// zeros, infinities and NaN as IEEE gives them. Every pair of values that
/// span the exponent range (divisors beyond 2^126 and subnormal ones, which
/// the reciprocal scales first) elementwise, then divisors the same along a
/// row (a row's max: the same on both backends), whose reciprocal the row
/// kernel computes once per row. No quotient lies within 2 ulp of overflow.
inline void division_case() {
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  constexpr float values[] = {0.0f,   -0.0f, 1.0f,    -3.0f,   0.1f,     1.2345678f, 7.5e-39f, -1e-45f, 1.17549435e-38f,
                              1e-30f, 1e30f, 8.6e37f, 3.0e38f, -1.7e38f, inf,        -inf,     nan};
  constexpr std::int64_t n = std::size(values);
  const fx::testing::tolerance two_ulp{division_rtol, 3e-45};
  {
    constexpr fx::in<"a", float, 1> a;
    constexpr fx::in<"b", float, 1> b;
    constexpr fx::out<"y", float, 1> y;
    constexpr fx::program divide{y = a / b};
    tensor<float> ha({n * n}), hb({n * n}), expected({n * n});
    for (std::int64_t i = 0; i < n * n; ++i) ha.data()[i] = values[i / n], hb.data()[i] = values[i % n];
    divide.run(fx::cpu, a(ha), b(hb), y(expected));
    tensor<float> out = poisoned<float>({n * n});
    divide.run(fx::cuda(), a(ha.to(device::cuda)), b(hb.to(device::cuda)), y(out));
    check(out, expected, two_ulp, "a / b over every pair");
  }
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program by_row_max{y = x / fx::max(x, fx::axis<1>)};
  for (const std::int64_t cols : {std::int64_t{5}, std::int64_t{64}, std::int64_t{1024}}) {
    tensor<float> hx = input<float>({6, cols}, 31), expected({6, cols});
    const float scales[] = {1.0f, 1e38f, 1e-39f, -4e-39f, 1e20f, 3.0f};  // maxima beyond 2^126, subnormal ones
    for (std::int64_t r = 0; r < 6; ++r)
      for (std::int64_t c = 0; c < cols; ++c) hx.data()[r * cols + c] *= scales[r];
    by_row_max.run(fx::cpu, x(hx), y(expected));
    tensor<float> out = poisoned<float>({6, cols});
    by_row_max.run(fx::cuda(), x(hx.to(device::cuda)), y(out));
    check(out, expected, two_ulp, "x / max(x) over rows of " + std::to_string(cols));
  }
}

/// max, min, argmax and argmin over rows, columns and the whole tensor
/// holding NaN (a row's first, middle and last element), infinities and
/// zeros of both signs, against the CPU kernels: a NaN anywhere gives NaN
/// (CUDA's float max and min are PTX's `max.NaN` / `min.NaN`), argmax and
/// argmin the first NaN's index. Rows of 5 (short-row kernel), 64 and 1024
/// (row kernel) and 100000 (split across blocks); columns of 6 rows.
inline void nan_extremes_case() {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"hi", float, 1> hi;
  constexpr fx::out<"lo", float, 1> lo;
  constexpr fx::out<"at_hi", std::int64_t, 1> at_hi;
  constexpr fx::out<"at_lo", std::int64_t, 1> at_lo;
  constexpr fx::out<"all", float, 0> all;
  constexpr fx::program rows{hi = fx::max(x, fx::axis<1>, fx::drop_axes), lo = fx::min(x, fx::axis<1>, fx::drop_axes),
                             at_hi = fx::argmax(x, fx::axis<1>, fx::drop_axes),
                             at_lo = fx::argmin(x, fx::axis<1>, fx::drop_axes)};
  constexpr fx::program columns{hi = fx::max(x, fx::axis<0>, fx::drop_axes),
                                lo = fx::min(x, fx::axis<0>, fx::drop_axes)};
  constexpr fx::program full{all = fx::max(x, fx::axes<>, fx::drop_axes)};
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const fx::testing::tolerance exact{0, 0};
  for (const std::int64_t cols : {std::int64_t{5}, std::int64_t{64}, std::int64_t{1024}, std::int64_t{100000}}) {
    constexpr std::int64_t n = 6;
    tensor<float> hx = input<float>({n, cols}, 41);
    float* v = hx.data();
    v[1 * cols] = nan;                                                               // row 1: NaN first
    v[2 * cols + cols / 2] = nan;                                                    // row 2: in the middle
    v[3 * cols + cols - 1] = -nan;                                                   // row 3: last, sign bit set
    v[4 * cols] = inf, v[4 * cols + cols - 1] = -inf;                                // row 4: both infinities
    for (std::int64_t c = 0; c < cols; ++c) v[5 * cols + c] = c % 2 ? -0.0f : 0.0f;  // row 5: zeros only
    const tensor<float> dx = hx.to(device::cuda);
    const std::string what = " of " + std::to_string(n) + " x " + std::to_string(cols) + " with NaN";
    {
      tensor<float> ehi({n}), elo({n});
      tensor<std::int64_t> eahi({n}), ealo({n});
      rows.run(fx::cpu, x(hx), hi(ehi), lo(elo), at_hi(eahi), at_lo(ealo));
      tensor<float> dhi = poisoned<float>({n}), dlo = poisoned<float>({n});
      tensor<std::int64_t> dahi = poisoned<std::int64_t>({n}), dalo = poisoned<std::int64_t>({n});
      rows.run(fx::cuda(), x(dx), hi(dhi), lo(dlo), at_hi(dahi), at_lo(dalo));
      check(dhi, ehi, exact, "row max" + what);
      check(dlo, elo, exact, "row min" + what);
      check(dahi, eahi, exact, "row argmax" + what);
      check(dalo, ealo, exact, "row argmin" + what);
    }
    {
      tensor<float> ehi({cols}), elo({cols});
      columns.run(fx::cpu, x(hx), hi(ehi), lo(elo));
      tensor<float> dhi = poisoned<float>({cols}), dlo = poisoned<float>({cols});
      columns.run(fx::cuda(), x(dx), hi(dhi), lo(dlo));
      check(dhi, ehi, exact, "column max" + what);
      check(dlo, elo, exact, "column min" + what);
    }
    {
      tensor<float> e(shape{}), d = poisoned<float>(shape{});
      full.run(fx::cpu, x(hx), all(e));
      full.run(fx::cuda(), x(dx), all(d));
      check(d, e, exact, "max of all" + what);
    }
  }
}

/// Random numbers (fx::rand, fx::randn, fx::dropout) and a reduction over
/// them, on CUDA against the CPU kernels: rand and dropout's mask bit for bit
/// (the same integer arithmetic at the same positions, whatever kernel class
/// and output layout), dropout's kept values within CUDA's division (2 ulp,
/// and no absolute slack: a dropped element must be 0 on both), randn within
/// an f32 ulp (the math libraries' log and cos).
inline void random_case() {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::param<"seed", std::int64_t> seed;
  constexpr fx::out<"u", float, 2> u;
  constexpr fx::out<"n", float, 2> n;
  constexpr fx::out<"d", float, 2> d;
  constexpr fx::out<"r", float, 2> r;
  constexpr fx::program draws{u = fx::rand(seed, 3), n = fx::randn(seed, 3), d = fx::dropout(x, 0.1f, seed, 11)};
  constexpr fx::program rows{r = fx::sum(fx::dropout(x, 0.5f, seed, 11), fx::axis<1>)};
  constexpr fx::program uniforms{u = fx::rand(seed, 3)};
  for (const shape& sizes : {shape{7, 3}, shape{1023, 37}, shape{64, 70001}}) {
    const std::string what = std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]);
    const auto hx = input<float>(sizes, 23);
    tensor<float> cu(sizes), cn(sizes), cd(sizes), cr({sizes[0], 1});
    draws.run(fx::cpu, x(hx), seed(2024), u(cu), n(cn), d(cd));
    rows.run(fx::cpu, x(hx), seed(2024), r(cr));
    tensor<float> du = poisoned<float>(sizes), dn = poisoned<float>(sizes), dd = poisoned<float>(sizes),
                  dr = poisoned<float>({sizes[0], 1}), dt = poisoned<float>({sizes[1], sizes[0]});
    const auto dx = hx.to(device::cuda);
    draws.run(fx::cuda(), x(dx), seed(2024), u(du), n(dn), d(dd));
    rows.run(fx::cuda(), x(dx), seed(2024), r(dr));
    uniforms.run(fx::cuda(), seed(2024), u(dt.view().transpose(0, 1)));
    check(du, cu, {0, 0}, "rand, " + what);
    check(fx::contiguous(dt.view().transpose(0, 1)), cu, {0, 0}, "rand into a transposed output, " + what);
    check(dd, cd, {division_rtol, 0}, "dropout, " + what);
    check(dn, cn, {1.2e-7, 1e-7}, "randn, " + what);
    check(dr, cr, sum_tolerance<float>(sizes[1]), "row sums of dropout, " + what);
  }
}

/// The sum's element type of T (integers sum in i64).
template <class T>
using sum_t = fx::element_t<fx::ops::sum::result_dtype(fx::dtype_of<T>)>;

/// Horizontal group: two pointwise outputs and a row sum over one input (one
/// kernel), rows of every size, then few long rows (the split kernel).
template <class T>
void horizontal_case() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"p", T, 2> p;
  constexpr fx::out<"q", T, 2> q;
  constexpr fx::out<"s", sum_t<T>, 1> s;
  constexpr fx::program prog{p = x * 2, q = x + 1, s = fx::sum(x, fx::axis<1>, fx::drop_axes)};
  CHECK(fx::kernel_count(prog) == 1);
  for (const std::int64_t n : sizes) {
    const std::int64_t rows = n == 1000003 ? 2 : 33;
    const auto hx = input<T>({rows, n}, 7);
    tensor<T> ep({rows, n}), eq({rows, n});
    tensor<sum_t<T>> es({rows});
    fx::run_reference(prog, x(hx), p(ep), q(eq), s(es));
    for (const bool fused : {true, false}) {
      const auto dx = hx.to(device::cuda);
      tensor<T> dp = poisoned<T>({rows, n}), dq = poisoned<T>({rows, n});
      tensor<sum_t<T>> ds = poisoned<sum_t<T>>({rows});
      prog.run(fused ? fx::cuda() : fx::cuda_unfused(), x(dx), p(dp), q(dq), s(ds));
      const std::string what = "horizontal, " + std::to_string(rows) + " x " + std::to_string(n);
      check(dp, ep, fx::testing::default_tolerance<T>(), what + " (x * 2)");
      check(dq, eq, fx::testing::default_tolerance<T>(), what + " (x + 1)");
      check(ds, es, sum_tolerance<sum_t<T>>(n), what + " (sum)");
    }
  }
  // A transposed input: rows read with a stride.
  const auto hx = input<T>({1023, 9}, 8);
  tensor<T> ep({9, 1023}), eq({9, 1023});
  tensor<sum_t<T>> es({9});
  fx::run_reference(prog, x(hx.transpose(0, 1)), p(ep), q(eq), s(es));
  const auto dx = hx.to(device::cuda);
  tensor<T> dp = poisoned<T>({9, 1023}), dq = poisoned<T>({9, 1023});
  tensor<sum_t<T>> ds = poisoned<sum_t<T>>({9});
  prog.run(fx::cuda(), x(dx.transpose(0, 1)), p(dp), q(dq), s(ds));
  check(ds, es, sum_tolerance<sum_t<T>>(1023), "horizontal over a transposed input (sum)");
  check(dq, eq, fx::testing::default_tolerance<T>(), "horizontal over a transposed input (x + 1)");
}

/// Column sums and maxima (reduced leading axis), and full sums.
template <class T>
void columns_and_full_case() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"s", sum_t<T>, 1> s;
  constexpr fx::out<"m", T, 1> m;
  constexpr fx::program columns{s = fx::sum(x, fx::axis<0>, fx::drop_axes), m = fx::max(x, fx::axis<0>, fx::drop_axes)};
  for (const std::int64_t n : sizes) {
    const std::int64_t cols = n == 1000003 ? 3 : 37;
    const auto hx = input<T>({n, cols}, 9);
    tensor<sum_t<T>> es({cols});
    tensor<T> em({cols});
    fx::run_reference(columns, x(hx), s(es), m(em));
    const auto dx = hx.to(device::cuda);
    tensor<sum_t<T>> ds = poisoned<sum_t<T>>({cols});
    tensor<T> dm = poisoned<T>({cols});
    columns.run(fx::cuda(), x(dx), s(ds), m(dm));
    const std::string what = "columns, " + std::to_string(n) + " x " + std::to_string(cols);
    check(ds, es, sum_tolerance<sum_t<T>>(n), what + " (sum)");
    check(dm, em, fx::testing::tolerance{0, 0}, what + " (max)");
  }
  constexpr fx::in<"v", T, 1> v;
  constexpr fx::out<"t", sum_t<T>, 0> t;
  constexpr fx::program full{t = fx::sum(v, fx::axes<>, fx::drop_axes)};
  for (const std::int64_t n : sizes) {
    const auto hv = input<T>({n}, 10);
    tensor<sum_t<T>> et(shape{});
    fx::run_reference(full, v(hv), t(et));
    const auto dv = hv.to(device::cuda);
    tensor<sum_t<T>> dt = poisoned<sum_t<T>>(shape{});
    full.run(fx::cuda(), v(dv), t(dt));
    check(dt, et, sum_tolerance<sum_t<T>>(n), "full sum, n = " + std::to_string(n));
  }
}

/// How `column_strategies_case` lays out a `rows x cols` input.
enum class layout { contiguous, misaligned, strided, transposed, expanded_rows, expanded_columns };

/// The storage `as_layout` views for `l`.
inline shape storage_of(layout l, std::int64_t rows, std::int64_t cols) {
  switch (l) {
    case layout::misaligned: return {rows, cols + 1};
    case layout::strided: return {rows, 2 * cols};
    case layout::transposed: return {cols, rows};
    case layout::expanded_rows: return {1, cols};
    case layout::expanded_columns: return {rows, 1};
    default: return {rows, cols};
  }
}

/// `t` (of `storage_of(l, rows, cols)`) seen as `rows x cols`: itself, from
/// its second column (4 bytes off 16-byte alignment for f32), every second
/// column, transposed, or expanded along the rows or the columns.
template <class T>
fx::tensor_view<const T> as_layout(const tensor<T>& t, layout l, std::int64_t rows, std::int64_t cols) {
  switch (l) {
    case layout::misaligned: return t.slice(1, 1, cols + 1);
    case layout::strided: return t.slice(1, 0, 2 * cols, 2);
    case layout::transposed: return t.transpose(0, 1);
    case layout::expanded_rows:
    case layout::expanded_columns: return t.expand({rows, cols});
    default: return t.view();
  }
}

/// Column sums and maxima of a `rows x cols` input in layout `l` against the oracle.
template <class T>
void check_columns(std::int64_t rows, std::int64_t cols, layout l) {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"s", sum_t<T>, 1> s;
  constexpr fx::out<"m", T, 1> m;
  constexpr fx::program columns{s = fx::sum(x, fx::axis<0>, fx::drop_axes), m = fx::max(x, fx::axis<0>, fx::drop_axes)};
  const auto hx = input<T>(storage_of(l, rows, cols), 17);
  const auto dx = hx.to(device::cuda);
  tensor<sum_t<T>> es({cols});
  tensor<T> em({cols});
  fx::run_reference(columns, x(as_layout(hx, l, rows, cols)), s(es), m(em));
  tensor<sum_t<T>> ds = poisoned<sum_t<T>>({cols});
  tensor<T> dm = poisoned<T>({cols});
  columns.run(fx::cuda(), x(as_layout(dx, l, rows, cols)), s(ds), m(dm));
  const std::string what = "columns, " + std::to_string(rows) + " x " + std::to_string(cols) + ", layout " +
                           std::to_string(static_cast<int>(l));
  check(ds, es, sum_tolerance<sum_t<T>>(rows), what + " (sum)");
  check(dm, em, fx::testing::tolerance{0, 0}, what + " (max)");
}

/// The column kernel's strategies (docs/backends-cuda.md, "Kernel
/// classes"): vectorized (contiguous, aligned, a multiple of the vector of
/// columns) with one row, few columns (one block of columns, hundreds of
/// chunks of rows: the second stage merges them), many columns (one chunk),
/// inputs expanded along the rows or the columns; the scalar kernel for a
/// misaligned start, strided columns, a transposed input and a column count
/// that is not a multiple of the vector. For floating types var and
/// argmax too (Welford states, ties taken at the first row across chunks);
/// for f32 a 3-d input whose two kept axes do not merge (vectorized, the
/// offsets unravelled).
template <class T>
void column_strategies_case() {
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{1, 64},      {7, 8},      {1023, 4096},
                                                          {100003, 16}, {5, 262144}, {4097, 37}};
  for (const auto& [rows, cols] : shapes) check_columns<T>(rows, cols, layout::contiguous);
  for (const layout l :
       {layout::misaligned, layout::strided, layout::transposed, layout::expanded_rows, layout::expanded_columns})
    for (const std::int64_t rows : {std::int64_t{7}, std::int64_t{4097}}) check_columns<T>(rows, 64, l);
  if constexpr (!std::is_integral_v<T>) {
    constexpr fx::in<"x", T, 2> x;
    constexpr fx::out<"v", T, 1> v;
    constexpr fx::out<"i", std::int64_t, 1> i;
    constexpr fx::program moments{v = fx::var(x, fx::axis<0>, fx::correction{0}, fx::drop_axes),
                                  i = fx::argmax(x, fx::axis<0>, fx::drop_axes)};
    const std::tuple<std::int64_t, std::int64_t, layout> cases[] = {{100003, 16, layout::contiguous},
                                                                    {1023, 4096, layout::contiguous},
                                                                    {1023, 64, layout::misaligned}};
    for (const auto& [rows, cols, l] : cases) {
      const auto hx = input<T>(storage_of(l, rows, cols), 18);
      const auto dx = hx.to(device::cuda);
      tensor<T> ev({cols});
      tensor<std::int64_t> ei({cols});
      fx::run_reference(moments, x(as_layout(hx, l, rows, cols)), v(ev), i(ei));
      tensor<T> dv = poisoned<T>({cols});
      tensor<std::int64_t> di = poisoned<std::int64_t>({cols});
      moments.run(fx::cuda(), x(as_layout(dx, l, rows, cols)), v(dv), i(di));
      const std::string what = "var, argmax over columns, " + std::to_string(rows) + " x " + std::to_string(cols);
      check(dv, ev, fx::testing::tolerance{std::max(fx::testing::default_tolerance<T>(4).rtol, 1e-4), 1e-5},
            what + " (var)");
      check(di, ei, fx::testing::tolerance{0, 0}, what + " (argmax)");
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    constexpr fx::in<"x", T, 3> x;
    constexpr fx::out<"s", T, 2> s;
    constexpr fx::program columns{s = fx::sum(x, fx::axis<0>, fx::drop_axes)};
    const auto hx = input<T>({2049, 3, 16}, 19);
    const auto dx = hx.to(device::cuda);
    tensor<T> es({3, 8});
    fx::run_reference(columns, x(hx.slice(2, 0, 8)), s(es));
    tensor<T> ds = poisoned<T>({3, 8});
    columns.run(fx::cuda(), x(dx.slice(2, 0, 8)), s(ds));
    check(ds, es, sum_tolerance<T>(2049), "columns of a 3-d input, two kept axes");
  }
}

/// Softmax, layernorm and a masked softmax (one kernel each) over `rows`
/// rows of `n` elements (rows `skip` on of a larger input: a start `skip *
/// n` elements in), fused and unfused.
template <class T>
void check_softmax_layernorm(std::int64_t rows, std::int64_t n, std::int64_t skip = 0) {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::in<"w", T, 1> w;
  constexpr fx::out<"y", T, 2> y;
  constexpr fx::program softmax{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                    fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
  constexpr fx::program layernorm{y = (x - fx::mean(x, fx::axis<1>)) *
                                      fx::rsqrt(fx::var(x, fx::axis<1>, fx::correction{0}) + 1e-5f) * w};
  // A bool mask and x, each read by all three nodes: the row kernels keep one of them (the
  // wider, x) in registers or in the staged tile, and read the other from memory.
  constexpr fx::in<"m", bool, 2> m;
  constexpr auto t = fx::where(m, x * 0.125f, -std::numeric_limits<float>::infinity());
  constexpr fx::program masked{y = fx::exp(t - fx::max(t, fx::axis<1>)) /
                                   fx::sum(fx::exp(t - fx::max(t, fx::axis<1>)), fx::axis<1>)};
  const auto hx = input<T>({rows + skip, n}, 11), hw = input<T>({n}, 12);
  tensor<bool> hm({rows + skip, n});
  for (std::int64_t i = 0; i < (rows + skip) * n; ++i) hm.data()[i] = i % n == 0 || i * 7 % 5 != 0;  // a true per row
  const auto dx = hx.to(device::cuda), dw = hw.to(device::cuda);
  const auto dm = hm.to(device::cuda);
  tensor<T> es({rows, n}), el({rows, n}), em({rows, n});
  fx::run_reference(softmax, x(hx.slice(0, skip, rows + skip)), y(es));
  fx::run_reference(layernorm, x(hx.slice(0, skip, rows + skip)), w(hw), y(el));
  fx::run_reference(masked, x(hx.slice(0, skip, rows + skip)), m(hm.slice(0, skip, rows + skip)), y(em));
  for (const bool fused : {true, false}) {
    tensor<T> ds = poisoned<T>({rows, n}), dl = poisoned<T>({rows, n}), dmy = poisoned<T>({rows, n});
    softmax.run(fused ? fx::cuda() : fx::cuda_unfused(), x(dx.slice(0, skip, rows + skip)), y(ds));
    layernorm.run(fused ? fx::cuda() : fx::cuda_unfused(), x(dx.slice(0, skip, rows + skip)), w(dw), y(dl));
    masked.run(fused ? fx::cuda() : fx::cuda_unfused(), x(dx.slice(0, skip, rows + skip)),
               m(dm.slice(0, skip, rows + skip)), y(dmy));
    fx::testing::tolerance tol = fx::testing::default_tolerance<T>(6);
    tol.atol = std::max(tol.atol, 1e-6 * static_cast<double>(n) * (std::is_same_v<T, float> ? 1 : 100));
    const std::string what = std::to_string(rows) + " x " + std::to_string(n) +
                             (skip ? " from row " + std::to_string(skip) : "") + (fused ? "" : " (unfused)");
    check(ds, es, tol, "softmax, " + what);
    check(dl, el, tol, "layernorm, " + what);
    check(dmy, em, tol, "masked softmax, " + what);
  }
}

/// Row groups of floating types: softmax and layernorm at the sizes.
template <class T>
void softmax_layernorm_case() {
  for (const std::int64_t n : sizes) check_softmax_layernorm<T>(n == 1000003 ? 2 : 17, n);
}

/// The row kernel at its boundaries (docs/backends-cuda.md, "Row
/// strategies"): rows of 1 element (a row per thread), 3 to 32 (short rows,
/// from aligned and misaligned starts), 508 and 512 (the last vectorized rows
/// before the `Packed` form, and its first), 4095 to 4097 (the longest row of one chunk of the
/// unvectorized kernel, and one more), 4100 and 4104 (threads whose last
/// vectors lie past the row's end), 8192 and 8196 (the longest row of the
/// `Packed` form, and one more), 16384 (the longest row of one chunk of
/// the vectorized kernel, its cached placeholder in registers), 16385 and
/// 16392 (two chunks, unvectorized and vectorized), with enough rows not to
/// be "few long rows"; few long rows (split across blocks: vectors with and
/// without a short last pass, scalar loads, rows in waves, argmax's ties), empty rows and
/// no rows; softmax and layernorm, the horizontal group (pointwise outputs
/// beside a sum, also over few long rows), an input constant along the rows, and a reduction read
/// by a row group that is not constant along its rows.
template <class T>
void row_strategies_case() {
  constexpr std::int64_t one_chunk = 1024 * 16, many = 300;  // > 2 x the H100's 132 SMs
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{508}, std::int64_t{512}, std::int64_t{4095},
                               std::int64_t{4096}, std::int64_t{4097}, std::int64_t{4100}, std::int64_t{4104},
                               std::int64_t{8192}, std::int64_t{8196}, one_chunk, one_chunk + 1, one_chunk + 8})
    check_softmax_layernorm<T>(n < 64 || n >= one_chunk ? many : 5, n);
  // Short rows (a row per thread), every length: tiles of 256 rows and a short last one, from
  // the start of the input and from one row in (a start not 16-byte aligned for most lengths).
  // (From 3: layernorm's variance of two close f32 values keeps too few digits for the tolerance.)
  for (std::int64_t n = 3; n <= 32; ++n)
    for (const std::int64_t skip : {std::int64_t{0}, std::int64_t{1}}) check_softmax_layernorm<T>(1000, n, skip);
  // Few long rows, split across blocks in whole passes: 16-byte vectors, with and without a
  // short last pass, and scalar loads (a length that is not a multiple of the vector).
  for (const std::int64_t n : {std::int64_t{16384}, std::int64_t{100004}, std::int64_t{100003}})
    check_softmax_layernorm<T>(3, n);
  // Few long rows in waves (more than half the L2 cache holds: a block takes several rows).
  check_softmax_layernorm<T>(100, 1 << 17);
  constexpr fx::in<"x", T, 2> x;
  // argmax over few long rows: ties in different chunks give the first position.
  constexpr fx::out<"i", std::int64_t, 1> i;
  constexpr fx::program first_max{i = fx::argmax(x, fx::axis<1>, fx::drop_axes)};
  for (const std::int64_t n : {std::int64_t{100004}, std::int64_t{100003}}) {
    tensor<T> hx = tensor<T>::full({3, n}, static_cast<T>(0));
    for (std::int64_t r = 0; r < 3; ++r) hx(r, 5000 + r) = hx(r, n - 1 - r) = static_cast<T>(1);
    tensor<std::int64_t> ei({3});
    fx::run_reference(first_max, x(hx), i(ei));
    for (std::int64_t r = 0; r < 3; ++r) CHECK(ei(r) == 5000 + r);
    tensor<std::int64_t> di = poisoned<std::int64_t>({3});
    first_max.run(fx::cuda(), x(hx.to(device::cuda)), i(di));
    check(di, ei, fx::testing::tolerance{0, 0}, "argmax over 3 x " + std::to_string(n) + ", ties across chunks");
  }
  constexpr fx::out<"p", T, 2> p;
  constexpr fx::out<"q", T, 2> q;
  constexpr fx::out<"s", sum_t<T>, 1> s;
  constexpr fx::program prog{p = x * 2, q = x + 1, s = fx::sum(x, fx::axis<1>, fx::drop_axes)};
  // Few long rows: the split kernel's pointwise nodes beside a sum nobody in the group reads
  // (merged after a last meeting of the row's blocks).
  for (const shape& sizes :
       {shape{5, 0}, shape{0, 5}, shape{3, 1}, shape{many, one_chunk}, shape{many, one_chunk + 1}, shape{3, 100004}}) {
    const auto hx = input<T>(sizes, 13);
    tensor<T> ep(sizes), eq(sizes);
    tensor<sum_t<T>> es({sizes[0]});
    fx::run_reference(prog, x(hx), p(ep), q(eq), s(es));
    const auto dx = hx.to(device::cuda);
    tensor<T> dp = poisoned<T>(sizes), dq = poisoned<T>(sizes);
    tensor<sum_t<T>> ds = poisoned<sum_t<T>>({sizes[0]});
    prog.run(fx::cuda(), x(dx), p(dp), q(dq), s(ds));
    const std::string what = "horizontal, " + std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]);
    check(dp, ep, fx::testing::default_tolerance<T>(), what + " (x * 2)");
    check(dq, eq, fx::testing::default_tolerance<T>(), what + " (x + 1)");
    check(ds, es, sum_tolerance<sum_t<T>>(sizes[1]), what + " (sum)");
  }
  // An input constant along each row (expanded from one column): the vectorized kernel's broadcast loads.
  const shape sizes{many, 4096};
  const auto hx = input<T>({many, 1}, 14);
  tensor<T> ep(sizes), eq(sizes);
  tensor<sum_t<T>> es({many});
  fx::run_reference(prog, x(hx.expand(sizes)), p(ep), q(eq), s(es));
  const auto dx = hx.to(device::cuda);
  tensor<T> dp = poisoned<T>(sizes), dq = poisoned<T>(sizes);
  tensor<sum_t<T>> ds = poisoned<sum_t<T>>({many});
  prog.run(fx::cuda(), x(dx.expand(sizes)), p(dp), q(dq), s(ds));
  check(dp, ep, fx::testing::default_tolerance<T>(), "horizontal over an expanded input (x * 2)");
  check(ds, es, sum_tolerance<sum_t<T>>(4096), "horizontal over an expanded input (sum)");
  // A row group reading a column sum (another group's result, not constant along the rows).
  constexpr fx::out<"r", T, 1> r;
  constexpr fx::program weighted{r = fx::sum(x * fx::sum(x, fx::axis<0>), fx::axis<1>, fx::drop_axes)};
  const auto hw = input<T>(sizes, 15);
  tensor<T> er({many});
  fx::run_reference(weighted, x(hw), r(er));
  tensor<T> dr = poisoned<T>({many});
  weighted.run(fx::cuda(), x(hw.to(device::cuda)), r(dr));
  check(dr, er, fx::testing::tolerance{fx::testing::default_tolerance<T>(4).rtol, 4.0},
        "sum(x * sum(x, axis 0), axis 1)");
}

/// `fx::accumulate<double>` in every reduction kernel class: a row group (sum, mean and
/// var of each row, one kernel) over short rows, rows of one chunk and few long rows
/// (split across blocks), columns and full sums, of values whose f32 sums round many
/// ulps away but whose double sums are exact (`cancelling_tensor`): the sums and means
/// equal the oracle's, rounded once.
inline void accumulate_case() {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"s", float, 1> s;
  constexpr fx::out<"m", float, 1> m;
  constexpr fx::out<"v", float, 1> v;
  constexpr fx::out<"t", float, 0> t;
  constexpr fx::program rows{s = fx::sum(x, fx::axis<1>, fx::drop_axes, fx::accumulate<double>),
                             m = fx::mean(x, fx::axis<1>, fx::drop_axes, fx::accumulate<double>),
                             v = fx::var(x, fx::axis<1>, fx::drop_axes, fx::correction{0}, fx::accumulate<double>)};
  constexpr fx::program columns{s = fx::sum(x, fx::axis<0>, fx::drop_axes, fx::accumulate<double>)};
  constexpr fx::program full{t = fx::sum(x, fx::axes<>, fx::drop_axes, fx::accumulate<double>)};
  CHECK(fx::kernel_count(rows) == 1);
  const fx::testing::tolerance exact{0, 0}, variance{2e-7, 0};
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{34, 8}, {34, 4098}, {300, 16384}, {2, 1000004}};
  for (const auto& [r, n] : shapes) {
    const std::string what = std::to_string(r) + " x " + std::to_string(n) + " in double";
    const auto hx = fx::testing::cancelling_tensor(r, n, 20);
    const auto dx = hx.to(device::cuda);
    tensor<float> es({r}), em({r}), ev({r});
    fx::run_reference(rows, x(hx), s(es), m(em), v(ev));
    tensor<float> ds = poisoned<float>({r}), dm = poisoned<float>({r}), dv = poisoned<float>({r});
    rows.run(fx::cuda(), x(dx), s(ds), m(dm), v(dv));
    check(ds, es, exact, "rows, " + what + " (sum)");
    check(dm, em, exact, "rows, " + what + " (mean)");
    check(dv, ev, variance, "rows, " + what + " (var)");
    tensor<float> et(shape{});
    fx::run_reference(full, x(hx), t(et));
    tensor<float> dt = poisoned<float>(shape{});
    full.run(fx::cuda(), x(dx), t(dt));
    check(dt, et, exact, "full sum, " + what);
    const auto hc = fx::testing::cancelling_tensor(n, r, 21);
    tensor<float> ec({r});
    fx::run_reference(columns, x(hc), s(ec));
    tensor<float> dc = poisoned<float>({r});
    columns.run(fx::cuda(), x(hc.to(device::cuda)), s(dc));
    check(dc, ec, exact, "columns, " + std::to_string(n) + " x " + std::to_string(r) + " in double");
  }
}

/// Index leaves (fx::index<A>, computed by the kernels, no memory): an iota
/// into contiguous rows (vector stores) and into a transposed output
/// (element by element), a causal softmax (the row kernels: short, long and
/// vectorized rows) and causal column sums (the column kernel).
template <class T>
void index_case() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"y", T, 2> y;
  constexpr fx::out<"c", T, 2> c;
  constexpr fx::program iota{y = fx::index<0> * 1000 + fx::index<-1> + x};
  constexpr auto masked = fx::where(fx::index<0> < fx::index<1>, -std::numeric_limits<float>::infinity(), x);
  constexpr auto e = fx::exp(masked - fx::max(masked, fx::axis<1>));
  constexpr fx::program causal{y = e / fx::sum(e, fx::axis<1>)};
  constexpr fx::program columns{c = fx::sum(fx::where(fx::index<0> <= fx::index<1>, x, 0), fx::axis<0>)};
  static_assert(fx::kernel_count(iota) == 1 && fx::kernel_count(causal) == 1);
  for (const shape& sizes : {shape{3, 1}, shape{3, 7}, shape{5, 1023}, shape{300, 16}, shape{300, 17}, shape{40, 4097},
                             shape{300, 16392}, shape{1023, 37}}) {
    const auto hx = input<T>(sizes, 17);
    const auto dx = hx.to(device::cuda);
    const std::string what = std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]);
    tensor<T> ey(sizes), es(sizes), ec({1, sizes[1]});
    fx::run_reference(iota, x(hx), y(ey));
    fx::run_reference(causal, x(hx), y(es));
    fx::run_reference(columns, x(hx), c(ec));
    tensor<T> dy = poisoned<T>(sizes), dt = poisoned<T>({sizes[1], sizes[0]}), ds = poisoned<T>(sizes),
              dc = poisoned<T>({1, sizes[1]});
    iota.run(fx::cuda(), x(dx), y(dy));
    iota.run(fx::cuda(), x(dx), y(dt.view().transpose(0, 1)));
    causal.run(fx::cuda(), x(dx), y(ds));
    columns.run(fx::cuda(), x(dx), c(dc));
    check(dy, ey, fx::testing::default_tolerance<T>(3), "iota, " + what);
    check(fx::contiguous(dt.view().transpose(0, 1)), ey, fx::testing::default_tolerance<T>(3),
          "iota into a transposed output, " + what);
    fx::testing::tolerance tol = fx::testing::default_tolerance<T>(6);
    tol.atol = std::max(tol.atol, 1e-6 * static_cast<double>(sizes[1]) * (std::is_same_v<T, float> ? 1 : 100));
    check(ds, es, tol, "causal softmax, " + what);
    check(dc, ec, sum_tolerance<T>(sizes[0]), "causal column sums, " + what);
  }
}

/// Gathers (fx::take_along_axis, also with fx::drop_axes, and fx::index_select) on CUDA
/// against the CPU kernels: the gathered values bit for bit in a pointwise group (along the
/// rows, along the strided axis 0, index_select along either axis: an embedding lookup of
/// rows of 64 and 3), inside a row reduction (short rows of 10, rows of 37 and 5000) and a
/// column reduction, and for floating types cross-entropy (a row group with a value per row:
/// one kernel), sums within a sum's tolerance. Indices are i64 and i32.
template <class T>
void gather_case() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::in<"w", T, 2> w;
  constexpr fx::in<"i", std::int64_t, 2> i;
  constexpr fx::in<"t", std::int32_t, 1> t;
  constexpr fx::in<"u", std::int64_t, 1> u;
  constexpr fx::in<"ids", std::int64_t, 1> ids;
  constexpr fx::out<"y", T, 2> y;
  constexpr fx::out<"p", T, 1> p;
  constexpr fx::out<"q", T, 1> q;
  constexpr fx::out<"e", T, 2> e;
  constexpr fx::out<"z", T, 2> z;
  constexpr fx::out<"rs", sum_t<T>, 1> rs;
  constexpr fx::out<"cs", sum_t<T>, 1> cs;
  constexpr fx::program picks{y = fx::take_along_axis(x, i, fx::axis<1>),
                              p = fx::take_along_axis(x, t, fx::axis<-1>, fx::drop_axes),
                              q = fx::take_along_axis(x, u, fx::axis<0>, fx::drop_axes)};
  constexpr fx::program selects{z = fx::index_select(x, ids, fx::axis<1>)};
  constexpr fx::program embedding{e = fx::index_select(w, ids, fx::axis<0>)};
  constexpr fx::program row_sums{rs = fx::sum(fx::take_along_axis(x, i, fx::axis<1>), fx::axis<1>, fx::drop_axes)};
  constexpr fx::program column_sums{cs = fx::sum(fx::index_select(w, ids, fx::axis<0>), fx::axis<0>, fx::drop_axes)};
  static_assert(fx::kernel_count(row_sums) == 1);
  const auto indices = [](std::int64_t n, std::int64_t size, std::int64_t seed) {
    fx::tensor<std::int64_t> result({n});
    for (std::int64_t k = 0; k < n; ++k) result(k) = (k * 389 + seed) % size;
    return result;
  };
  for (const shape& sizes : {shape{3, 10}, shape{1023, 10}, shape{7, 37}, shape{300, 16}, shape{64, 5000}}) {
    const std::int64_t rows = sizes[0], cols = sizes[1];
    const std::string what = std::to_string(rows) + " x " + std::to_string(cols);
    const auto hx = input<T>(sizes, 41);
    tensor<std::int64_t> hi(sizes);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) hi(r, c) = (r * 7 + c * 13 + 5) % cols;
    tensor<std::int32_t> ht({rows});
    for (std::int64_t r = 0; r < rows; ++r) ht(r) = static_cast<std::int32_t>((r * 389 + 7) % cols);
    const auto hu = indices(cols, rows, 3), hids = indices(2 * cols + 1, cols, 11);
    tensor<T> ey(sizes), ep({rows}), eq({cols}), ez({rows, 2 * cols + 1});
    tensor<sum_t<T>> ers({rows});
    picks.run(fx::cpu, x(hx), i(hi), t(ht), u(hu), y(ey), p(ep), q(eq));
    selects.run(fx::cpu, x(hx), ids(hids), z(ez));
    row_sums.run(fx::cpu, x(hx), i(hi), rs(ers));
    const auto dx = hx.to(device::cuda);
    const auto di = hi.to(device::cuda), du = hu.to(device::cuda), dids = hids.to(device::cuda);
    const auto dt = ht.to(device::cuda);
    tensor<T> dy = poisoned<T>(sizes), dp = poisoned<T>({rows}), dq = poisoned<T>({cols}),
              dz = poisoned<T>({rows, 2 * cols + 1});
    tensor<sum_t<T>> drs = poisoned<sum_t<T>>({rows});
    picks.run(fx::cuda(), x(dx), i(di), t(dt), u(du), y(dy), p(dp), q(dq));
    selects.run(fx::cuda(), x(dx), ids(dids), z(dz));
    row_sums.run(fx::cuda(), x(dx), i(di), rs(drs));
    check(dy, ey, {0, 0}, "take_along_axis, " + what);
    check(dp, ep, {0, 0}, "take_along_axis with drop_axes, " + what);
    check(dq, eq, {0, 0}, "take_along_axis along axis 0, " + what);
    check(dz, ez, {0, 0}, "index_select along axis 1, " + what);
    check(drs, ers, sum_tolerance<T>(cols), "row sums of take_along_axis, " + what);
    if constexpr (!std::is_integral_v<T>) {
      constexpr fx::program cross_entropy{p = fx::logsumexp(x, fx::axis<1>, fx::drop_axes) -
                                              fx::take_along_axis(x, t, fx::axis<1>, fx::drop_axes)};
      static_assert(fx::kernel_count(cross_entropy) == 1);
      cross_entropy.run(fx::cpu, x(hx), t(ht), p(ep));
      cross_entropy.run(fx::cuda(), x(dx), t(dt), p(dp));
      check(dp, ep, sum_tolerance<T>(cols), "cross-entropy, " + what);
    }
  }
  for (const shape& sizes : {shape{50, 64}, shape{50, 3}}) {
    const std::string what = std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]);
    const auto hw = input<T>(sizes, 43);
    for (const std::int64_t n : {std::int64_t{7}, std::int64_t{1000}}) {
      const auto hids = indices(n, sizes[0], 5);
      tensor<T> ee({n, sizes[1]});
      tensor<sum_t<T>> ecs({sizes[1]});
      embedding.run(fx::cpu, w(hw), ids(hids), e(ee));
      column_sums.run(fx::cpu, w(hw), ids(hids), cs(ecs));
      const auto dw = hw.to(device::cuda);
      const auto dids = hids.to(device::cuda);
      tensor<T> de = poisoned<T>({n, sizes[1]});
      tensor<sum_t<T>> dcs = poisoned<sum_t<T>>({sizes[1]});
      embedding.run(fx::cuda(), w(dw), ids(dids), e(de));
      column_sums.run(fx::cuda(), w(dw), ids(dids), cs(dcs));
      check(de, ee, {0, 0}, "embedding of " + what + ", " + std::to_string(n) + " ids");
      check(dcs, ecs, sum_tolerance<T>(n),
            "column sums of an embedding of " + what + ", " + std::to_string(n) + " ids");
    }
  }
}

/// Scans against the CPU's (which combine each line in order): along rows of 3 and 7 (the
/// short-row kernel, a row per thread), 37, 1023, 4097 (several chunks of a row, unvectorized),
/// 16392 (vectorized, several chunks) and two rows of 1000003 (a block per row, many chunks);
/// fused with a row max and sum (one kernel), a running mean with an index leaf, and along
/// axis 0 (strided rows). cummax and cummin equal the CPU's exactly; sums, products and
/// logcumsumexp combine in a block's tree (docs/dsl.md) within a running sum's tolerance.
inline void scan_case() {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::in<"k", std::int32_t, 2> k;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::out<"m", float, 2> m;
  constexpr fx::out<"l", float, 2> l;
  constexpr fx::out<"p", float, 2> p;
  constexpr fx::out<"c", float, 2> c;
  constexpr fx::out<"i", std::int64_t, 2> i;
  constexpr auto e = fx::exp(x - fx::max(x, fx::axis<1>));
  constexpr fx::program cdf{y = fx::cumsum(e, fx::axis<1>) / fx::sum(e, fx::axis<1>)};
  constexpr fx::program scans{m = fx::cummax(x, fx::axis<1>) - fx::cummin(x, fx::axis<-1>),
                              l = fx::logcumsumexp(x, fx::axis<1>), p = fx::cumprod(1.0f + x * 0.001f, fx::axis<1>),
                              y = x - fx::cumsum(x, fx::axis<1>) / (fx::index<1> + 1), i = fx::cumsum(k, fx::axis<1>)};
  constexpr fx::program columns{c = fx::cumsum(x * 2, fx::axis<0>) + fx::cummax(x, fx::axis<0>)};
  static_assert(fx::kernel_count(cdf) == 1);
  for (const shape& sizes : {shape{5, 3}, shape{300, 7}, shape{33, 37}, shape{40, 1023}, shape{9, 2048}, shape{9, 4097},
                             shape{6, 16392}, shape{2, 1000003}}) {
    const std::string what = std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]);
    const std::int64_t n = sizes[1];
    const auto hx = input<float>(sizes, 29);
    const auto hk = input<std::int32_t>(sizes, 31);
    tensor<float> ey(sizes), em(sizes), el(sizes), ep(sizes), er(sizes), ec(sizes);
    tensor<std::int64_t> ei(sizes);
    cdf.run(fx::cpu, x(hx), y(ey));
    scans.run(fx::cpu, x(hx), k(hk), m(em), l(el), p(ep), y(er), i(ei));
    columns.run(fx::cpu, x(hx), c(ec));
    const auto dx = hx.to(device::cuda);
    const auto dk = hk.to(device::cuda);
    tensor<float> dy = poisoned<float>(sizes), dm = poisoned<float>(sizes), dl = poisoned<float>(sizes),
                  dp = poisoned<float>(sizes), dr = poisoned<float>(sizes), dc = poisoned<float>(sizes);
    tensor<std::int64_t> di = poisoned<std::int64_t>(sizes);
    cdf.run(fx::cuda(), x(dx), y(dy));
    scans.run(fx::cuda(), x(dx), k(dk), m(dm), l(dl), p(dp), y(dr), i(di));
    columns.run(fx::cuda(), x(dx), c(dc));
    check(dy, ey, sum_tolerance<float>(n), "cumsum / sum of a softmax, " + what);
    check(dm, em, {0, 0}, "cummax - cummin, " + what);
    check(dl, el, sum_tolerance<float>(n), "logcumsumexp, " + what);
    check(dp, ep, {2.4e-7 * static_cast<double>(n), 1e-6}, "cumprod, " + what);
    check(dr, er, sum_tolerance<float>(n), "running mean, " + what);
    check(di, ei, {0, 0}, "cumsum of i32 in i64, " + what);
    check(dc, ec, sum_tolerance<float>(sizes[0]), "scans along axis 0, " + what);
  }
}

/// Scans of bf16, f16, f64, i64 and bool, and gathers of f16, f64, i64, i16, i8 and u8 (the
/// types the per-type files leave out) against the CPU's kernels. Few kernels for many types
/// (nvcc's time goes by kernels): the scans read one f64 input converted to each type, so
/// that they fuse into one kernel per axis; four gathers share their indices. Rows of 3 (a
/// row per thread), 37 and 4097 (chunks of a row) and axis 0; integers, bool, extremes and
/// gathers exact, sums within a running sum's tolerance in the type.
inline void other_types_case() {
  constexpr fx::in<"x", double, 2> x;
  constexpr fx::in<"h", fx::half, 2> h;
  constexpr fx::in<"l", std::int64_t, 2> l;
  constexpr fx::in<"s", std::int16_t, 2> s;
  constexpr fx::in<"c", std::int8_t, 2> c;
  constexpr fx::in<"u", std::uint8_t, 2> u;
  constexpr fx::in<"i", std::int64_t, 2> i;
  constexpr fx::in<"ids", std::int32_t, 1> ids;
  constexpr fx::out<"sh", fx::half, 2> sh;
  constexpr fx::out<"mh", fx::half, 2> mh;
  constexpr fx::out<"sb", fx::bfloat16, 2> sb;
  constexpr fx::out<"lb", fx::bfloat16, 2> lb;
  constexpr fx::out<"sd", double, 2> sd;
  constexpr fx::out<"pd", double, 2> pd;
  constexpr fx::out<"ld", double, 2> ld;
  constexpr fx::out<"sl", std::int64_t, 2> sl;
  constexpr fx::out<"ml", std::int64_t, 2> ml;
  constexpr fx::out<"so", std::int64_t, 2> so;
  constexpr fx::out<"mo", bool, 2> mo;
  constexpr fx::out<"gh", fx::half, 2> gh;
  constexpr fx::out<"gd", double, 2> gd;
  constexpr fx::out<"gl", std::int64_t, 2> gl;
  constexpr fx::out<"gs", std::int16_t, 2> gs;
  constexpr fx::out<"gc", std::int8_t, 2> gc;
  constexpr fx::out<"gu", std::uint8_t, 2> gu;
  constexpr auto xh = fx::cast<fx::half>(x);
  constexpr auto xb = fx::cast<fx::bfloat16>(x);
  constexpr auto xl = fx::cast<std::int64_t>(x * 1.5e15);  // beyond 2^32
  constexpr auto xo = x > 0.5;
  constexpr fx::program rows{sh = fx::cumsum(xh, fx::axis<1>),
                             mh = fx::cummax(xh, fx::axis<1>) - fx::cummin(xh, fx::axis<1>),
                             sb = fx::cumsum(xb, fx::axis<1>),
                             lb = fx::logcumsumexp(xb, fx::axis<1>),
                             sd = fx::cumsum(x, fx::axis<1>),
                             pd = fx::cumprod(1.0 + x * 0.001, fx::axis<1>),
                             ld = fx::logcumsumexp(x, fx::axis<1>),
                             sl = fx::cumsum(xl, fx::axis<1>),
                             ml = fx::cummax(xl, fx::axis<1>) - fx::cummin(xl, fx::axis<1>),
                             so = fx::cumsum(xo, fx::axis<1>),
                             mo = fx::cummax(xo, fx::axis<1>)};
  constexpr fx::program columns{sh = fx::cumsum(xh, fx::axis<0>), sb = fx::cumsum(xb, fx::axis<0>),
                                sd = fx::cumsum(x, fx::axis<0>),  ml = fx::cummin(xl, fx::axis<0>),
                                so = fx::cumsum(xo, fx::axis<0>), mo = fx::cummin(xo, fx::axis<0>)};
  constexpr fx::program gathers{gh = fx::take_along_axis(h, i, fx::axis<1>),
                                gd = fx::take_along_axis(x, i, fx::axis<1>),
                                gl = fx::take_along_axis(l, i, fx::axis<1>),
                                gu = fx::take_along_axis(u, i, fx::axis<1>),
                                gs = fx::index_select(s, ids, fx::axis<1>),
                                gc = fx::index_select(c, ids, fx::axis<1>)};
  static_assert(fx::kernel_count(rows) == 1 && fx::kernel_count(columns) == 1);
  for (const shape& sizes : {shape{5, 3}, shape{33, 37}, shape{9, 4097}}) {
    const std::string what = std::to_string(sizes[0]) + " x " + std::to_string(sizes[1]);
    const std::int64_t n = sizes[1];
    const auto hx = input<double>(sizes, 51);
    const auto hh = input<fx::half>(sizes, 52);
    const auto hl = fx::testing::random_tensor<std::int64_t>(sizes, 53, -3e15, 3e15);
    const auto hs = fx::testing::random_tensor<std::int16_t>(sizes, 54, -30000, 30000);
    const auto hc = fx::testing::random_tensor<std::int8_t>(sizes, 55, -128, 127);
    const auto hu = fx::testing::random_tensor<std::uint8_t>(sizes, 56, 0, 255);
    tensor<std::int64_t> hi(sizes);
    for (std::int64_t r = 0; r < sizes[0]; ++r)
      for (std::int64_t k = 0; k < n; ++k) hi(r, k) = (r * 7 + k * 13 + 5) % n;
    tensor<std::int32_t> hids({n});
    for (std::int64_t k = 0; k < n; ++k) hids(k) = static_cast<std::int32_t>((k * 389 + 11) % n);
    const auto dx = hx.to(device::cuda);
    const auto dh = hh.to(device::cuda);
    const auto dl = hl.to(device::cuda), di = hi.to(device::cuda);
    const auto ds = hs.to(device::cuda);
    const auto dc = hc.to(device::cuda);
    const auto du = hu.to(device::cuda);
    const auto dids = hids.to(device::cuda);
    tensor<fx::half> esh(sizes), emh(sizes), egh(sizes);
    tensor<fx::bfloat16> esb(sizes), elb(sizes);
    tensor<double> esd(sizes), epd(sizes), eld(sizes), egd(sizes);
    tensor<std::int64_t> esl(sizes), eml(sizes), eso(sizes), egl(sizes);
    tensor<bool> emo(sizes);
    tensor<std::int16_t> egs(sizes);
    tensor<std::int8_t> egc(sizes);
    tensor<std::uint8_t> egu(sizes);
    auto dsh = poisoned<fx::half>(sizes), dmh = poisoned<fx::half>(sizes), dgh = poisoned<fx::half>(sizes);
    auto dsb = poisoned<fx::bfloat16>(sizes), dlb = poisoned<fx::bfloat16>(sizes);
    auto dsd = poisoned<double>(sizes), dpd = poisoned<double>(sizes), dld = poisoned<double>(sizes),
         dgd = poisoned<double>(sizes);
    auto dsl = poisoned<std::int64_t>(sizes), dml = poisoned<std::int64_t>(sizes), dso = poisoned<std::int64_t>(sizes),
         dgl = poisoned<std::int64_t>(sizes);
    auto dmo = tensor<bool>::full(sizes, false, device::cuda);  // cummax of a row that starts true is all true
    auto dgs = poisoned<std::int16_t>(sizes);
    auto dgc = poisoned<std::int8_t>(sizes);
    auto dgu = poisoned<std::uint8_t>(sizes);
    rows.run(fx::cpu, x(hx), sh(esh), mh(emh), sb(esb), lb(elb), sd(esd), pd(epd), ld(eld), sl(esl), ml(eml), so(eso),
             mo(emo));
    rows.run(fx::cuda(), x(dx), sh(dsh), mh(dmh), sb(dsb), lb(dlb), sd(dsd), pd(dpd), ld(dld), sl(dsl), ml(dml),
             so(dso), mo(dmo));
    gathers.run(fx::cpu, x(hx), h(hh), l(hl), s(hs), c(hc), u(hu), i(hi), ids(hids), gh(egh), gd(egd), gl(egl), gs(egs),
                gc(egc), gu(egu));
    gathers.run(fx::cuda(), x(dx), h(dh), l(dl), s(ds), c(dc), u(du), i(di), ids(dids), gh(dgh), gd(dgd), gl(dgl),
                gs(dgs), gc(dgc), gu(dgu));
    const fx::testing::tolerance f64_sum{1e-12 * static_cast<double>(n), 1e-12};
    check(dsh, esh, sum_tolerance<fx::half>(n), "cumsum of f16, " + what);
    check(dmh, emh, {0, 0}, "cummax - cummin of f16, " + what);
    check(dsb, esb, sum_tolerance<fx::bfloat16>(n), "cumsum of bf16, " + what);
    check(dlb, elb, sum_tolerance<fx::bfloat16>(n), "logcumsumexp of bf16, " + what);
    check(dsd, esd, f64_sum, "cumsum of f64, " + what);
    check(dpd, epd, f64_sum, "cumprod of f64, " + what);
    check(dld, eld, f64_sum, "logcumsumexp of f64, " + what);
    check(dsl, esl, {0, 0}, "cumsum of i64, " + what);
    check(dml, eml, {0, 0}, "cummax - cummin of i64, " + what);
    check(dso, eso, {0, 0}, "cumsum of bool in i64, " + what);
    check(dmo, emo, {0, 0}, "cummax of bool, " + what);
    check(dgh, egh, {0, 0}, "take_along_axis of f16, " + what);
    check(dgd, egd, {0, 0}, "take_along_axis of f64, " + what);
    check(dgl, egl, {0, 0}, "take_along_axis of i64, " + what);
    check(dgu, egu, {0, 0}, "take_along_axis of u8, " + what);
    check(dgs, egs, {0, 0}, "index_select of i16, " + what);
    check(dgc, egc, {0, 0}, "index_select of i8, " + what);
    dmo = tensor<bool>::full(sizes, true, device::cuda);
    columns.run(fx::cpu, x(hx), sh(esh), sb(esb), sd(esd), ml(eml), so(eso), mo(emo));
    columns.run(fx::cuda(), x(dx), sh(dsh), sb(dsb), sd(dsd), ml(dml), so(dso), mo(dmo));
    check(dsh, esh, sum_tolerance<fx::half>(sizes[0]), "cumsum of f16 along axis 0, " + what);
    check(dsb, esb, sum_tolerance<fx::bfloat16>(sizes[0]), "cumsum of bf16 along axis 0, " + what);
    check(dsd, esd, {1e-12 * static_cast<double>(sizes[0]), 1e-12}, "cumsum of f64 along axis 0, " + what);
    check(dml, eml, {0, 0}, "cummin of i64 along axis 0, " + what);
    check(dso, eso, {0, 0}, "cumsum of bool in i64 along axis 0, " + what);
    check(dmo, emo, {0, 0}, "cummin of bool along axis 0, " + what);
  }
}

/// Adam's in-place update (inout tensors, a param): one pointwise kernel.
template <class T>
void adam_case() {
  constexpr fx::in<"g", T, 1> g;
  constexpr fx::inout<"p", T, 1> p;
  constexpr fx::inout<"m", T, 1> m;
  constexpr fx::inout<"v", T, 1> v;
  constexpr fx::param<"lr", float> lr;
  constexpr fx::program adam{m = 0.9f * m + 0.1f * g, v = 0.999f * v + 0.001f * g * g,
                             p -= lr * m / (fx::sqrt(v) + 1e-8f)};
  for (const std::int64_t n : sizes) {
    const auto hg = input<T>({n}, 13), hp = input<T>({n}, 14), hm = input<T>({n}, 15);
    const auto hv = fx::testing::random_tensor<T>({n}, 16, 0.1, 1.0);
    tensor<T> ep = hp.clone(), em = hm.clone(), ev = hv.clone();
    fx::run_reference(adam, g(hg), p(ep), m(em), v(ev), lr(1e-3f));
    const auto dg = hg.to(device::cuda);
    tensor<T> dp = hp.to(device::cuda), dm = hm.to(device::cuda), dv = hv.to(device::cuda);
    adam.run(fx::cuda(), g(dg), p(dp), m(dm), v(dv), lr(1e-3f));
    const auto tol = fx::testing::default_tolerance<T>(4);
    check(dp, ep, tol, "adam p, n = " + std::to_string(n));
    check(dm, em, tol, "adam m, n = " + std::to_string(n));
    check(dv, ev, tol, "adam v, n = " + std::to_string(n));
  }
}

}  // namespace cuda_test
