// Gathers (fx::take_along_axis, fx::index_select): fused with the producers of
// their indices and with consumers, inside row reductions (cross-entropy),
// over transposed and broadcast operands, checked against the oracle and
// against values computed here; out-of-range indices are errors of the run;
// the scheduler's rule for a gather's x (a StarDep).
#include "common.hpp"

namespace {
using namespace fusedsl_tests;

/// A tensor of `sizes` whose elements are (i * step + offset) mod n, as T.
template <class T>
fx::tensor<T> index_tensor(const fx::shape& sizes, std::int64_t n, std::int64_t step, std::int64_t offset = 0) {
  fx::tensor<T> t(sizes);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = static_cast<T>((i * step + offset) % n);
  return t;
}

/// take_along_axis of x (R x C, of T) at a computed index, scaled after; and
/// index_select of its rows: against the oracle and against x itself.
template <class T>
void check_gathers() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::in<"idx", std::int32_t, 2> idx;
  constexpr fx::in<"rows", std::int64_t, 1> rows;
  const auto tx = random_tensor<T>({7, 300}, 911);
  const auto ti = index_tensor<std::int32_t>({7, 130}, 300, 37, 5);
  const auto tr = index_tensor<std::int64_t>({9}, 7, 3);
  // The index (a pointwise producer, fused) and a consumer; f16/bf16 round at the product.
  const auto taken =
      check_pointwise(fx::take_along_axis(x, (idx + 1) % 300, fx::axis<1>) * 2, {7, 130}, 1, x(tx), idx(ti));
  const auto selected = check_pointwise(fx::index_select(x, rows, fx::axis<0>), {9, 300}, 0, x(tx), rows(tr));
  for (std::int64_t r = 0; r < 7; ++r)
    for (std::int64_t j = 0; j < 130; j += 13)
      CHECK(at(taken, r * 130 + j) == 2 * at(tx, r * 300 + (ti(r, j) + 1) % 300));  // exact: a power of 2
  for (std::int64_t s = 0; s < 9; ++s) CHECK(at(selected, s * 300 + 17) == at(tx, tr(s) * 300 + 17));
}

TEST_CASE("gathers: take_along_axis and index_select of f32, f64, i32 and bf16, fused with their indices") {
  check_gathers<float>();
  check_gathers<double>();
  check_gathers<std::int32_t>();
  check_gathers<fx::bfloat16>();
}

TEST_CASE("gathers of f16, i64, i16, i8 and u8: x's values, bit for bit") {
  check_gathers<fx::half>();
  check_gathers<std::int64_t>();
  constexpr fx::in<"s", std::int16_t, 2> s;
  constexpr fx::in<"c", std::int8_t, 2> c;
  constexpr fx::in<"u", std::uint8_t, 2> u;
  constexpr fx::in<"rows", std::int64_t, 1> rows;
  const auto tr = index_tensor<std::int64_t>({9}, 7, 3);
  const auto ts = random_tensor<std::int16_t>({7, 30}, 912, -30000, 30000);
  const auto tc = random_tensor<std::int8_t>({7, 30}, 913, -128, 127);
  const auto tu = random_tensor<std::uint8_t>({7, 30}, 914, 0, 255);
  const auto gs = check_pointwise(fx::index_select(s, rows, fx::axis<0>), {9, 30}, 0, s(ts), rows(tr));
  const auto gc = check_pointwise(fx::index_select(c, rows, fx::axis<0>), {9, 30}, 0, c(tc), rows(tr));
  const auto gu = check_pointwise(fx::index_select(u, rows, fx::axis<0>), {9, 30}, 0, u(tu), rows(tr));
  for (std::int64_t k = 0; k < 9; ++k) {
    CHECK(gs(k, 29) == ts(tr(k), 29));
    CHECK(gc(k, 3) == tc(tr(k), 3));
    CHECK(gu(k, 11) == tu(tr(k), 11));
  }
}

