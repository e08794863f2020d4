// Broadcasting by rank, rank-0 placeholders, and index leaves and random
// numbers (which take the sizes of the space they are broadcast into): the CPU
// executor against the oracle and against hand-computed values.
#include "common.hpp"

using namespace fusedsl_tests;

TEST_CASE("broadcasting: [3, 1] + [1, 4] and [4] + [3, 4] give [3, 4]") {
  constexpr fx::in<"a", float, 2> a;
  constexpr fx::in<"b", float, 2> b;
  constexpr fx::in<"c", float, 1> c;
  constexpr fx::in<"m", float, 2> m;
  const auto ta = random_tensor<float>({3, 1}, 901);
  const auto tb = random_tensor<float>({1, 4}, 902);
  const auto tc = random_tensor<float>({4}, 903);
  const auto tm = random_tensor<float>({3, 4}, 904);
  const auto outer = check_pointwise(a + b, {3, 4}, 1, a(ta), b(tb));
  const auto rows = check_pointwise(c + m, {3, 4}, 1, c(tc), m(tm));
  const auto three = check_pointwise(a * b - c, {3, 4}, 2, a(ta), b(tb), c(tc));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(outer(i, j) == ta(i, 0) + tb(0, j));
      CHECK(rows(i, j) == tc(j) + tm(i, j));
      CHECK(three(i, j) == doctest::Approx(ta(i, 0) * tb(0, j) - tc(j)).epsilon(1e-6));
    }
  // The value broadcasts to a larger output too: [3, 1] + [1, 4] written into [2, 3, 4].
  const auto lifted = check_pointwise<3>(a + b, {2, 3, 4}, 1, a(ta), b(tb));
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(lifted(k, i, j) == ta(i, 0) + tb(0, j));
  // And [4] into [3, 4]: every row is c.
  const auto repeated = check_pointwise<2>(c * 1.0f, {3, 4}, 1, c(tc));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(repeated(i, j) == tc(j));
}

TEST_CASE("rank-0 placeholders broadcast against any rank and can be outputs") {
  constexpr fx::in<"s", float, 0> s;
  constexpr fx::in<"x", float, 2> x;
  const auto ts = make_tensor<float>({}, {1.5});
  const auto tx = random_tensor<float>({3, 7}, 905);
  const auto scaled = check_pointwise(x * s + s, {3, 7}, 2, x(tx), s(ts));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j) CHECK(scaled(i, j) == doctest::Approx(tx(i, j) * 1.5f + 1.5f));
  // A rank-0 output: the sum of all elements, dropped to rank 0.
  const auto total =
      check_against_oracle(fx::sum(x, fx::axes<>, fx::drop_axes), {}, reduction_tolerance<float>(), x(tx));
  double expected = 0;
  for (std::int64_t i = 0; i < tx.numel(); ++i) expected += tx.data()[i];
  CHECK(total.data()[0] == doctest::Approx(expected).epsilon(1e-5));
  // Rank 0 with rank 0.
  const auto square = check_pointwise(s * s, {}, 1, s(ts));
  CHECK(square.data()[0] == 2.25f);
}

// fx::index<A>: the position along axis A of the space a value is computed in
// (the statement's target; a reduction's operand), an int64 computed by the
// kernels, never read from memory.
static_assert(decltype(fx::index<1> * 0.5f)::value_dtype == fx::dtype::f32);  // a floating scalar: f32
static_assert(decltype(fx::index<1> + 1)::value_dtype == fx::dtype::i64);
static_assert(decltype(fx::index<1> / 2)::value_dtype == fx::dtype::f32);  // true division
static_assert(decltype(fx::index<0> + fx::in<"i", std::int32_t, 1>{})::value_dtype == fx::dtype::i64);
static_assert(decltype(fx::index<0> * fx::in<"h", fx::bfloat16, 1>{})::value_dtype == fx::dtype::bf16);
static_assert(decltype(fx::index<-2>)::rank == 2 && decltype(fx::index<2>)::rank == 3);

