// 64-bit indexing: a pointwise op and a full reduction over 2^31 + 5 int8
// elements, checked exactly against a loop on the CPU (issue 6 item 4).
#include <cstdint>  // std::int8_t, std::int64_t

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>  // programs, fx::cuda

namespace fx = fusedsl;

TEST_CASE("2^31 + 5 int8 elements: x + 1 and sum(x), exact") {
  const std::int64_t n = (std::int64_t{1} << 31) + 5;
  fx::tensor<std::int8_t> host({n});
  for (std::int64_t i = 0; i < n; ++i) host.data()[i] = static_cast<std::int8_t>((i * 37 + i / 1000003) % 255 - 127);
  std::int64_t expected_sum = 0;
  for (std::int64_t i = 0; i < n; ++i) expected_sum += host.data()[i];
  constexpr fx::in<"x", std::int8_t, 1> x;
  constexpr fx::out<"y", std::int8_t, 1> y;
  constexpr fx::out<"s", std::int64_t, 0> s;
  constexpr fx::program prog{y = x + 1, s = fx::sum(x, fx::axes<>, fx::drop_axes)};
  fx::tensor<std::int64_t> sum = fx::tensor<std::int64_t>::full(fx::shape{}, 0, fx::device::cuda);
  fx::tensor<std::int8_t> result({n}, fx::device::cuda);
  {
    const fx::tensor<std::int8_t> device_x = host.to(fx::device::cuda);
    prog.run(fx::cuda(), x(device_x), y(result), s(sum));
  }
  CHECK(sum.to(fx::device::cpu)() == expected_sum);
  const fx::tensor<std::int8_t> back = result.to(fx::device::cpu);
  std::int64_t wrong = 0, first_wrong = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (back.data()[i] != static_cast<std::int8_t>(host.data()[i] + 1)) {
      if (first_wrong < 0) first_wrong = i;
      ++wrong;
    }
  }
  CHECK_MESSAGE(wrong == 0, wrong, " wrong elements, the first at ", first_wrong);
}
