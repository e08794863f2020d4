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
  // Both reductions' operands are computed by the value's loop: it reads the larger one,
  // the sum's exp(t - max), not the max's t.
  constexpr fx::in<"m", bool, 2> m;
  constexpr auto t = fx::where(m, x * 0.125f, -INFINITY);
  constexpr fx::program masked{y = fx::exp(t - fx::max(t, fx::axis<1>)) /
                                   fx::sum(fx::exp(t - fx::max(t, fx::axis<1>)), fx::axis<1>)};
  static_assert(fx::cpu_detail::operand_source<decltype(masked), 0, -1>() == 1);
  static_assert(!fx::cpu_detail::keeps_operand<decltype(masked), 0, 0>());
  for (const fx::shape& sizes : {fx::shape{1000, 3}, fx::shape{300, 64}, fx::shape{40, 1023}}) {
    CAPTURE(fx::to_string(sizes));
    const auto input = fx::testing::random_tensor<float>(sizes, 8);
    auto mask = fx::tensor<bool>(sizes);
    for (std::int64_t i = 0; i < sizes.numel(); ++i) mask.data()[i] = (i * 7) % 5 != 0;
    auto fused = fx::tensor<float>(sizes), expected = fx::tensor<float>(sizes);
    masked.run(fx::cpu, x(input), m(mask), y(fused));
    fx::run_reference(masked, x(input), m(mask), y(expected));
    FUSEDSL_CHECK_CLOSE(fused.view(), expected.view(), kernel_classes::reduced_tolerance<float>());
  }

  // In place: the value overwrites the rows that the reductions read.
  constexpr fx::program in_place{z = fx::exp(z - fx::max(z, fx::axis<1>)) * 2.0f +
                                     fx::sum(fx::exp(z - fx::max(z, fx::axis<1>)), fx::axis<1>)};
  static_assert(fx::kernel_count(in_place) == 1);
  for (const fx::shape& sizes : {fx::shape{3, 1}, fx::shape{1000, 3}, fx::shape{300, 10}, fx::shape{5, 129},
                                 fx::shape{40, 1023}, fx::shape{2, 20000}}) {
    CAPTURE(fx::to_string(sizes));
    const auto input = fx::testing::random_tensor<float>(sizes, 7);
    auto fused = input.clone(), expected = input.clone();
    in_place.run(fx::cpu, z(fused));
    fx::run_reference(in_place, z(expected));
    FUSEDSL_CHECK_CLOSE(fused.view(), expected.view(), kernel_classes::reduced_tolerance<float>());
  }
}

TEST_CASE("short rows: several rows per chunk, groups of rows along the innermost kept axis, every reduction") {
  // Rows of at most a quarter of a chunk are evaluated several at a time (prepare_rows,
  // short_reduction_rows): rows of 1, of 2, 3, 4 and 8 (each a loop of its own,
  // add_rows_of_fixed_width), 5, 7 and 10, 32 (the limit) and 33 (one at a time), a column vector
  // repeated along them (repeat_along_rows: 2 and 4 a loop of their own), a
  // kept axis of 7 that a chunk's rows must not cross, views whose rows are not contiguous,
  // and 1, 2 and 3 threads (ranges that start inside a row). A layernorm's rsqrt(var + s)
  // is computed once per row from rows of 4 on (evaluate_rows_held), also when it reads a 0-d
  // tensor; rsqrt(z * z + 1) reads z, which moves along the row: it is computed per element.
  constexpr fx::in<"x", float, 3> x;
  constexpr fx::in<"b", float, 1> b;
  constexpr fx::in<"c", float, 3> c;
  constexpr fx::out<"y", float, 3> y;
  constexpr fx::out<"z", float, 3> z;
  constexpr fx::out<"a", std::int64_t, 3> a;
  constexpr fx::out<"v", float, 3> v;
  constexpr fx::out<"l", float, 3> l;
  constexpr fx::in<"s", float, 0> s;
  constexpr fx::out<"ln", float, 3> ln;
  constexpr fx::program prog{y = fx::exp(x - fx::max(x, fx::axis<2>)) /
                                 fx::sum(fx::exp(x - fx::max(x, fx::axis<2>)), fx::axis<2>),
                             z = x * 2.0f + b - c,
                             a = fx::argmax(x, fx::axis<2>),
                             v = fx::var(x, fx::axis<2>),
                             l = fx::logsumexp(x, fx::axis<2>),
                             ln = (x - fx::mean(x, fx::axis<2>)) *
                                      fx::rsqrt(fx::var(x, fx::axis<2>, fx::correction{0}) + s) +
                                  fx::rsqrt(z * z + 1.0f)};
  const int threads = omp_get_max_threads();
  for (const std::int64_t cols : {1, 2, 3, 4, 5, 7, 8, 10, 32, 33})
    for (const std::int64_t outer : {1, 5, 300}) {
      const fx::shape sizes{outer, 7, cols}, reduced{outer, 7, 1};
      const auto dense = fx::testing::random_tensor<float>(sizes, 51);
      const auto wide = fx::testing::random_tensor<float>({outer, 9, cols + 2}, 52);  // rows 2 apart, padded
      const auto bias = fx::testing::random_tensor<float>({cols}, 53);
      const auto column = fx::testing::random_tensor<float>({outer, 7, 1}, 54);
      const auto eps = fx::tensor<float>::full({}, 1e-3f);
      const auto padded = wide.slice(1, 1, 8, 1).slice(2, 2, cols + 2, 1);
      for (const auto& [binding, view] : {std::pair{"dense", dense.view()}, std::pair{"padded rows", padded}})
        for (int n : {1, 2, 3}) {
          omp_set_num_threads(n);
          const std::string what = std::string("short rows over ") + fx::to_string(sizes) + ", " + binding + ", " +
                                   std::to_string(n) + " threads";
          kernel_classes::check_ways(what, kernel_classes::reduced_tolerance<float>(), [&](kernel_classes::way how) {
            auto out_y = kernel_classes::fresh<float>(sizes), out_z = kernel_classes::fresh<float>(sizes);
            auto out_a = kernel_classes::fresh<std::int64_t>(reduced);
            auto out_v = kernel_classes::fresh<float>(reduced), out_l = kernel_classes::fresh<float>(reduced);
            auto out_n = kernel_classes::fresh<float>(sizes);
            kernel_classes::run(how, prog, x(view), b(bias), c(column), s(eps), y(out_y), z(out_z), a(out_a), v(out_v),
                                l(out_l), ln(out_n));
            return std::tuple{std::move(out_y), std::move(out_z), std::move(out_a),
                              std::move(out_v), std::move(out_l), std::move(out_n)};
          });
        }
      omp_set_num_threads(threads);
    }
}

