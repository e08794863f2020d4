// Expressions print in the DSL's own spelling (used by error messages and explain).
#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

TEST_CASE("expressions print in DSL spelling") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::param<"lr", float> lr;
  CHECK(fx::to_string(fx::exp(x - fx::max(x, fx::axis<1>))) == "exp(x - max(x, axis<1>))");
  CHECK(fx::to_string(x * 2 + lr) == "x * 2 + lr");
  CHECK(fx::to_string((x + 1) * 2) == "(x + 1) * 2");
  CHECK(fx::to_string(fx::sum(x, fx::axes<0, 1>, fx::drop_axes)) == "sum(x, axes<0, 1>, drop_axes)");
  CHECK(fx::to_string(fx::cast<fx::bfloat16>(-x)) == "cast<bf16>(-x)");
  CHECK(fx::to_string(fx::where(x > 0, x, 0.5)) == "where(x > 0, x, 0.5)");
  CHECK(fx::to_string(fx::var(x, fx::axis<-1>, fx::correction{0})) == "var(x, axis<-1>, correction 0)");
  CHECK(fx::to_string(fx::sum(x, fx::axis<0>, fx::accumulate<double>, fx::drop_axes)) ==
        "sum(x, axis<0>, accumulate f64, drop_axes)");
}
