// Asking the scheduler what it decided and why: softmax over rows followed
// by a sum over columns. The column sum cannot join the row kernel, so the
// program runs as two kernels; fx::explain says which pairs were tried and
// what happened, fx::to_dot draws the kernels (render with Graphviz:
// `dot -Tsvg plan.dot -o plan.svg`).
//
//   example_explain [FILE.dot]   (writes plan.dot by default)
#include <cstdlib>   // EXIT_SUCCESS, EXIT_FAILURE
#include <fstream>   // std::ofstream
#include <iostream>  // std::cout

#include <fusedsl/fusedsl.hpp>

namespace fx = fusedsl;

int main(int argc, char** argv) {
  // explain: program
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::local<"e", float, 2> e;  // a named intermediate, never bound
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::out<"col_sum", float, 1> col_sum;
  constexpr fx::program prog{
      e = fx::exp(x - fx::max(x, fx::axis<1>)),
      y = e / fx::sum(e, fx::axis<1>),
      col_sum = fx::sum(y, fx::axis<0>, fx::drop_axes),
  };
  static_assert(fx::kernel_count(prog) == 2);
  // explain: end

  // explain: explain
  // Keep the pairs refused before scoring too, to see why col_sum stays apart.
  fx::fuse_config config;
  config.record_rejected = true;
  const fx::plan plan = fx::plan_of(prog, config);
  std::cout << fx::explain(plan);
  std::ofstream(argc > 1 ? argv[1] : "plan.dot") << fx::to_dot(plan);
  // explain: end

  return plan.group_count() == 2 ? EXIT_SUCCESS : EXIT_FAILURE;  // as the static_assert says
}