TEST_CASE("index leaves: iotas over 2-d and 3-d targets, their views and dynamic ranks") {
  constexpr fx::out<"y", std::int64_t, 2> y;
  constexpr fx::program iota{y = fx::index<0> * 10 + fx::index<1>};
  static_assert(fx::kernel_count(iota) == 1);
  CHECK(fx::to_string(fx::index<0> * 10 + fx::index<-1>) == "index<0> * 10 + index<-1>");
  // The target fixes the space; a transposed and a sliced target are written through their views.
  fx::tensor<std::int64_t> plain({3, 4}), transposed({4, 3}), sliced({3, 9}), expected({3, 4});
  iota.run(fx::cpu, y(plain));
  fx::run_reference(iota, y(expected));
  iota.run(fx::cpu, y(transposed.view().transpose(0, 1)));
  iota.run(fx::cpu, y(sliced.view().slice(1, 1, 9, 2)));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(plain(i, j) == 10 * i + j);
      CHECK(expected(i, j) == 10 * i + j);
      CHECK(transposed(j, i) == 10 * i + j);
      CHECK(sliced(i, 1 + 2 * j) == 10 * i + j);
    }
  // 3-d, negative axes, rows longer than a CPU chunk, mixed with a broadcast input.
  constexpr fx::in<"b", float, 1> b;
  const auto tb = random_tensor<float>({300}, 906);
  const auto cube =
      check_pointwise<3>(fx::index<0> * 1000 + fx::index<-2> * 100.0f + fx::index<-1> + b, {2, 3, 300}, 2, b(tb));
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 300; ++j)
        CHECK(cube(k, i, j) == doctest::Approx(1000 * k + 100 * i + j + tb(j)).epsilon(1e-6));
  // fx::eval's target has a dynamic rank: the axes are checked when it runs.
  fx::tensor<float> halves({2, 5}), flat({5});
  fx::eval(halves, fx::index<0> * 10 + fx::index<1> * 0.5f);
  CHECK(halves(1, 3) == 11.5f);
  CHECK_THROWS_WITH_AS(fx::eval(flat, fx::index<0> * 10 + fx::index<1> * 0.5f),
                       "fusedsl: the statement eval target = index<0> * 10 + index<1> * 0.5 reads fx::index of an "
                       "axis that placeholder \"eval target\" of rank 1 does not have: use an axis in [-rank, rank) "
                       "of the target",
                       fusedsl::error);
}

TEST_CASE("index leaves: a causal softmax is one kernel, causal sums of rows and columns") {
  constexpr fx::in<"x", float, 2> x;
  constexpr auto masked = fx::where(fx::index<0> < fx::index<1>, -std::numeric_limits<float>::infinity(), x);
  constexpr auto e = fx::exp(masked - fx::max(masked, fx::axis<1>));
  constexpr fx::out<"p", float, 2> p;
  constexpr fx::program causal{p = e / fx::sum(e, fx::axis<1>)};
  static_assert(fx::kernel_count(causal) == 1);
  for (const fx::shape& sizes : {fx::shape{37, 37}, fx::shape{5, 300}}) {
    const auto tx = random_tensor<float>(sizes, 907);
    const auto probabilities =
        check_against_oracle(e / fx::sum(e, fx::axis<1>), sizes, reduction_tolerance<float>(), x(tx));
    for (std::int64_t i = 0; i < sizes[0]; ++i) {
      double total = 0;
      for (std::int64_t j = 0; j < sizes[1]; ++j) {
        if (j > i) CHECK(probabilities(i, j) == 0.0f);
        total += probabilities(i, j);
      }
      CHECK(total == doctest::Approx(1).epsilon(1e-5));
    }
  }
  // Inside a reduction the space is its operand's: row i sums x[i, :i+1] (a row
  // reduction), column j sums x[:j+1, j] (a column reduction).
  const auto tx = random_tensor<float>({40, 40}, 908);
  const auto rows = check_against_oracle(fx::sum(fx::where(fx::index<1> <= fx::index<0>, x, 0), fx::axis<1>), {40, 1},
                                         reduction_tolerance<float>(), x(tx));
  const auto columns = check_against_oracle(fx::sum(fx::where(fx::index<0> <= fx::index<1>, x, 0), fx::axis<0>),
                                            {1, 40}, reduction_tolerance<float>(), x(tx));
  double row = 0, column = 0;
  for (int k = 0; k <= 20; ++k) row += tx(20, k), column += tx(k, 20);
  CHECK(rows(20, 0) == doctest::Approx(row).epsilon(1e-5));
  CHECK(columns(0, 20) == doctest::Approx(column).epsilon(1e-5));
}

