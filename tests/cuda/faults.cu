// A gather's index out of range on CUDA: the kernel prints the op, the index and the axis and
// traps, and the run (or the copy after it) throws fusedsl::error with the sticky device-side
// error. An executable of its own: the trap leaves the process's CUDA context unusable.
#include <cstdint>  // std::int64_t

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>  // programs, fx::cuda

namespace fx = fusedsl;

TEST_CASE("a gather's index out of range is a device-side error, never a read") {
  constexpr fx::in<"logits", float, 2> logits;
  constexpr fx::in<"labels", std::int64_t, 1> labels;
  constexpr fx::out<"loss", float, 1> loss;
  constexpr fx::program cross_entropy{loss = fx::logsumexp(logits, fx::axis<1>, fx::drop_axes) -
                                             fx::take_along_axis(logits, labels, fx::axis<1>, fx::drop_axes)};
  const std::int64_t rows = 64, classes = 10;
  fx::tensor<float> x({rows, classes});
  fx::tensor<std::int64_t> y({rows});
  for (std::int64_t r = 0; r < rows; ++r) {
    y(r) = r % classes;
    for (std::int64_t c = 0; c < classes; ++c) x(r, c) = static_cast<float>(c);
  }
  y(3) = classes;  // one past the end
  const auto dx = x.to(fx::device::cuda);
  const auto dy = y.to(fx::device::cuda);
  fx::tensor<float> result({rows}, fx::device::cuda);
  CHECK_THROWS_AS(
      [&] {
        cross_entropy.run(fx::cuda(), logits(dx), labels(dy), loss(result));
        (void)result.to(fx::device::cpu);  // the trap is reported by the next CUDA call at the latest
      }(),
      fx::error);
}
