// Plans of programs computed by nvcc's front end: the static_asserts below are
// the test (nvcc must fold the lowering and the whole scheduler); the test case
// only repeats them at run time.
#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

namespace {

constexpr fx::in<"x", float, 2> x;
constexpr fx::in<"gamma", float, 1> gamma;
constexpr fx::in<"beta", float, 1> beta;
constexpr fx::out<"y", float, 2> y;

// The programs are built inside templates: nvcc's host code spells out the type
// of a program deduced outside a template and loses the placeholder names in it
// ("'__T16' was not declared in this scope"), while a template is passed on as written.

/// Row softmax: two reductions and the pointwise division, one kernel.
template <int = 0>
constexpr int softmax_kernels() {
  return fx::kernel_count(fx::program{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                          fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)});
}

/// Layernorm with scale and shift: mean and variance of each row, then the normalisation, one kernel.
template <int = 0>
constexpr int layernorm_kernels() {
  return fx::kernel_count(
      fx::program{y = (x - fx::mean(x, fx::axis<1>)) * fx::rsqrt(fx::var(x, fx::axis<1>) + 1e-5f) * gamma + beta});
}

static_assert(softmax_kernels() == 1, "nvcc folds the plan of a softmax: one kernel");
static_assert(layernorm_kernels() == 1, "nvcc folds the plan of a layernorm: one kernel");

}  // namespace

TEST_CASE("nvcc folds the plans of programs") {
  CHECK(softmax_kernels() == 1);
  CHECK(layernorm_kernels() == 1);
}