TEST_CASE("index leaves: fused statements of one space, and a reduction of a dynamic rank") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::out<"z", float, 2> z;
  constexpr fx::program scaled{y = x * fx::index<0>, z = y - fx::index<1>};
  static_assert(fx::kernel_count(scaled) == 1);
  const auto tx = random_tensor<float>({6, 200}, 909);
  fx::tensor<float> ty({6, 200}), tz({6, 200}), ry({6, 200}), rz({6, 200});
  scaled.run(fx::cpu, x(tx), y(ty), z(tz));
  fx::run_reference(scaled, x(tx), y(ry), z(rz));
  FUSEDSL_CHECK_CLOSE(tz.view(), rz.view(), fx::testing::default_tolerance<float>(2));
  CHECK(tz(5, 7) == doctest::Approx(tx(5, 7) * 5 - 7).epsilon(1e-6));
  // A dynamic-rank operand: the axes count from the end of its run-time rank.
  constexpr fx::in<"d", float, fx::dynamic_rank> d;
  constexpr fx::out<"s", float, fx::dynamic_rank> s;
  constexpr fx::program causal_sums{s = fx::sum(fx::where(fx::index<-1> <= fx::index<-2>, d, 0.0f), fx::axis<-1>)};
  const auto td = random_tensor<float>({2, 5, 5}, 910);
  fx::tensor<float> ts({2, 5, 1}), rs({2, 5, 1});
  causal_sums.run(fx::cpu, d(td), s(ts));
  fx::run_reference(causal_sums, d(td), s(rs));
  FUSEDSL_CHECK_CLOSE(ts.view(), rs.view(), reduction_tolerance<float>());
  CHECK(ts(1, 2, 0) == doctest::Approx(td(1, 2, 0) + td(1, 2, 1) + td(1, 2, 2)).epsilon(1e-5));
}

TEST_CASE("random numbers: Philox at each element's row-major position, whatever the output's layout") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::param<"seed", std::int64_t> seed;
  constexpr fx::out<"u", float, 2> u;
  constexpr fx::out<"n", float, 2> n;
  constexpr fx::out<"d", float, 2> d;
  constexpr fx::out<"r", float, 2> r;
  constexpr fx::program draws{u = fx::rand(seed, 5), n = fx::randn(seed, 5), d = fx::dropout(x, 0.25f, seed, 9),
                              r = fx::sum(x * fx::rand(seed, 0), fx::axis<1>)};
  const std::int64_t rows = 301, cols = 257;  // a row is longer than a CPU chunk
  const auto tx = random_tensor<float>({rows, cols}, 61, 0.5, 2.0);
  fx::tensor<float> tu({rows, cols}), tn({rows, cols}), td({rows, cols}), tr({rows, 1});
  fx::tensor<float> eu({rows, cols}), en({rows, cols}), ed({rows, cols}), er({rows, 1});
  fx::tensor<float> transposed({cols, rows});
  draws.run(fx::cpu, x(tx), seed(1234), u(tu), n(tn), d(td), r(tr));
  fx::run_reference(draws, x(tx), seed(1234), u(eu), n(en), d(ed), r(er));
  // The kernels' numbers are the oracle's, bit for bit (the same integer arithmetic).
  CHECK(fx::testing::mismatch(tu.view(), eu.view(), {0, 0}).empty());
  CHECK(fx::testing::mismatch(tn.view(), en.view(), {0, 0}).empty());
  CHECK(fx::testing::mismatch(td.view(), ed.view(), {0, 0}).empty());
  CHECK(fx::testing::mismatch(tr.view(), er.view(), reduction_tolerance<float>()).empty());
  // Element (i, j) draws at position i * cols + j, also into a transposed output.
  fx::program{u = fx::rand(seed, 5)}.run(fx::cpu, seed(1234), u(transposed.view().transpose(0, 1)));
  double mean = 0, squares = 0, zeros = 0;
  bool at_position = true, scaled = true;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const auto w = fx::philox::draw(1234, 5, static_cast<std::uint64_t>(i * cols + j));
      at_position = at_position && tu(i, j) == fx::philox::uniform(w.w[0]) && transposed(j, i) == tu(i, j) &&
                    tn(i, j) == fx::philox::normal(w.w[0], w.w[1]);
      const bool dropped =
          fx::philox::uniform(fx::philox::draw(1234, 9, static_cast<std::uint64_t>(i * cols + j)).w[0]) < 0.25f;
      scaled = scaled && td(i, j) == (dropped ? 0.0f : tx(i, j) / 0.75f);
      mean += tn(i, j), squares += double(tn(i, j)) * tn(i, j), zeros += dropped;
    }
  CHECK(at_position);
  CHECK(scaled);
  const double count = double(rows * cols);
  CHECK(std::abs(mean / count) < 5 / std::sqrt(count));
  CHECK(std::abs(squares / count - 1) < 0.02);
  CHECK(std::abs(zeros / count - 0.25) < 0.01);
  // Another seed or offset: another stream.
  fx::tensor<float> other({rows, cols});
  fx::program{u = fx::rand(seed, 6)}.run(fx::cpu, seed(1234), u(other));
  CHECK(other(0, 0) != tu(0, 0));
  CHECK(other(0, 0) == tu(0, 1));  // offset 6 at position 0 is offset 5 at position 1
}
