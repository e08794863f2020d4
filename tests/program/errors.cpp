// Run-time errors of programs and fx::eval: each names what is wrong. The
// exact text of each message is written out in the CHECK that matches it.
#include "common.hpp"

using namespace fusedsl_tests;

namespace {
constexpr fx::in<"a", float, 2> a;
constexpr fx::in<"b", float, 1> b;
constexpr fx::in<"x", float, 2> x;
constexpr fx::out<"y", float, 2> y;
constexpr fx::out<"z", float, 2> z;
}  // namespace

TEST_CASE("error: operands that do not broadcast name both operands, their shapes and the axis") {
  constexpr fx::program prog{y = fx::exp(a) * b};
  const auto ta = random_tensor<float>({3, 4}, 1);
  const auto tb = random_tensor<float>({5}, 2);
  fx::tensor<float> ty({3, 4});
  // "fusedsl: cannot broadcast the operands of exp(a) * b: exp(a) has shape [3, 4], b has shape [5]
  //  (axis -1 has sizes 4 and 5)"
  const auto expected =
      "fusedsl: cannot broadcast the operands of exp(a) * b: exp(a) has shape [3, 4], b has shape "
      "[5] (axis -1 has sizes 4 and 5)";
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, a(ta), b(tb), y(ty)), doctest::Contains(expected), fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(prog, a(ta), b(tb), y(ty)), doctest::Contains(expected), fusedsl::error);
  // A middle axis: [2, 3, 1] with [4, 1]: axis -2 has sizes 3 and 4.
  constexpr fx::in<"c", float, 3> c;
  constexpr fx::out<"w", float, 3> w;
  constexpr fx::program middle{w = c + a};
  const auto tc = random_tensor<float>({2, 3, 1}, 3);
  const auto ta2 = random_tensor<float>({4, 1}, 4);
  fx::tensor<float> tw({2, 3, 1});
  CHECK_THROWS_WITH_AS(middle.run(fx::cpu, c(tc), a(ta2), w(tw)),
                       doctest::Contains("fusedsl: cannot broadcast the operands of c + a: c has shape [2, 3, 1], a "
                                         "has shape [4, 1] (axis -2 has sizes 3 and 4)"),
                       fusedsl::error);
}

TEST_CASE("error: a bound tensor of the wrong rank names the placeholder and both ranks") {
  constexpr fx::program prog{y = x + 1.0f};
  const auto t3 = random_tensor<float>({2, 3, 4}, 5);
  fx::tensor<float> ty({3, 4});
  const auto expected =
      "fusedsl: placeholder \"x\" expects a rank-2 tensor, the bound one has rank 3 (sizes [2, 3, 4])";
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(t3), y(ty)), doctest::Contains(expected), fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(prog, x(t3), y(ty)), doctest::Contains(expected), fusedsl::error);
  // The output's rank is checked the same way.
  const auto tx = random_tensor<float>({3, 4}, 6);
  fx::tensor<float> flat({12});
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(tx), y(flat)),
                       doctest::Contains("fusedsl: placeholder \"y\" expects a rank-2 tensor, the bound one has rank 1 "
                                         "(sizes [12])"),
                       fusedsl::error);
}

TEST_CASE("error: a value whose shape does not fit the output") {
  constexpr fx::program prog{y = x * 2.0f};
  const auto tx = random_tensor<float>({3, 4}, 7);
  fx::tensor<float> ty({4, 3});
  const auto expected =
      "fusedsl: the statement y = x * 2 assigns a value of shape [3, 4] to placeholder \"y\" of shape [4, 3]";
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(tx), y(ty)), doctest::Contains(expected), fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(prog, x(tx), y(ty)), doctest::Contains(expected), fusedsl::error);
  // A value may broadcast to the output, but not shrink: [3, 4] into [1, 4] fails.
  fx::tensor<float> row({1, 4});
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(tx), y(row)),
                       doctest::Contains("assigns a value of shape [3, 4] to placeholder \"y\" of shape [1, 4]"),
                       fusedsl::error);
  // A local of the wrong rank.
  constexpr fx::local<"e", float, 1> e;
  constexpr fx::program with_local{e = x + 1.0f, y = x + e};
  fx::tensor<float> ok({3, 4});
  CHECK_THROWS_WITH_AS(with_local.run(fx::cpu, x(tx), y(ok)),
                       doctest::Contains(
                           "fusedsl: placeholder \"e\" has rank 1 but is assigned a value of shape [3, 4]"),
                       fusedsl::error);
}

TEST_CASE("error: a tensor on another device than the program") {
  constexpr fx::program prog{y = x + 1.0f};
  // A view that claims CUDA memory: the check happens before any element is touched.
  float fake = 0;
  const fx::tensor_view<float> on_gpu(&fake, fx::shape{1, 1}, fx::device::cuda);
  fx::tensor<float> ty({1, 1});
  const auto expected = "fusedsl: placeholder \"x\" is bound to a tensor on cuda but the program runs on cpu";
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(on_gpu), y(ty)), doctest::Contains(expected), fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(prog, x(on_gpu), y(ty)), doctest::Contains(expected), fusedsl::error);
}

