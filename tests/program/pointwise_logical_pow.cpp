// Logical ops on bool (and on operands converted to bool) and integer pow:
// the CPU executor against the oracle and hand-computed values.
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("logical and, or, not on bool, and on non-bool operands converted to bool") {
  constexpr fx::in<"p", bool, 2> p;
  constexpr fx::in<"q", bool, 2> q;
  constexpr fx::in<"x", float, 2> x;
  const auto tp = random_tensor<bool>({4, 9}, 51);
  const auto tq = random_tensor<bool>({4, 9}, 52);
  const auto tx = random_tensor<float>({4, 9}, 53);
  check_each(std::tuple{p && q, p || q, !p, !(p && q) || (x > 0.5f), (x > 0) && p}, {4, 9}, {1, 1, 1, 1, 1}, p(tp),
             q(tq), x(tx));
  const auto both = check_pointwise(p && q, {4, 9}, 1, p(tp), q(tq));
  const auto either = check_pointwise(p || q, {4, 9}, 1, p(tp), q(tq));
  for (std::int64_t i = 0; i < 36; ++i) {
    CHECK(both.data()[i] == (tp.data()[i] && tq.data()[i]));
    CHECK(either.data()[i] == (tp.data()[i] || tq.data()[i]));
  }
  // A float operand of && is "!= 0": 0.0 is false, -0.5 is true.
  constexpr fx::in<"f", float, 1> f;
  const auto tf = make_tensor<float>({3}, {0.0, -0.5, 2.0});
  const auto nonzero = check_pointwise(f && f, {3}, 1, f(tf));
  CHECK(nonzero.data()[0] == false);
  CHECK(nonzero.data()[1] == true);
  CHECK(nonzero.data()[2] == true);
}

TEST_CASE_TEMPLATE("integer pow wraps around and truncates negative exponents", T, std::int64_t, std::int32_t,
                   std::int16_t, std::int8_t, std::uint8_t, bool) {
  constexpr fx::in<"a", T, 2> a;
  constexpr fx::in<"b", T, 2> b;
  const std::uint64_t seed = 500 + static_cast<std::uint64_t>(fx::dtype_of<T>);
  constexpr bool is_unsigned = std::is_same_v<T, std::uint8_t> || std::is_same_v<T, bool>;
  const auto ta = random_tensor<T>({6, 11}, seed, is_unsigned ? 0 : -6, 6);
  const auto tb = random_tensor<T>({6, 11}, seed + 1, is_unsigned ? 0 : -3, 12);
  static_assert(decltype(fx::pow(a, b))::value_dtype == fx::dtype_of<T>);
  check_each(std::tuple{fx::pow(a, b), fx::pow(a, 3)}, {6, 11}, {1, 1}, a(ta), b(tb));
}

TEST_CASE("integer pow: hand-computed values in the executor and the oracle") {
  constexpr fx::in<"a", std::int32_t, 1> a;
  constexpr fx::in<"b", std::int32_t, 1> b;
  const auto ta = make_tensor<std::int32_t>({8}, {2, -2, 2, -1, -1, 1, 3, 0});
  const auto tb = make_tensor<std::int32_t>({8}, {10, 3, -1, -3, -2, -5, 0, 0});
  const auto p = check_pointwise(fx::pow(a, b), {8}, 1, a(ta), b(tb));
  const std::int32_t expected[] = {1024, -8, 0, -1, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) CHECK(p.data()[i] == expected[i]);
  // i8: 3^5 = 243 wraps to -13; 2^7 = 128 wraps to -128; 2^8 = 256 wraps to 0.
  constexpr fx::in<"c", std::int8_t, 1> c;
  constexpr fx::in<"d", std::int8_t, 1> d;
  const auto tc = make_tensor<std::int8_t>({3}, {3, 2, 2});
  const auto td = make_tensor<std::int8_t>({3}, {5, 7, 8});
  const auto q = check_pointwise(fx::pow(c, d), {3}, 1, c(tc), d(td));
  CHECK(q.data()[0] == -13);
  CHECK(q.data()[1] == -128);
  CHECK(q.data()[2] == 0);
}
