// The oracle itself (fx::run_reference) against values computed
// independently: the C library in double, known constants, integer
// wrap-around, NaN and infinity rules. Each case also runs the CPU executor
// and checks it against the same values.
#include <cmath>  // std::exp, std::erf, ...

#include "common.hpp"

namespace {
using namespace fusedsl_tests;

/// True when `got` is `want` within `rtol` (NaN equals NaN, infinities exactly).
bool same_value(double got, double want, double rtol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= rtol * std::fabs(want) + 1e-300;
}

/// Checks the oracle's value of `value` (and the executor's, within
/// `executor_rtol`) against `want`, element by element.
template <class E, class... Bindings>
void check_values(const E& value, const fx::shape& sizes, std::initializer_list<double> want, double oracle_rtol,
                  double executor_rtol, const Bindings&... bindings) {
  const auto oracle = reference_value(value, sizes, bindings...);
  const auto executor = check_against_oracle(value, sizes, tolerance{executor_rtol, 0}, bindings...);
  REQUIRE(static_cast<std::int64_t>(want.size()) == oracle.numel());
  std::int64_t i = 0;
  for (const double w : want) {
    INFO(fx::to_string(value), " element ", i, ": oracle ", at(oracle, i), ", executor ", at(executor, i),
         ", expected ", w);
    CHECK(same_value(at(oracle, i), w, oracle_rtol));
    CHECK(same_value(at(executor, i), w, executor_rtol));
    ++i;
  }
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("oracle: f64 math functions are the C library's double functions") {
  constexpr fx::in<"x", double, 1> x;
  const auto tx = make_tensor<double>({5}, {-1.75, -0.3, 0.1, 0.9, 2.5});
  const double* v = tx.data();
  // The oracle computes f64 in double with the same functions, so it is exact.
  check_values(fx::exp(x), {5}, {std::exp(v[0]), std::exp(v[1]), std::exp(v[2]), std::exp(v[3]), std::exp(v[4])}, 0,
               1e-15, x(tx));
  check_values(fx::erf(x), {5}, {std::erf(v[0]), std::erf(v[1]), std::erf(v[2]), std::erf(v[3]), std::erf(v[4])}, 0,
               1e-15, x(tx));
  check_values(fx::log1p(x), {5},
               {kNaN, std::log1p(v[1]), std::log1p(v[2]), std::log1p(v[3]), std::log1p(v[4])}, 0, 1e-15, x(tx));
  check_values(fx::tanh(x), {5},
               {std::tanh(v[0]), std::tanh(v[1]), std::tanh(v[2]), std::tanh(v[3]), std::tanh(v[4])}, 0, 1e-15,
               x(tx));
  check_values(fx::sqrt(x), {5}, {kNaN, kNaN, std::sqrt(v[2]), std::sqrt(v[3]), std::sqrt(v[4])}, 0, 1e-15, x(tx));
}

TEST_CASE("oracle: sigmoid, silu and both gelu forms at known points") {
  constexpr fx::in<"x", double, 1> x;
  const auto tx = make_tensor<double>({4}, {0.0, 1.0, -1.0, -40.0});
  check_values(fx::sigmoid(x), {4}, {0.5, 0.7310585786300049, 0.2689414213699951, 4.248354255291589e-18}, 1e-14,
               1e-14, x(tx));
  check_values(fx::silu(x), {4}, {0.0, 0.7310585786300049, -0.2689414213699951, -1.6993417021166355e-16}, 1e-14,
               1e-14, x(tx));
  // gelu(x) = x Phi(x): Phi(1) = 0.8413447460685429.
  check_values(fx::gelu(x), {4}, {0.0, 0.8413447460685429, -0.15865525393145707, -0.0}, 1e-14, 1e-14, x(tx));
  // tanh form: 0.5 (1 + tanh(sqrt(2/pi) (1 + 0.044715))) = 0.8411919906082768.
  check_values(fx::gelu(x, fx::tanh_approximation), {4}, {0.0, 0.8411919906082768, -0.15880800939172324, -0.0},
               1e-14, 1e-14, x(tx));
  // In f32 the executor computes in float: within a few float ulps.
  constexpr fx::in<"f", float, 1> f;
  const auto tf = make_tensor<float>({2}, {0.0, 1.0});
  check_values(fx::gelu(f), {2}, {0.0, 0.8413447460685429}, 1e-7, 1e-6, f(tf));
  check_values(fx::sigmoid(f), {2}, {0.5, 0.7310585786300049}, 1e-7, 1e-6, f(tf));
}

TEST_CASE("oracle: integer + and * wrap around in the stored dtype") {
  constexpr fx::in<"a", std::int8_t, 1> a;
  constexpr fx::in<"b", std::int8_t, 1> b;
  const auto ta = make_tensor<std::int8_t>({4}, {100, 16, -128, 127});
  const auto tb = make_tensor<std::int8_t>({4}, {100, 16, -1, 1});
  check_values(a + b, {4}, {-56, 32, 127, -128}, 0, 0, a(ta), b(tb));
  check_values(a * b, {4}, {16, 0, -128, 127}, 0, 0, a(ta), b(tb));  // 10000 mod 256 = 16; 256 -> 0; 128 -> -128
  check_values(-a, {4}, {-100, -16, -128, -127}, 0, 0, a(ta));        // -(-128) wraps to -128
  constexpr fx::in<"c", std::int32_t, 1> c;
  constexpr fx::in<"d", std::int32_t, 1> d;
  const auto tc = make_tensor<std::int32_t>({3}, {2147483647, 65536, 46341});
  const auto td = make_tensor<std::int32_t>({3}, {1, 65536, 46341});
  check_values(c + d, {3}, {-2147483648.0, 131072, 92682}, 0, 0, c(tc), d(td));
  check_values(c * d, {3}, {2147483647, 0, -2147479015.0}, 0, 0, c(tc), d(td));  // 46341^2 - 2^32
  // u8 arithmetic wraps modulo 256.
  constexpr fx::in<"u", std::uint8_t, 1> u;
  const auto tu = make_tensor<std::uint8_t>({2}, {200, 3});
  check_values(u + u, {2}, {144, 6}, 0, 0, u(tu));
  check_values(u - 5, {2}, {195, 254}, 0, 0, u(tu));
}

TEST_CASE("oracle: maximum, minimum, max and min propagate NaN") {
  constexpr fx::in<"a", float, 1> a;
  constexpr fx::in<"b", float, 1> b;
  const auto ta = make_tensor<float>({3}, {kNaN, 1.0, 2.0});
  const auto tb = make_tensor<float>({3}, {1.0, kNaN, -3.0});
  check_values(fx::maximum(a, b), {3}, {kNaN, kNaN, 2.0}, 0, 0, a(ta), b(tb));
  check_values(fx::minimum(a, b), {3}, {kNaN, kNaN, -3.0}, 0, 0, a(ta), b(tb));
  constexpr fx::in<"x", float, 2> x;
  const auto tx = make_tensor<float>({2, 3}, {1.0, kNaN, 3.0, 4.0, -5.0, 6.0});
  check_values(fx::max(x, fx::axis<1>, fx::drop_axes), {2}, {kNaN, 6.0}, 0, 0, x(tx));
  check_values(fx::min(x, fx::axis<1>, fx::drop_axes), {2}, {kNaN, -5.0}, 0, 0, x(tx));
  check_values(fx::max(x, fx::axis<0>, fx::drop_axes), {3}, {4.0, kNaN, 6.0}, 0, 0, x(tx));
  check_values(fx::max(x, fx::axes<>, fx::drop_axes), {}, {kNaN}, 0, 0, x(tx));
}

TEST_CASE("oracle: argmax and argmin take the first index on ties and the NaN position") {
  constexpr fx::in<"x", float, 2> x;
  const auto ties = make_tensor<float>({2, 4}, {1.0, 3.0, 3.0, 2.0, 0.0, 0.0, -1.0, -1.0});
  check_values(fx::argmax(x, fx::axis<1>, fx::drop_axes), {2}, {1, 0}, 0, 0, x(ties));
  check_values(fx::argmin(x, fx::axis<1>, fx::drop_axes), {2}, {0, 2}, 0, 0, x(ties));
  // Flattened position over all axes; the first of the equal maxima.
  check_values(fx::argmax(x), {1, 1}, {1}, 0, 0, x(ties));
  const auto with_nan = make_tensor<float>({2, 4}, {1.0, kNaN, 5.0, kNaN, 7.0, 2.0, 9.0, kNaN});
  check_values(fx::argmax(x, fx::axis<1>, fx::drop_axes), {2}, {1, 3}, 0, 0, x(with_nan));
  check_values(fx::argmin(x, fx::axis<1>, fx::drop_axes), {2}, {1, 3}, 0, 0, x(with_nan));
  // Over axis 0 the position is the row.
  check_values(fx::argmax(x, fx::axis<0>, fx::drop_axes), {4}, {1, 0, 1, 0}, 0, 0, x(with_nan));
  // Integer ties, too.
  constexpr fx::in<"i", std::int32_t, 1> i;
  const auto ti = make_tensor<std::int32_t>({5}, {4, 9, 9, -3, -3});
  check_values(fx::argmax(i, fx::axis<0>, fx::drop_axes), {}, {1}, 0, 0, i(ti));
  check_values(fx::argmin(i, fx::axis<0>, fx::drop_axes), {}, {3}, 0, 0, i(ti));
}

TEST_CASE("oracle: var and std with correction 0 and 1") {
  constexpr fx::in<"x", double, 2> x;
  const auto tx = make_tensor<double>({2, 4}, {1, 2, 3, 4, 10, 10, 10, 14});
  // Row 0: mean 2.5, squared deviations sum 5; row 1: mean 11, sum 12.
  check_values(fx::var(x, fx::axis<1>, fx::drop_axes), {2}, {5.0 / 3, 4.0}, 1e-15, 1e-14, x(tx));
  check_values(fx::var(x, fx::axis<1>, fx::drop_axes, fx::correction{1}), {2}, {5.0 / 3, 4.0}, 1e-15, 1e-14, x(tx));
  check_values(fx::var(x, fx::axis<1>, fx::drop_axes, fx::correction{0}), {2}, {1.25, 3.0}, 1e-15, 1e-14, x(tx));
  check_values(fx::std(x, fx::axis<1>, fx::drop_axes, fx::correction{0}), {2}, {std::sqrt(1.25), std::sqrt(3.0)},
               1e-15, 1e-14, x(tx));
  check_values(fx::std(x, fx::axis<1>, fx::drop_axes), {2}, {std::sqrt(5.0 / 3), 2.0}, 1e-15, 1e-14, x(tx));
  // One element with correction 1: 0 / 0 is NaN (PyTorch gives NaN too).
  constexpr fx::in<"one", double, 1> one;
  const auto t1 = make_tensor<double>({1}, {3.0});
  check_values(fx::var(one), {1}, {kNaN}, 0, 0, one(t1));
  check_values(fx::var(one, fx::axes<>, fx::correction{0}), {1}, {0.0}, 0, 0, one(t1));
  // Like PyTorch, the divisor is max(0, count - correction): [1, 2] with correction 3 is 0.5 / 0 = inf,
  // and an empty axis (0 / 0) is NaN, not 0 / -1 = -0.
  constexpr fx::in<"two", double, 1> two;
  const auto t2 = make_tensor<double>({2}, {1.0, 2.0});
  check_values(fx::var(two, fx::axes<>, fx::correction{3}), {1}, {kInf}, 0, 0, two(t2));
  check_values(fx::std(two, fx::axes<>, fx::correction{2}), {1}, {kInf}, 0, 0, two(t2));
  check_values(fx::var(two, fx::axes<>, fx::correction{0.5}), {1}, {0.5 / 1.5}, 1e-15, 1e-15, two(t2));
  const fx::tensor<double> empty({0});
  check_values(fx::var(two), {1}, {kNaN}, 0, 0, two(empty));
  check_values(fx::std(two, fx::axes<>, fx::correction{0}), {1}, {kNaN}, 0, 0, two(empty));
}

TEST_CASE("oracle: logsumexp with -kInf, +kInf and NaN") {
  constexpr fx::in<"x", double, 2> x;
  const auto tx = make_tensor<double>({6, 2}, {-kInf, 0.0,    //
                                               -kInf, -kInf,   //
                                               kInf, 1.0,     //
                                               1.0, 2.0,     //
                                               kNaN, 1.0,     //
                                               1000.0, 1000.0});
  check_values(fx::logsumexp(x, fx::axis<1>, fx::drop_axes), {6},
               {0.0, -kInf, kInf, 2.0 + std::log1p(std::exp(-1.0)), kNaN, 1000.0 + std::log(2.0)}, 1e-15, 1e-14, x(tx));
  constexpr fx::in<"f", float, 1> f;
  const auto tf = make_tensor<float>({3}, {-kInf, 88.0, 88.0});  // exp(88) * 2 would overflow a naive f32 sum
  check_values(fx::logsumexp(f), {1}, {88.0 + std::log(2.0)}, 1e-7, 1e-6, f(tf));
}

TEST_CASE("oracle: sum and mean over an empty axis, prod of integers wraps") {
  constexpr fx::in<"x", float, 2> x;
  const fx::tensor<float> empty({3, 0});
  check_values(fx::sum(x, fx::axis<1>, fx::drop_axes), {3}, {0.0, 0.0, 0.0}, 0, 0, x(empty));
  check_values(fx::mean(x, fx::axis<1>, fx::drop_axes), {3}, {kNaN, kNaN, kNaN}, 0, 0, x(empty));
  check_values(fx::prod(x, fx::axis<1>, fx::drop_axes), {3}, {1.0, 1.0, 1.0}, 0, 0, x(empty));
  check_values(fx::any(x, fx::axis<1>, fx::drop_axes), {3}, {0, 0, 0}, 0, 0, x(empty));
  check_values(fx::all(x, fx::axis<1>, fx::drop_axes), {3}, {1, 1, 1}, 0, 0, x(empty));
  constexpr fx::in<"i", std::int32_t, 1> i;
  const auto ti = make_tensor<std::int32_t>({3}, {65536, 65536, 65536});  // 2^48 fits i64: no wrap
  check_values(fx::prod(i), {1}, {281474976710656.0}, 0, 0, i(ti));
  const auto tw = make_tensor<std::int32_t>({5}, {65536, 65536, 65536, 65536, 3});  // 2^64 * 3 wraps to 0
  check_values(fx::prod(i), {1}, {0}, 0, 0, i(tw));
  // sum of i8 accumulates in i64: no wrap at 127.
  constexpr fx::in<"c", std::int8_t, 1> c;
  const auto tc = make_tensor<std::int8_t>({3}, {127, 127, 127});
  check_values(fx::sum(c), {1}, {381}, 0, 0, c(tc));
}
