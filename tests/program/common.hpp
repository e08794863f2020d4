/// @file common.hpp
/// Helpers shared by the program tests: run a one-statement program with the
/// CPU executor and with the oracle (`fx::run_reference`) and compare them.
#pragma once
#include <cmath>       // std::isnan
#include <functional>  // std::cref
#include <cstdint>     // std::int64_t
#include <limits>      // std::numeric_limits
#include <string>      // std::string
#include <tuple>       // std::tuple
#include <utility>     // std::index_sequence
#include <vector>      // std::vector

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>
#include <support/compare.hpp>  // FUSEDSL_CHECK_CLOSE, default_tolerance
#include <support/random.hpp>   // random_tensor

namespace fusedsl_tests {

namespace fx = fusedsl;
using fx::testing::random_tensor;
using fx::testing::tolerance;

/// A value that no op in these tests produces, so an element the program
/// forgot to write shows up as a mismatch.
template <class T>
T sentinel() {
  if constexpr (std::is_same_v<T, bool>) return true;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(std::numeric_limits<T>::max() - 3);
  else return static_cast<T>(-12345.0f);
}

/// Tolerances for reductions (DESIGN.md section 7 "reductions looser"): the
/// CPU kernels accumulate f32 (and f16/bf16) in float over up to ~1000
/// elements, the oracle in double, so the error grows with the count; the
/// atol covers sums that cancel to nearly 0. Integers and bool stay exact.
template <class T>
constexpr tolerance reduction_tolerance() {
  constexpr fx::dtype d = fx::dtype_of<T>;
  if constexpr (!fx::is_floating_point(d)) return {0, 0};
  else if constexpr (d == fx::dtype::f64) return {1e-11, 1e-11};
  else if constexpr (d == fx::dtype::f32) return {2e-5, 2e-4};
  else if constexpr (d == fx::dtype::f16) return {2e-3, 2e-3};
  else return {1.6e-2, 1e-2};
}

/// The element type of expression `E`'s value.
template <class E>
using value_t = fx::element_t<E::value_dtype>;

/// Calls `f(bindings...)` with only those of `bindings` whose placeholder or
/// param program `P` uses (a program rejects bindings it does not use, and
/// the helpers below pass one set of bindings to many one-value programs).
template <class P, class F, class... Bindings>
void with_used_bindings(F&& f, const Bindings&... bindings) {
  const auto used = fx::hana::filter(fx::hana::make_tuple(std::cref(bindings)...), [](auto ref) {
    using B = typename decltype(ref)::type;
    return fx::hana::any_of(P::named_leaves, [](auto t) {
      return fx::hana::bool_c<(decltype(t)::type::name == B::placeholder_type::name)>;
    });
  });
  fx::hana::unpack(used, [&](auto... refs) { f(refs.get()...); });
}

/// Default of the `OutRank` arguments below: the value's own rank.
inline constexpr int value_rank = -100;

/// Checks the executor's output `actual` of `value` against the oracle's
/// `expected` within `tol`, naming the value if they differ.
template <class E, class T>
void check_output(const E& value, const fx::shape& out_sizes, const fx::tensor<T>& actual,
                  const fx::tensor<T>& expected, tolerance tol) {
  INFO("value: ", fx::to_string(value), " (", fx::name(E::value_dtype), ", out sizes ", fx::to_string(out_sizes), ")");
  FUSEDSL_CHECK_CLOSE(actual.view(), expected.view(), tol);
}

/// Runs `result = value` with the CPU executor and with the oracle into
/// outputs of `out_sizes` (pre-filled with a sentinel), checks that they
/// agree within `tol`, and returns the executor's output. The output
/// placeholder has rank `OutRank` (by default the value's), so a value can
/// also be broadcast into a larger output.
template <int OutRank = value_rank, class E, class... Bindings>
fx::tensor<value_t<E>> check_against_oracle(const E& value, const fx::shape& out_sizes, tolerance tol,
                                            const Bindings&... bindings) {
  using R = value_t<E>;
  constexpr fx::out<"result", R, OutRank == value_rank ? E::rank : OutRank> result;
  const fx::program prog{result = value};
  auto actual = fx::tensor<R>::full(out_sizes, sentinel<R>());
  auto expected = fx::tensor<R>::full(out_sizes, sentinel<R>());
  with_used_bindings<decltype(prog)>(
      [&](const auto&... used) {
        prog.run(fx::cpu, result(actual), used...);
        fx::run_reference(prog, result(expected), used...);
      },
      bindings...);
  check_output(value, out_sizes, actual, expected, tol);
  return actual;
}

/// `check_against_oracle` with the default tolerance of the result type for `ops` ops.
template <int OutRank = value_rank, class E, class... Bindings>
fx::tensor<value_t<E>> check_pointwise(const E& value, const fx::shape& out_sizes, int ops,
                                       const Bindings&... bindings) {
  return check_against_oracle<OutRank>(value, out_sizes, fx::testing::default_tolerance<value_t<E>>(ops), bindings...);
}

/// Only the oracle: `result = value` into a new tensor of `out_sizes`.
template <class E, class... Bindings>
fx::tensor<value_t<E>> reference_value(const E& value, const fx::shape& out_sizes, const Bindings&... bindings) {
  using R = value_t<E>;
  constexpr fx::out<"result", R, E::rank> result;
  const fx::program prog{result = value};
  auto expected = fx::tensor<R>::full(out_sizes, sentinel<R>());
  with_used_bindings<decltype(prog)>([&](const auto&... used) { fx::run_reference(prog, result(expected), used...); },
                                     bindings...);
  return expected;
}

/// How one value of `check_each` is compared: its output sizes and tolerance.
struct expect {
  fx::shape sizes;
  tolerance tol;
};

/// The name of check_each's output I: "r00" to "r99".
template <std::size_t I>
constexpr fx::fixed_string<4> result_name() {
  static_assert(I < 100, "check_each takes at most 100 values");
  const char text[4] = {'r', static_cast<char>('0' + I / 10), static_cast<char>('0' + I % 10), '\0'};
  return fx::fixed_string<4>(text);
}

/// Each value of `values` as an output of one program (`specs[i]`: output i's
/// sizes and tolerance), run by the CPU executor and by the oracle, each
/// output checked as `check_against_oracle` checks its one. One program for
/// all the values: each program instantiates the executor once, and its
/// code is most of a test file's compile time.
template <class... E, class... Bindings>
void check_each(const std::tuple<E...>& values, const std::vector<expect>& specs, const Bindings&... bindings) {
  REQUIRE(specs.size() == sizeof...(E));
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    constexpr auto outputs = std::make_tuple(fx::out<result_name<I>(), value_t<E>, E::rank>{}...);
    const fx::program prog{(std::get<I>(outputs) = std::get<I>(values))...};
    auto actual = std::make_tuple(fx::tensor<value_t<E>>::full(specs[I].sizes, sentinel<value_t<E>>())...);
    auto expected = std::make_tuple(fx::tensor<value_t<E>>::full(specs[I].sizes, sentinel<value_t<E>>())...);
    with_used_bindings<decltype(prog)>(
        [&](const auto&... used) {
          prog.run(fx::cpu, std::get<I>(outputs)(std::get<I>(actual))..., used...);
          fx::run_reference(prog, std::get<I>(outputs)(std::get<I>(expected))..., used...);
        },
        bindings...);
    (check_output(std::get<I>(values), specs[I].sizes, std::get<I>(actual), std::get<I>(expected), specs[I].tol), ...);
  }
  (std::index_sequence_for<E...>{});
}

/// `check_each` of pointwise values that all have `sizes`; `ops[i]` scales the
/// default tolerance of value i's dtype (ops in sequence).
template <class... E, class... Bindings>
void check_each(const std::tuple<E...>& values, const fx::shape& sizes, std::initializer_list<int> ops,
                const Bindings&... bindings) {
  REQUIRE(ops.size() == sizeof...(E));
  std::vector<expect> specs;
  const int* op = ops.begin();
  ((specs.push_back({sizes, fx::testing::default_tolerance<value_t<E>>(*op++)})), ...);
  check_each(values, specs, bindings...);
}

/// A tensor of `sizes` holding `values` in row-major order.
template <class T>
fx::tensor<T> make_tensor(const fx::shape& sizes, std::initializer_list<double> values) {
  fx::tensor<T> t(sizes);
  REQUIRE(static_cast<std::int64_t>(values.size()) == t.numel());
  std::int64_t i = 0;
  for (const double v : values) t.data()[i++] = static_cast<T>(v);
  return t;
}

/// Element `i` of a tensor's row-major order as double.
template <class T>
double at(const fx::tensor<T>& t, std::int64_t i) {
  return static_cast<double>(t.data()[i]);
}

}  // namespace fusedsl_tests
