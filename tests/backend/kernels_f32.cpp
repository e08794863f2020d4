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

TEST_CASE("outputs of 16 MiB and more are written around the cache, aligned or not, in place or not") {
  constexpr fx::in<"x", float, 1> x;
  constexpr fx::out<"y", float, 1> y;
  constexpr fx::out<"h", fx::bfloat16, 1> h;
  constexpr fx::inout<"z", float, 1> z;
  constexpr fx::program scaled{y = x * 2.0f + 1.0f, h = x * 3.0f};
  constexpr fx::program in_place{z = z * 0.5f - 1.0f};
  const std::int64_t n = (std::int64_t{16} << 20) / 2 + 1001;  // beyond the threshold for bf16 too
  const auto input = fx::testing::random_tensor<float>({n}, 9);
  constexpr fx::testing::tolerance exact{0, 0};
  // Dense outputs, and outputs starting one element into their memory (the
  // stores reach 16-byte alignment after a scalar head).
  fx::tensor<float> dense({n}), wide({n + 1});
  fx::tensor<fx::bfloat16> half_dense({n}), half_wide({n + 1});
  for (int offset : {0, 1}) {
    CAPTURE(offset);
    auto out = offset ? wide.slice(0, 1, n + 1, 1) : dense.view();
    auto half_out = offset ? half_wide.slice(0, 1, n + 1, 1) : half_dense.view();
    scaled.run(fx::cpu, x(input), y(out), h(half_out));
    fx::tensor<float> expected({n});
    fx::tensor<fx::bfloat16> unused({n});
    fx::run_reference(scaled, x(input), y(expected), h(unused));
    // bf16: the value computed in float, rounded once (the oracle rounds from double).
    fx::tensor<fx::bfloat16> half_expected({n});
    for (std::int64_t i = 0; i < n; ++i) half_expected.data()[i] = static_cast<fx::bfloat16>(input.data()[i] * 3.0f);
    FUSEDSL_CHECK_CLOSE(out, expected.view(), exact);
    FUSEDSL_CHECK_CLOSE(half_out, half_expected.view(), exact);
  }
  auto updated = input.clone(), expected = input.clone();
  in_place.run(fx::cpu, z(updated));
  fx::run_reference(in_place, z(expected));
  FUSEDSL_CHECK_CLOSE(updated.view(), expected.view(), exact);
}
