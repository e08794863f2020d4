// Outputs of 16 MiB and more, written with non-temporal stores. Compiled
// at the x86-64 baseline (16-byte stores, in test_cpu_kernels) and, where
// this machine runs them, for AVX2 (32-byte stores, test_cpu_streaming_avx2).
#include <cstdint>  // std::int64_t

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>
#include <support/compare.hpp>  // FUSEDSL_CHECK_CLOSE, tolerance
#include <support/random.hpp>   // random_tensor

namespace fx = fusedsl;

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
  // Dense outputs, and outputs starting one and four elements into their
  // memory: the stores reach their alignment (16 bytes, 32 with AVX) after
  // a scalar head; four floats in are 16-byte aligned but not 32.
  fx::tensor<float> wide({n + 4});
  fx::tensor<fx::bfloat16> half_wide({n + 4});
  for (int offset : {0, 1, 4}) {
    CAPTURE(offset);
    auto out = wide.slice(0, offset, offset + n, 1);
    auto half_out = half_wide.slice(0, offset, offset + n, 1);
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

TEST_CASE("streamed outputs of short rows: chunks of whole rows whose ends split cache lines") {
  // Rows of 3 go 42 to a chunk (126 elements): most chunks start and end inside a cache
  // line, which the stores must write whole (store_chunk), at either offset.
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::in<"b", float, 1> b;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::out<"h", fx::bfloat16, 2> h;
  constexpr fx::program biased{y = x + b, h = x * b};
  const std::int64_t rows = (std::int64_t{16} << 20) / 2 / 3 + 5;  // bf16 beyond the threshold too
  const auto input = fx::testing::random_tensor<float>({rows, 3}, 10);
  const auto bias = fx::testing::random_tensor<float>({3}, 11);
  constexpr fx::testing::tolerance exact{0, 0};
  fx::tensor<float> wide({rows * 3 + 1});
  fx::tensor<fx::bfloat16> half_wide({rows * 3 + 1});
  for (int offset : {0, 1}) {
    CAPTURE(offset);
    auto out = wide.slice(0, offset, offset + rows * 3, 1).reshape({rows, 3});
    auto half_out = half_wide.slice(0, offset, offset + rows * 3, 1).reshape({rows, 3});
    biased.run(fx::cpu, x(input), b(bias), y(out), h(half_out));
    fx::tensor<float> expected({rows, 3});
    fx::tensor<fx::bfloat16> half_expected({rows, 3});
    for (std::int64_t i = 0; i < rows * 3; ++i) {
      expected.data()[i] = input.data()[i] + bias.data()[i % 3];
      half_expected.data()[i] = static_cast<fx::bfloat16>(input.data()[i] * bias.data()[i % 3]);
    }
    FUSEDSL_CHECK_CLOSE(out, expected.view(), exact);
    FUSEDSL_CHECK_CLOSE(half_out, half_expected.view(), exact);
  }
}
