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

TEST_CASE("column reductions whose states the CPU keeps member by member match the oracle") {
  // var and std (mean, m2, count), logsumexp (max, sum) and argmax (value, index): each task of
  // the column kernel keeps such states as arrays of members while it adds its rows. Two blocks
  // of columns and a short third, rows cut into parts of odd lengths (rows two at a time and one
  // left), a transposed view, and ties for argmax (values from a few levels).
  constexpr fx::in<"x", float, 2> x;
  const auto wide = random_tensor<float>({7, 5000}, 808);
  const auto tall = random_tensor<float>({1001, 2100}, 809);
  const auto across = random_tensor<float>({300, 101}, 810);
  for (const auto& view : {wide.view(), tall.view(), across.view().transpose(0, 1)}) {
    const std::int64_t columns = view.size(1);
    INFO(view.size(0) << " x " << columns << ", strides " << view.stride(0) << ", " << view.stride(1));
    check_against_oracle(fx::var(x, fx::axis<0>, fx::drop_axes), {columns}, reduction_tolerance<float>(), x(view));
    check_against_oracle(fx::std(x, fx::axis<0>, fx::drop_axes, fx::correction{0}), {columns},
                         reduction_tolerance<float>(), x(view));
    check_against_oracle(fx::logsumexp(x, fx::axis<0>, fx::drop_axes), {columns}, reduction_tolerance<float>(),
                         x(view));
    check_against_oracle(fx::argmax(fx::floor(x * 2.0f), fx::axis<0>, fx::drop_axes), {columns}, tolerance{0, 0},
                         x(view));
  }
}

TEST_CASE("row reductions that add whole chunks read a float operand where it lies, strided or broadcast too") {
  // var, logsumexp and argmax add a chunk at once: over a float leaf they read its chunk in
  // place (memory when contiguous, the chunk's copy when strided or broadcast). Rows of 200 and
  // 1000 (one and several chunks, a short last one), every other column, a row broadcast down.
  constexpr fx::in<"x", float, 2> x;
  const auto dense = random_tensor<float>({37, 1000}, 811);
  const auto spaced = random_tensor<float>({37, 400}, 812);
  const auto one_row = random_tensor<float>({1, 200}, 813);
  for (const auto& view : {dense.view(), dense.view().slice(1, 0, 200), spaced.view().slice(1, 0, 400, 2),
                           one_row.view().expand({37, 200}), dense.view().transpose(0, 1).slice(1, 0, 30)}) {
    const std::int64_t rows = view.size(0);
    INFO(rows << " x " << view.size(1) << ", strides " << view.stride(0) << ", " << view.stride(1));
    check_against_oracle(fx::var(x, fx::axis<1>, fx::drop_axes), {rows}, reduction_tolerance<float>(), x(view));
    check_against_oracle(fx::logsumexp(x, fx::axis<1>, fx::drop_axes), {rows}, reduction_tolerance<float>(), x(view));
    check_against_oracle(fx::argmax(fx::floor(x * 2.0f), fx::axis<1>, fx::drop_axes), {rows}, tolerance{0, 0}, x(view));
    check_against_oracle(fx::argmax(x, fx::axis<1>, fx::drop_axes), {rows}, tolerance{0, 0}, x(view));
  }
}
