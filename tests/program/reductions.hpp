// Shared by the reduction tests: each reduction written as a generic lambda,
// and the standard set of axis variants checked against the oracle.
#pragma once
#include "common.hpp"

namespace fusedsl_tests {

/// A reduction function as a value: `FUSEDSL_TEST_REDUCTION(sum)(x, fx::axis<1>)`.
#define FUSEDSL_TEST_REDUCTION(NAME) [](const auto& e, auto... options) { return fx::NAME(e, options...); }

/// Input sizes of the per-dtype reduction tests: odd extents, rank 3.
inline const fx::shape reduction_input_sizes{4, 7, 5};

/// Checks `op` of x (bound to `tx`, sizes [4, 7, 5]) against the oracle over
/// all axes (kept), the last axis (dropped, written straight into the
/// output) and axes 0 and 2 (kept, through `realize`, so the reduction goes
/// to a buffer that a pointwise loop reads).
template <class X, class T, class Op>
void check_reduction_variants(const X& x, const fx::tensor<T>& tx, Op op) {
  REQUIRE(tx.sizes() == reduction_input_sizes);
  const auto all = op(x, fx::axes<>);
  check_against_oracle(all, {1, 1, 1}, reduction_tolerance<value_t<decltype(all)>>(), x(tx));
  const auto last = op(x, fx::axis<-1>, fx::drop_axes);
  check_against_oracle(last, {4, 7}, reduction_tolerance<value_t<decltype(last)>>(), x(tx));
  const auto outer = fx::realize(op(x, fx::axes<0, 2>));
  check_against_oracle(outer, {1, 7, 1}, reduction_tolerance<value_t<decltype(outer)>>(), x(tx));
}

/// The reductions every dtype supports.
template <class X, class T>
void check_common_reductions(const X& x, const fx::tensor<T>& tx) {
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(sum));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(max));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(min));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(argmax));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(argmin));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(any));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(all));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(logsumexp));
}

/// sum, max, min, argmax, argmin, any, all and logsumexp of a T tensor in [-2, 2)
/// (integers: [-50, 50]).
template <class T>
void check_common_reductions_of(std::uint64_t seed) {
  constexpr fx::in<"x", T, 3> x;
  constexpr bool floating = fx::is_floating_point(fx::dtype_of<T>);
  check_common_reductions(x, random_tensor<T>(reduction_input_sizes, seed, floating ? -2.0 : -50.0,
                                              floating ? 2.0 : 50.0));
}

/// The reductions of floating-point dtypes only (mean, var, std), and prod
/// of x in [0.6, 1.5) (so that the product of 140 values stays finite), and
/// argmax of values with exact ties (small integers): the first one wins.
template <class T>
void check_float_only_reductions(std::uint64_t seed) {
  constexpr fx::in<"x", T, 3> x;
  const auto tx = random_tensor<T>(reduction_input_sizes, seed);
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(mean));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(var));
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(std));
  check_reduction_variants(x, random_tensor<T>(reduction_input_sizes, seed + 1, 0.6, 1.5),
                           FUSEDSL_TEST_REDUCTION(prod));
  check_reduction_variants(x, random_tensor<T>(reduction_input_sizes, seed + 2, -3.0, 3.0),
                           [](const auto& e, auto... options) {
                             return fx::argmax(fx::cast<std::int32_t>(e), options...);
                           });
}

/// Every reduction of an integer or bool dtype (mean, var and std need a
/// floating-point operand and do not compile on integers); prod of 140
/// values in [-50, 50] wraps around in i64, identically in both.
template <class T>
void check_integer_reductions(std::uint64_t seed) {
  constexpr fx::in<"x", T, 3> x;
  const auto tx = random_tensor<T>(reduction_input_sizes, seed, -50, 50);
  check_common_reductions(x, tx);
  check_reduction_variants(x, tx, FUSEDSL_TEST_REDUCTION(prod));
}

}  // namespace fusedsl_tests
