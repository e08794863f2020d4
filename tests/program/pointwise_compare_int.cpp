// Comparisons, bitwise operators, shifts and remainders on i64, i32, i16, i8,
// u8 and bool: the CPU executor against the oracle and against torch's values.
#include "arith.hpp"

using namespace fusedsl_tests;

TEST_CASE_TEMPLATE("all comparisons on i64 and i32 match the oracle and give bool", T, std::int64_t, std::int32_t) {
  check_comparisons<T, true>();
}
TEST_CASE_TEMPLATE("comparisons on i16, i8, u8 and bool match the oracle and give bool", T, std::int16_t, std::int8_t,
                   std::uint8_t, bool) {
  check_comparisons<T, false>();
}

// Three widths and signedness cover the rules (the width enters only as sizeof(T)).
TEST_CASE_TEMPLATE("bitwise operators and shifts match torch's results and the oracle", T, std::int64_t, std::int8_t,
                   std::uint8_t) {
  constexpr fx::in<"a", T, 1> a;
  constexpr fx::in<"b", T, 1> b;
  constexpr bool is_signed = std::is_signed_v<T>;
  constexpr double width = 8 * sizeof(T);
  // Shift counts inside the width, at it, past it, and (signed) negative: torch gives 0 for
  // <<, the sign fill for >>, beyond the width or below 0.
  const auto ta = make_tensor<T>({6}, {5, is_signed ? -5.0 : 200.0, 7, 1, 100, is_signed ? -128.0 : 128.0});
  const auto tb =
      make_tensor<T>({6}, {1, 2, width - 1, width, width + 3 < 127 ? width + 3 : 127, is_signed ? -1.0 : 3.0});
  check_each(std::make_tuple((a & b) + (a | b) * 3 + (a ^ b) * 5 + (~a << 1), (a << b) - (a >> b),
                             fx::sign(a) + fx::floor(a) + fx::ceil(a) + fx::trunc(a) + fx::round(a)),
             {6}, {1, 1, 1}, a(ta), b(tb));
  fx::tensor<T> shifted({6}), back({6});
  constexpr fx::out<"l", T, 1> l;
  constexpr fx::out<"r", T, 1> r;
  constexpr fx::program shifts{l = a << b, r = a >> b};
  shifts.run(fx::cpu, a(ta), b(tb), l(shifted), r(back));
  CHECK(shifted(0) == T(10));
  CHECK(shifted(3) == T(0));  // by the width: 0
  CHECK(shifted(4) == T(0));  // past it
  CHECK(back(4) == T(0));     // 100 >> past the width: the sign fill of a positive value
  if constexpr (is_signed) {
    CHECK(shifted(5) == T(0));                           // negative count
    CHECK(back(1) == T(-2));                             // -5 >> 2: arithmetic
    CHECK(back(5) == T(-1));                             // -128 >> -1: the sign fill
    CHECK(shifted(2) == std::numeric_limits<T>::min());  // 7 << (width - 1): only the top bit is left
  }
}

TEST_CASE("bitwise operators on bool are logical; bool with integers promotes as torch") {
  constexpr fx::in<"p", bool, 1> p;
  constexpr fx::in<"q", bool, 1> q;
  constexpr fx::in<"k", std::int32_t, 1> k;
  const auto tp = make_tensor<bool>({4}, {1, 1, 0, 0}), tq = make_tensor<bool>({4}, {1, 0, 1, 0});
  const auto tk = make_tensor<std::int32_t>({4}, {1, 3, 2, 0});
  static_assert(decltype(p & k)::value_dtype == fx::dtype::i32 && decltype(~p)::value_dtype == fx::dtype::boolean);
  const auto results = std::make_tuple(p & q, p | q, p ^ q, ~p, p & k);
  check_each(results, {4}, {1, 1, 1, 1, 1}, p(tp), q(tq), k(tk));
  constexpr fx::out<"n", bool, 1> n;
  fx::tensor<bool> tn({4});
  fx::program{n = ~p ^ q}.run(fx::cpu, p(tp), q(tq), n(tn));
  const bool expected[] = {true, false, false, true};  // !p != q
  for (int i = 0; i < 4; ++i) CHECK(tn(i) == expected[i]);
}

TEST_CASE_TEMPLATE("integer % and fx::fmod give torch's values; a divisor of 0 is an error of the run", T, std::int8_t,
                   std::uint8_t) {
  constexpr fx::in<"a", T, 1> a;
  constexpr fx::in<"b", T, 1> b;
  constexpr fx::out<"r", T, 1> r;
  constexpr fx::out<"f", T, 1> f;
  constexpr bool is_signed = std::is_signed_v<T>;
  // Every sign combination, an exact multiple, and the lowest value by -1 (no overflow trap).
  const auto ta = make_tensor<T>({6}, {7, is_signed ? -7.0 : 250.0, 7, is_signed ? -7.0 : 9.0, 12,
                                       is_signed ? double(std::numeric_limits<T>::min()) : 255.0});
  const auto tb =
      make_tensor<T>({6}, {3, 3, is_signed ? -3.0 : 4.0, is_signed ? -3.0 : 5.0, 4, is_signed ? -1.0 : 16.0});
  check_each(std::make_tuple(a % b, fx::fmod(a, b)), {6}, {1, 1}, a(ta), b(tb));
  constexpr fx::program remainders{r = a % b, f = fx::fmod(a, b)};
  fx::tensor<T> tr({6}), tf({6});
  remainders.run(fx::cpu, a(ta), b(tb), r(tr), f(tf));
  if constexpr (is_signed) {
    const double python[] = {1, 2, -2, -1, 0, 0}, c[] = {1, -1, 1, -1, 0, 0};  // torch.remainder, torch.fmod
    for (int i = 0; i < 6; ++i) CHECK(tr(i) == T(python[i]));
    for (int i = 0; i < 6; ++i) CHECK(tf(i) == T(c[i]));
  } else {
    CHECK(tr(1) == T(250 % 3));
    CHECK(tf(5) == T(255 % 16));
  }
  const auto zero = make_tensor<T>({6}, {3, 3, 3, 0, 3, 3});
  CHECK_THROWS_WITH_AS(remainders.run(fx::cpu, a(ta), b(zero), r(tr), f(tf)),
                       doctest::Contains("integer division by zero: a divisor of an integer `%` or fx::fmod was 0"),
                       fx::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(remainders, a(ta), b(zero), r(tr), f(tf)),
                       doctest::Contains("run_reference: integer division by zero"), fx::error);
  remainders.run(fx::cpu, a(ta), b(tb), r(tr), f(tf));  // a fault does not outlive its run
}