TEST_CASE("gathers: cross-entropy with integer labels is one kernel, gathers inside row reductions") {
  constexpr fx::in<"logits", float, 2> logits;
  constexpr fx::in<"labels", std::int64_t, 1> labels;
  constexpr fx::out<"loss", float, 1> loss;
  constexpr auto lse = fx::logsumexp(logits, fx::axis<1>, fx::drop_axes);
  constexpr auto picked = fx::take_along_axis(logits, labels, fx::axis<1>, fx::drop_axes);
  constexpr fx::program cross_entropy{loss = lse - picked};
  static_assert(fx::kernel_count(cross_entropy) == 1);
  // The loss runs once per row of the logsumexp's tiles of rows: several tiles, the last
  // one partial (5000 rows of 7), on 1 and 3 threads.
  for (const fx::shape& sizes : {fx::shape{37, 5}, fx::shape{6, 3000}, fx::shape{5000, 7}}) {
    const auto tl = random_tensor<float>(sizes, 912);
    const auto tlab = index_tensor<std::int64_t>({sizes[0]}, sizes[1], 7, 2);
    auto actual = fx::tensor<float>({sizes[0]}), expected = fx::tensor<float>({sizes[0]});
    fx::run_reference(cross_entropy, logits(tl), labels(tlab), loss(expected));
    for (int threads : {1, 3}) {
      cross_entropy.run(fx::cpu.threads(threads), logits(tl), labels(tlab), loss(actual));
      FUSEDSL_CHECK_CLOSE(actual.view(), expected.view(), reduction_tolerance<float>());
    }
    double row_max = -1e30, total = 0;
    for (std::int64_t j = 0; j < sizes[1]; ++j) row_max = std::max(row_max, at(tl, j));
    for (std::int64_t j = 0; j < sizes[1]; ++j) total += std::exp(at(tl, j) - row_max);
    CHECK(at(actual, 0) == doctest::Approx(row_max + std::log(total) - at(tl, tlab(0))).epsilon(1e-5));
  }
  // A gather inside a row reduction's operand: each row summed through a
  // permutation of its columns is the row's sum.
  constexpr fx::in<"perm", std::int64_t, 2> perm;
  const auto tx = random_tensor<float>({5, 200}, 913);
  const auto tp = index_tensor<std::int64_t>({1, 200}, 200, 3);  // 3 is prime to 200: a permutation
  check_against_oracle(fx::sum(fx::take_along_axis(logits, perm, fx::axis<1>), fx::axis<1>) -
                           fx::sum(logits, fx::axis<1>),
                       {5, 1}, {1e-4, 1e-4}, logits(tx), perm(tp));
}

TEST_CASE("gathers: transposed x, broadcast indices and x, index_select along inner axes and of positions") {
  constexpr fx::in<"x", float, 3> x;
  constexpr fx::in<"idx", std::int64_t, 3> idx;
  constexpr fx::in<"sel", std::int16_t, 1> sel;
  const auto base = random_tensor<float>({4, 6, 5}, 914);
  const auto transposed = base.view().permute({2, 0, 1});       // [5, 4, 6], no axis of stride 1 last
  const auto ti = index_tensor<std::int64_t>({1, 3, 6}, 4, 1);  // broadcast along axis 0
  const auto ts = index_tensor<std::int16_t>({3}, 6, 5);
  const auto taken = check_pointwise(fx::take_along_axis(x, idx, fx::axis<-2>), {5, 3, 6}, 0, x(transposed), idx(ti));
  CHECK(taken(2, 1, 4) == transposed(2, ti(0, 1, 4), 4));
  const auto selected = check_pointwise(fx::index_select(x, sel, fx::axis<1>) + 1, {4, 3, 5}, 1, x(base), sel(ts));
  CHECK(selected(3, 2, 1) == base(3, ts(2), 1) + 1);
  // x of size 1 along a kept axis broadcasts against the indices.
  const auto row = random_tensor<float>({1, 4, 6}, 915);
  const auto tj = index_tensor<std::int64_t>({5, 4, 2}, 6, 5);
  const auto spread = check_pointwise(fx::take_along_axis(x, idx, fx::axis<2>), {5, 4, 2}, 0, x(row), idx(tj));
  CHECK(spread(3, 1, 1) == row(0, 1, tj(3, 1, 1)));
  // index_select's indices stand along its axis, as do index leaves in them:
  // row i of the result is row (2 i) mod 4 of x, for each i of the target.
  constexpr fx::in<"m", float, 2> m;
  const auto tm = random_tensor<float>({4, 7}, 916);
  const auto every_other =
      check_against_oracle<2>(fx::index_select(m, fx::index<0> * 2 % 4, fx::axis<0>), {6, 7}, {0, 0}, m(tm));
  CHECK(every_other(3, 5) == tm(2, 5));
}

