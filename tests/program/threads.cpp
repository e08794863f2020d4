// fx::cpu.threads(n): the thread count of one call, and runs of one program from several
// host threads at the same time (docs/backends.md, "Threads").
#include <omp.h>  // omp_get_max_threads

#include <thread>  // std::thread
#include <vector>

#include "common.hpp"

using namespace fusedsl_tests;

namespace {
constexpr fx::in<"x", float, 2> x;
constexpr fx::out<"y", float, 2> y;
constexpr fx::program softmax{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                  fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
}  // namespace

TEST_CASE("fx::cpu.threads(n) sets the thread count of the calls that pass it, in the calling thread only") {
  const int before = omp_get_max_threads();
  {
    const fx::cpu_detail::thread_count_scope scope(before + 3);
    CHECK(omp_get_max_threads() == before + 3);
  }
  CHECK(omp_get_max_threads() == before);
  {
    const fx::cpu_detail::thread_count_scope scope(0);  // 0: OpenMP's count, unchanged
    CHECK(omp_get_max_threads() == before);
  }
  const auto input = random_tensor<float>({300, 1000}, 3001);
  fx::tensor<float> expected({300, 1000});
  fx::run_reference(softmax, x(input), y(expected));
  for (const int n : {1, 2, 5, 0}) {
    fx::tensor<float> result({300, 1000});
    softmax.run(fx::cpu.threads(n), x(input), y(result));
    INFO("threads(" << n << ")");
    FUSEDSL_CHECK_CLOSE(result.view(), expected.view(), fx::testing::default_tolerance<float>(4));
    CHECK(omp_get_max_threads() == before);
  }
  CHECK(fx::cpu.threads(3).thread_count == 3);
  CHECK(fx::cpu_unfused.threads(2).fuse == false);
  CHECK_THROWS_WITH_AS(fx::cpu.threads(-2), doctest::Contains("fx::cpu.threads(-2): the thread count must be 0"),
                       fx::error);
}

TEST_CASE("one program runs from several host threads at once, each with its own thread count") {
  constexpr int runners = 4, rounds = 5;
  std::vector<fx::tensor<float>> inputs, expected, results;
  for (int i = 0; i < runners; ++i) {
    inputs.push_back(random_tensor<float>({64 + 37 * i, 500 + 300 * i}, 3100 + i));
    expected.emplace_back(inputs.back().sizes());
    results.emplace_back(inputs.back().sizes());
    fx::run_reference(softmax, x(inputs.back()), y(expected.back()));
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < runners; ++i)
    threads.emplace_back([&, i] {
      for (int round = 0; round < rounds; ++round) softmax.run(fx::cpu.threads(i), x(inputs[i]), y(results[i]));
    });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < runners; ++i) {
    INFO("runner " << i);
    FUSEDSL_CHECK_CLOSE(results[i].view(), expected[i].view(), fx::testing::default_tolerance<float>(4));
  }
}
