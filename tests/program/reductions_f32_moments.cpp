// mean, var, std, prod and argmax with ties of f32 against the oracle, and reductions accumulated in double.
#include "reductions.hpp"

using namespace fusedsl_tests;

TEST_CASE("mean, var, std, prod and argmax with ties of an f32 tensor match the oracle") {
  check_float_only_reductions<float>(805);
}

TEST_CASE("prod, std and logsumexp of f32 and the sum of bf16 accumulated in double match the oracle") {
  // Accumulated in double as the oracle does, the results are within a rounding of its own.
  constexpr fx::in<"x", float, 3> x;
  const auto tx = random_tensor<float>(reduction_input_sizes, 806, 0.6, 1.5);
  const tolerance rounded = fx::testing::default_tolerance<float>();
  check_against_oracle(fx::prod(x, fx::axis<-1>, fx::drop_axes, fx::accumulate<double>), {4, 7}, rounded, x(tx));
  check_against_oracle(fx::std(x, fx::axes<0, 2>, fx::accumulate<double>), {1, 7, 1}, rounded, x(tx));
  check_against_oracle(fx::logsumexp(x, fx::axes<>, fx::accumulate<double>), {1, 1, 1}, rounded, x(tx));
  constexpr fx::in<"b", fx::bfloat16, 3> b;
  check_against_oracle(fx::sum(b, fx::axis<0>, fx::accumulate<double>), {1, 7, 5},
                       fx::testing::default_tolerance<fx::bfloat16>(),
                       b(random_tensor<fx::bfloat16>(reduction_input_sizes, 807)));
}
