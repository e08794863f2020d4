// The CPU kernel classes against the oracle for f32 (kernel_classes.hpp).
#include "kernel_classes.hpp"

namespace fx = fusedsl;

TEST_CASE("CPU kernel classes against the oracle: f32") { kernel_classes::check_all_kernel_classes<float>(); }

TEST_CASE("a row group computes a reduction's operand once, for the later nodes of its statement too") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::inout<"z", float, 2> z;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program softmax{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                    fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
  using S = decltype(softmax);
  // Distinct nodes of the statement: 0 the max, 1 the sum of exp(x - max).
  static_assert(fx::cpu_detail::operand_source<S, 0, -1>() == 1);  // the value reads the sum's operand
  static_assert(fx::cpu_detail::keeps_operand<S, 0, 1>());
  static_assert(!fx::cpu_detail::keeps_operand<S, 0, 0>());  // the max's operand is a leaf: nothing to keep
  constexpr fx::program sum_of_leaf{y = x - fx::sum(x, fx::axis<1>)};
  static_assert(fx::cpu_detail::operand_source<decltype(sum_of_leaf), 0, -1>() == -1);

  // In place: the value overwrites the rows that the reductions read.
  constexpr fx::program in_place{z = fx::exp(z - fx::max(z, fx::axis<1>)) * 2.0f +
                                     fx::sum(fx::exp(z - fx::max(z, fx::axis<1>)), fx::axis<1>)};
  static_assert(fx::kernel_count(in_place) == 1);
  for (const fx::shape& sizes : {fx::shape{3, 1}, fx::shape{5, 129}, fx::shape{40, 1023}, fx::shape{2, 20000}}) {
    CAPTURE(fx::to_string(sizes));
    const auto input = fx::testing::random_tensor<float>(sizes, 7);
    auto fused = input.clone(), expected = input.clone();
    in_place.run(fx::cpu, z(fused));
    fx::run_reference(in_place, z(expected));
    FUSEDSL_CHECK_CLOSE(fused.view(), expected.view(), kernel_classes::reduced_tolerance<float>());
  }
}