TEST_CASE("error: an output bound to an expanded (stride 0) view") {
  constexpr fx::program prog{y = x + 1.0f};
  const auto tx = random_tensor<float>({3, 4}, 8);
  fx::tensor<float> row({4});
  const auto expected =
      "fusedsl: placeholder \"y\" is written but its view repeats elements (sizes [3, 4], strides "
      "[0, 1]): an output cannot be an expanded or overlapping view";
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(tx), y(row.view().expand({3, 4}))), doctest::Contains(expected),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(prog, x(tx), y(row.view().expand({3, 4}))), doctest::Contains(expected),
                       fusedsl::error);
  // Rows that overlap each other (strides [1, 1]) repeat elements too.
  auto strip = random_tensor<float>({8}, 16);
  const fx::tensor_view<float> sliding(strip.data(), fx::shape{3, 4}, fx::shape{1, 1});
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(tx), y(sliding)),
                       doctest::Contains("fusedsl: placeholder \"y\" is written but its view repeats elements (sizes "
                                         "[3, 4], strides [1, 1])"),
                       fusedsl::error);
  // Reading through such views is fine.
  const auto read = check_pointwise(x * 1.0f, {3, 4}, 1, x(fx::tensor_view<const float>(sliding)));
  CHECK(read(1, 0) == read(0, 1));
}

TEST_CASE("error: an output sharing memory with an input through a different view") {
  constexpr fx::program prog{y = x + 1.0f};
  auto t = random_tensor<float>({3, 3}, 9);
  // The sizes alone are equal here: the strides tell the two views apart.
  const auto expected =
      "fusedsl: placeholder \"y\" is written and shares memory with placeholder \"x\" through a "
      "different view (sizes [3, 3], strides [1, 3] vs sizes [3, 3], strides [3, 1]): the result "
      "would depend on the order of the writes; bind the same view to both or copy one of them";
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(t), y(t.transpose(0, 1))), doctest::Contains(expected), fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(prog, x(t), y(t.transpose(0, 1))), doctest::Contains(expected),
                       fusedsl::error);
  // Overlapping slices of one tensor (rows 0-1 read, rows 1-2 written).
  auto tall = random_tensor<float>({3, 4}, 10);
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(tall.slice(0, 0, 2)), y(tall.slice(0, 1, 3))),
                       doctest::Contains("placeholder \"y\" is written and shares memory with placeholder \"x\""),
                       fusedsl::error);
  // Disjoint slices of one tensor are fine.
  prog.run(fx::cpu, x(tall.slice(0, 0, 1)), y(tall.slice(0, 2, 3)));
  for (int j = 0; j < 4; ++j) CHECK(tall(2, j) == tall(0, j) + 1.0f);
  // Two outputs bound to the same memory.
  constexpr fx::program two{y = x + 1.0f, z = x * 2.0f};
  auto tx = random_tensor<float>({3, 3}, 11);
  CHECK_THROWS_WITH_AS(two.run(fx::cpu, x(tx), y(t), z(t)),
                       doctest::Contains("fusedsl: placeholder \"y\" and placeholder \"z\" are both written and bound "
                                         "to the same memory"),
                       fusedsl::error);
}

TEST_CASE("error: an input bound to an output's memory and read after the output is written") {
  constexpr fx::out<"u", float, 2> u;
  constexpr fx::program read_after{y = x * 2.0f, u = x + 1.0f};
  auto t = random_tensor<float>({3, 7}, 12);
  fx::tensor<float> tu({3, 7});
  const auto expected =
      "fusedsl: placeholder \"x\" is bound to the same memory as placeholder \"y\" and is read "
      "after a statement writes placeholder \"y\": that read would see the new values; bind a copy "
      "of the input";
  CHECK_THROWS_WITH_AS(read_after.run(fx::cpu, x(t), y(t), u(tu)), doctest::Contains(expected), fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(read_after, x(t), y(t), u(tu)), doctest::Contains(expected), fusedsl::error);
  // Allowed when the input is only read before (or by) the statement that writes the output: y = 2 x in place.
  constexpr fx::program read_before{u = x + 1.0f, y = x * 2.0f};
  const auto t0 = t.clone();
  read_before.run(fx::cpu, x(t), y(t), u(tu));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 7; ++j) {
      CHECK(t(i, j) == 2.0f * t0(i, j));
      CHECK(tu(i, j) == t0(i, j) + 1.0f);
    }
  auto r = t0.clone();
  fx::tensor<float> ru({3, 7});
  fx::run_reference(read_before, x(r), y(r), u(ru));
  FUSEDSL_CHECK_CLOSE(r.view(), t.view(), fx::testing::default_tolerance<float>());
}