TEST_CASE("gathers: an index out of range, negative too, is an error of the run on the CPU and of the oracle") {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::in<"idx", std::int32_t, 1> idx;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program select{y = fx::index_select(x, idx, fx::axis<0>) * 2};
  const auto tx = random_tensor<float>({3, 40}, 917);
  auto ty = fx::tensor<float>({4, 40});
  for (const std::int32_t bad : {3, -1}) {
    const auto ti = make_tensor<std::int32_t>({4}, {0, 2, static_cast<double>(bad), 1});
    const std::string expected = "fx::index_select: index " + std::to_string(bad) +
                                 " is out of range for axis 0 of x, of size 3: indices must be in [0, 3)";
    CHECK_THROWS_WITH_AS(select.run(fx::cpu, x(tx), idx(ti), y(ty)), doctest::Contains(expected.c_str()),
                         fusedsl::error);
    CHECK_THROWS_WITH_AS(fx::run_reference(select, x(tx), idx(ti), y(ty)), doctest::Contains(expected.c_str()),
                         fusedsl::error);
  }
}

TEST_CASE("gathers: x's producer is not fused into the gather (a StarDep), an update of x after it waits") {
  constexpr fx::inout<"x", float, 2> x;
  constexpr fx::in<"idx", std::int64_t, 2> idx;
  constexpr fx::local<"e", float, 2> e;
  constexpr fx::out<"y", float, 2> y;
  // e's producer writes what the gather reads at unknown positions: two kernels, as
  // Inductor keeps an indirect load apart from the producer of its buffer (both read
  // x, so the vertical rule decides); then x updated in place after the gather read it.
  constexpr fx::program prog{e = fx::exp(x), y = fx::take_along_axis(e, idx, fx::axis<1>) + x, x = x * 2};
  static_assert(fx::check_fusion(fx::graph_of(prog), "e@1", "y@1") == fx::why_no_fuse::memory_deps_mismatch);
  static_assert(fx::kernel_count(prog) == 2);
  const auto tx = random_tensor<float>({6, 50}, 918);
  const auto ti = index_tensor<std::int64_t>({6, 50}, 50, 7, 3);
  auto x1 = fx::tensor<float>({6, 50}), x2 = fx::tensor<float>({6, 50});
  fx::copy(tx.view(), x1);
  fx::copy(tx.view(), x2);
  auto y1 = fx::tensor<float>({6, 50}), y2 = fx::tensor<float>({6, 50});
  prog.run(fx::cpu, x(x1), idx(ti), y(y1));
  fx::run_reference(prog, x(x2), idx(ti), y(y2));
  FUSEDSL_CHECK_CLOSE(y1.view(), y2.view(), fx::testing::default_tolerance<float>(1));
  FUSEDSL_CHECK_CLOSE(x1.view(), x2.view(), fx::testing::default_tolerance<float>(1));
  CHECK(y1(4, 9) == doctest::Approx(std::exp(at(tx, 4 * 50 + ti(4, 9))) + at(tx, 4 * 50 + 9)).epsilon(1e-6));
}

}  // namespace
