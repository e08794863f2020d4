// The oracle itself (fx::run_reference) against values computed
// independently: the C library in double, known constants of sigmoid, silu
// and gelu, integer wrap-around. Each case also runs the CPU executor and
// checks it against the same values.
#include "oracle.hpp"

using namespace fusedsl_tests;

TEST_CASE("oracle: f64 math functions agree with the C library's double functions within a few ulps") {
  constexpr fx::in<"x", double, 1> x;
  const auto tx = make_tensor<double>({5}, {-1.75, -0.3, 0.1, 0.9, 2.5});
  const double* v = tx.data();
  // The oracle computes f64 in double with fusedsl's math functions (core/vector_math.hpp, at most 3 ulps
  // from the exact value), so it is within 1e-15 of the C library.
  check_values(fx::exp(x), {5}, {std::exp(v[0]), std::exp(v[1]), std::exp(v[2]), std::exp(v[3]), std::exp(v[4])}, 1e-15,
               1e-15, x(tx));
  check_values(fx::erf(x), {5}, {std::erf(v[0]), std::erf(v[1]), std::erf(v[2]), std::erf(v[3]), std::erf(v[4])}, 1e-15,
               1e-15, x(tx));
  check_values(fx::log1p(x), {5}, {kNaN, std::log1p(v[1]), std::log1p(v[2]), std::log1p(v[3]), std::log1p(v[4])}, 1e-15,
               1e-15, x(tx));
  check_values(fx::tanh(x), {5}, {std::tanh(v[0]), std::tanh(v[1]), std::tanh(v[2]), std::tanh(v[3]), std::tanh(v[4])},
               1e-15, 1e-15, x(tx));
  check_values(fx::sqrt(x), {5}, {kNaN, kNaN, std::sqrt(v[2]), std::sqrt(v[3]), std::sqrt(v[4])}, 1e-15, 1e-15, x(tx));
}

TEST_CASE("oracle: sigmoid, silu and both gelu forms at known points") {
  constexpr fx::in<"x", double, 1> x;
  const auto tx = make_tensor<double>({4}, {0.0, 1.0, -1.0, -40.0});
  check_values(fx::sigmoid(x), {4}, {0.5, 0.7310585786300049, 0.2689414213699951, 4.248354255291589e-18}, 1e-14, 1e-14,
               x(tx));
  check_values(fx::silu(x), {4}, {0.0, 0.7310585786300049, -0.2689414213699951, -1.6993417021166355e-16}, 1e-14, 1e-14,
               x(tx));
  // gelu(x) = x Phi(x): Phi(1) = 0.8413447460685429.
  check_values(fx::gelu(x), {4}, {0.0, 0.8413447460685429, -0.15865525393145707, -0.0}, 1e-14, 1e-14, x(tx));
  // tanh form: 0.5 (1 + tanh(sqrt(2/pi) (1 + 0.044715))) = 0.8411919906082768.
  check_values(fx::gelu(x, fx::tanh_approximation), {4}, {0.0, 0.8411919906082768, -0.15880800939172324, -0.0}, 1e-14,
               1e-14, x(tx));
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
  check_values(-a, {4}, {-100, -16, -128, -127}, 0, 0, a(ta));       // -(-128) wraps to -128
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