TEST_CASE("error: max and argmax over an empty axis have no value") {
  constexpr fx::out<"i", std::int64_t, 2> i;
  const fx::tensor<float> empty({3, 0});
  fx::tensor<float> ty({3, 1});
  fx::tensor<std::int64_t> ti({3, 1});
  constexpr fx::program max_prog{y = fx::max(x, fx::axis<1>)};
  constexpr fx::program argmax_prog{i = fx::argmax(x, fx::axis<1>)};
  CHECK_THROWS_WITH_AS(max_prog.run(fx::cpu, x(empty), y(ty)),
                       doctest::Contains("fusedsl: max over no elements: max(x, axis<1>) reduces a tensor of shape "
                                         "[3, 0]; it has no value there"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(max_prog, x(empty), y(ty)), doctest::Contains("fusedsl: max over no elements"),
                       fusedsl::error);
  CHECK_THROWS_WITH_AS(argmax_prog.run(fx::cpu, x(empty), i(ti)),
                       doctest::Contains("fusedsl: argmax over no elements: argmax(x, axis<1>) reduces a tensor of "
                                         "shape [3, 0]; it has no value there"),
                       fusedsl::error);
  // Reducing a non-empty axis of an empty tensor is fine: there is nothing to compute (as in PyTorch).
  const fx::tensor<float> no_rows({0, 5});
  fx::tensor<float> none({0, 1});
  max_prog.run(fx::cpu, x(no_rows), y(none));
  fx::run_reference(max_prog, x(no_rows), y(none));
  CHECK(none.numel() == 0);
}

TEST_CASE("error: two reductions of the same type with different constants in one statement") {
  // sum(x * 2) and sum(x * 3) have the same type (the constants are values of constant<int64_t>), and a
  // statement computes each distinct reduction type once.
  static_assert(std::is_same_v<decltype(fx::sum(x * 2)), decltype(fx::sum(x * 3))>);
  constexpr fx::program prog{y = fx::sum(x * 2) + fx::sum(x * 3)};
  const auto tx = random_tensor<float>({3, 4}, 13);
  fx::tensor<float> ty({3, 4});
  const auto expected =
      "fusedsl: two reductions sum(x * 2) and sum(x * 3) have the same structure but different "
      "constants; fusedsl computes a repeated subexpression once, so assign one of them to an "
      "fx::local first";
  CHECK_THROWS_WITH_AS(prog.run(fx::cpu, x(tx), y(ty)), doctest::Contains(expected), fusedsl::error);
  CHECK_THROWS_WITH_AS(fx::run_reference(prog, x(tx), y(ty)), doctest::Contains(expected), fusedsl::error);
  // The same constant twice is one node, and fine; so is the fx::local workaround.
  constexpr fx::local<"s3", float, 2> s3;
  constexpr fx::program same{y = fx::sum(x * 2) + fx::sum(x * 2)};
  constexpr fx::program with_local{s3 = fx::sum(x * 3), y = fx::sum(x * 2) + s3};
  same.run(fx::cpu, x(tx), y(ty));
  fx::tensor<float> tz({3, 4});
  with_local.run(fx::cpu, x(tx), y(tz));
  double total = 0;
  for (std::int64_t k = 0; k < tx.numel(); ++k) total += tx.data()[k];
  CHECK(ty(0, 0) == doctest::Approx(4 * total).epsilon(1e-5));
  CHECK(tz(2, 3) == doctest::Approx(5 * total).epsilon(1e-5));
}

TEST_CASE("error: fx::eval into a target that overlaps an operand through a different view") {
  auto t = random_tensor<float>({3, 3}, 14);
  CHECK_THROWS_WITH_AS(fx::eval(t.transpose(0, 1), t * 2.0f),
                       doctest::Contains("fusedsl: placeholder \"eval target\" is written and shares memory with a "
                                         "tensor of shape [3, 3] through a different view (sizes [3, 3], strides "
                                         "[1, 3] vs sizes [3, 3], strides [3, 1]): the result would depend on the "
                                         "order of the writes"),
                       fusedsl::error);
  // Shapes that do not broadcast, in eval.
  const auto u = random_tensor<float>({4}, 15);
  fx::tensor<float> out({3, 3});
  CHECK_THROWS_WITH_AS(fx::eval(out, t + u),
                       doctest::Contains("fusedsl: cannot broadcast the operands of tensor[3, 3] + tensor[4]"),
                       fusedsl::error);
  // A reduction axis out of range is only known at run time for tensors.
  CHECK_THROWS_WITH_AS(fx::eval(out, fx::sum(t, fx::axis<2>)),
                       doctest::Contains("fusedsl: sum over axis 2 of a rank-2 operand: use an axis in [-rank, rank)"),
                       fusedsl::error);
}