TEST_CASE("few long rows in a fused group: split into parts when no node reads its reductions, else not") {
  // Rows fewer than 4 per thread and of 4 tiles or more. A group whose reductions no node of
  // it reads (several outputs of x, one of them summed) runs each row's fixed parts in
  // parallel, every node on one step of a part, and merges the parts after: it adds as the
  // reduction alone does (the same bits unfused and for any thread count). A group that reads
  // its reductions (softmax) runs whole rows per thread, or node by node when the rows are
  // fewer than the threads.
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"a", float, 2> a;
  constexpr fx::out<"t", float, 2> t;
  constexpr fx::out<"s", float, 1> s;
  constexpr fx::out<"m", std::int64_t, 1> m;
  constexpr fx::out<"v", float, 1> v;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program ends{a = x * 2.0f, t = fx::exp(x * 0.5f), s = fx::sum(t, fx::axis<1>, fx::drop_axes),
                             m = fx::argmax(x, fx::axis<1>, fx::drop_axes), v = fx::var(x, fx::axis<1>, fx::drop_axes)};
  static_assert(fx::kernel_count(ends) == 1);
  constexpr fx::program softmax{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                    fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
  const int threads = omp_get_max_threads();
  for (const fx::shape& sizes : {fx::shape{1, 70001}, fx::shape{3, 40000}, fx::shape{2, 300000}}) {
    const auto input = fx::testing::random_tensor<float>(sizes, 61);
    const fx::shape kept{sizes[0]};
    using outputs = std::tuple<fx::tensor<float>, fx::tensor<float>, fx::tensor<float>, fx::tensor<std::int64_t>,
                               fx::tensor<float>>;
    std::vector<outputs> by_threads;
    for (int n : {1, 2, 3, 5}) {
      omp_set_num_threads(n);
      const std::string what = "few long rows of " + fx::to_string(sizes) + ", " + std::to_string(n) + " threads";
      outputs fused, unfused;
      kernel_classes::check_ways(what, kernel_classes::reduced_tolerance<float>(), [&](kernel_classes::way how) {
        outputs o{kernel_classes::fresh<float>(sizes), kernel_classes::fresh<float>(sizes),
                  kernel_classes::fresh<float>({sizes[0]}), kernel_classes::fresh<std::int64_t>(kept),
                  kernel_classes::fresh<float>(kept)};
        auto& [oa, ot, os, om, ov] = o;
        kernel_classes::run(how, ends, x(input), a(oa), t(ot), s(os), m(om), v(ov));
        if (how == kernel_classes::way::fused) fused = {oa.clone(), ot.clone(), os.clone(), om.clone(), ov.clone()};
        if (how == kernel_classes::way::unfused) unfused = {oa.clone(), ot.clone(), os.clone(), om.clone(), ov.clone()};
        return o;
      });
      INFO(what);
      CHECK(kernel_classes::same_bits(std::get<2>(fused), std::get<2>(unfused)));
      CHECK(kernel_classes::same_bits(std::get<4>(fused), std::get<4>(unfused)));
      by_threads.push_back(std::move(fused));
      kernel_classes::check_ways("softmax over " + what, kernel_classes::reduced_tolerance<float>(),
                                 [&](kernel_classes::way how) {
                                   auto out = kernel_classes::fresh<float>(sizes);
                                   kernel_classes::run(how, softmax, x(input), y(out));
                                   return std::tuple{std::move(out)};
                                 });
    }
    omp_set_num_threads(threads);
    for (std::size_t k = 1; k < by_threads.size(); ++k) {
      INFO("few long rows of " << fx::to_string(sizes) << ": run " << k << " against one thread");
      CHECK(kernel_classes::same_bits(std::get<2>(by_threads[0]), std::get<2>(by_threads[k])));
      CHECK(kernel_classes::same_bits(std::get<3>(by_threads[0]), std::get<3>(by_threads[k])));
      CHECK(kernel_classes::same_bits(std::get<4>(by_threads[0]), std::get<4>(by_threads[k])));
    }
  }
}
