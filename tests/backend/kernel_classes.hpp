/// @file kernel_classes.hpp
/// Every kernel class of the CPU backend against the oracle, for one
/// element type per including file (they compile in parallel): pointwise
/// groups, row groups (softmax, layernorm), column reductions, full and
/// split reductions, horizontal multi-output groups and in-place groups.
/// Each program runs fused (`fx::cpu`), unfused (`fx::cpu_unfused`) and in
/// the oracle (`fx::run_reference`), each into its own outputs pre-filled
/// with a sentinel, over odd sizes (1, 3, 1023, 4097), empty tensors,
/// size-1 axes, and inputs bound to transposed, sliced and expanded views.
#pragma once
#include <array>    // std::array
#include <cstdint>  // std::int64_t
#include <cstring>  // std::memcmp
#include <limits>   // std::numeric_limits
#include <string>   // std::string, std::to_string
#include <tuple>    // std::tuple, std::apply
#include <vector>   // std::vector

#include <doctest/doctest.h>
#include <omp.h>  // omp_get_max_threads, omp_set_num_threads

#include <fusedsl/fusedsl.hpp>
#include <support/compare.hpp>  // FUSEDSL_CHECK_CLOSE, default_tolerance
#include <support/random.hpp>   // random_tensor

namespace kernel_classes {

namespace fx = fusedsl;
using fx::testing::random_tensor;
using fx::testing::tolerance;

/// How a program runs: the fused plan, node by node, or the oracle.
enum class way { fused, unfused, oracle };
inline constexpr std::array<way, 3> ways{way::fused, way::unfused, way::oracle};
inline const char* name(way w) { return w == way::fused ? "fused" : w == way::unfused ? "unfused" : "oracle"; }

template <class P, class... Bindings>
void run(way w, const P& prog, const Bindings&... bindings) {
  if (w == way::fused) prog.run(fx::cpu, bindings...);
  else if (w == way::unfused) prog.run(fx::cpu_unfused, bindings...);
  else fx::run_reference(prog, bindings...);
}

/// A value no program here produces: an element left unwritten shows.
template <class T>
T sentinel() {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(std::numeric_limits<T>::max() - 3);
  else return static_cast<T>(-12345.0f);
}

/// An output of `sizes` filled with the sentinel.
template <class T>
fx::tensor<T> fresh(const fx::shape& sizes) {
  return fx::tensor<T>::full(sizes, sentinel<T>());
}

/// Runs `go(w)` for each way; `go` returns a tuple of output tensors. The
/// fused and unfused outputs are compared with the oracle's within `tol`.
template <class Go>
void check_ways(const std::string& what, tolerance tol, Go go) {
  auto fused = go(way::fused);
  auto unfused = go(way::unfused);
  auto oracle = go(way::oracle);
  std::apply(
      [&](const auto&... expected) {
        std::apply(
            [&](const auto&... got) {
              (([&] {
                 INFO(what << " (fused)");
                 FUSEDSL_CHECK_CLOSE(got.view(), expected.view(), tol);
               }()),
               ...);
            },
            fused);
        std::apply(
            [&](const auto&... got) {
              (([&] {
                 INFO(what << " (unfused)");
                 FUSEDSL_CHECK_CLOSE(got.view(), expected.view(), tol);
               }()),
               ...);
            },
            unfused);
      },
      oracle);
}

/// The C++ number type to write constants of T in (no C++ numbers of
/// type bf16: floats, which promote as PyTorch's wrapped numbers do).
template <class T>
using number_t = std::conditional_t<std::is_same_v<T, fx::bfloat16>, float, T>;

/// Sums of T: integers sum in i64, as torch.sum.
template <class T>
using sum_t = std::conditional_t<std::is_integral_v<T>, std::int64_t, T>;

/// Tolerance of results that went through a reduction of up to ~4000
/// elements (float accumulation against the oracle's double).
template <class T>
constexpr tolerance reduced_tolerance() {
  constexpr fx::dtype d = fx::dtype_of<T>;
  if constexpr (!fx::is_floating_point(d)) return {0, 0};
  else if constexpr (d == fx::dtype::f64) return {1e-11, 1e-11};
  else if constexpr (d == fx::dtype::f32) return {5e-5, 5e-4};
  else return {1.6e-2, 2e-2};
}

/// The shapes every kernel class runs over: odd sizes, size-1 axes, empty.
inline const std::vector<fx::shape>& shapes() {
  // 70 x 64 and 50 x 33: rows of one chunk, more of them than a tile records at once.
  static const std::vector<fx::shape> all{{1, 1},    {3, 3},   {1, 1023}, {3, 4097}, {1023, 3}, {4097, 1},
                                          {37, 129}, {70, 64}, {50, 33},  {0, 5},    {5, 0}};
  return all;
}

/// The ways an input of `sizes` is bound: a dense tensor, a transposed
/// view, a sliced view with a step, and (for one row broadcast to all) an
/// expanded view. The bases live in `keep`.
template <class T>
std::vector<std::pair<std::string, fx::tensor_view<T>>> input_views(const fx::shape& sizes, std::uint64_t seed,
                                                                    std::vector<fx::tensor<T>>& keep) {
  const std::int64_t rows = sizes[0], cols = sizes[1];
  keep.push_back(random_tensor<T>(sizes, seed));
  keep.push_back(random_tensor<T>({cols, rows}, seed + 1));
  keep.push_back(random_tensor<T>({2 * rows + 1, cols + 2}, seed + 2));
  keep.push_back(random_tensor<T>({1, cols}, seed + 3));
  const std::size_t n = keep.size();
  return {{"dense", keep[n - 4].view()},
          {"transposed", keep[n - 3].transpose(0, 1)},
          {"sliced", keep[n - 2].slice(0, 1, 2 * rows + 1, 2).slice(1, 1, cols + 1, 1)},
          {"expanded", keep[n - 1].view().expand(sizes)}};
}

/// Describes the case for failure messages.
inline std::string describe(const char* kernel, const fx::shape& sizes, const std::string& binding) {
  return std::string(kernel) + " over " + fx::to_string(sizes) + ", input " + binding;
}

/// Pointwise groups: a broadcast row, a scalar param, several ops; several
/// nodes with a kernel-local intermediate.
template <class T>
void check_pointwise() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::in<"b", T, 1> b;
  constexpr fx::param<"k", T> k;
  constexpr fx::out<"y", T, 2> y;
  constexpr fx::program prog{y = (x - b) * k + x * x};
  for (const fx::shape& sizes : shapes()) {
    std::vector<fx::tensor<T>> keep;
    const auto bias = random_tensor<T>({sizes[1]}, 7);
    for (const auto& [binding, view] : input_views<T>(sizes, 11, keep))
      check_ways(describe("pointwise", sizes, binding), fx::testing::default_tolerance<T>(3), [&](way how) {
        auto out = fresh<T>(sizes);
        run(how, prog, x(view), b(bias), k(T(3)), y(out));
        return std::tuple{std::move(out)};
      });
  }
  // Several pointwise nodes in one group, which run chunk by chunk: a named
  // intermediate (a buffer in memory) read by two later nodes, a realized
  // value that lives in each thread's scratch (one chunk), two outputs.
  constexpr fx::local<"t", T, 2> t;
  constexpr fx::out<"z", T, 2> z;
  constexpr fx::program group{t = x * k + b, y = fx::realize(t * t) - x, z = t + b};
  static_assert(fx::kernel_count(group) == 1);
  for (const fx::shape& sizes : shapes()) {
    std::vector<fx::tensor<T>> keep;
    const auto bias = random_tensor<T>({sizes[1]}, 8);
    for (const auto& [binding, view] : input_views<T>(sizes, 12, keep))
      check_ways(describe("pointwise group", sizes, binding), fx::testing::default_tolerance<T>(4), [&](way how) {
        auto out_y = fresh<T>(sizes), out_z = fresh<T>(sizes);
        run(how, group, x(view), b(bias), k(T(3)), y(out_y), z(out_z));
        return std::tuple{std::move(out_y), std::move(out_z)};
      });
  }
}

/// Row groups: reductions over the innermost axis with pointwise work
/// before and after (softmax and layernorm for floating point; a max and a
/// sum broadcast back for integers).
template <class T>
void check_row_groups() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"y", T, 2> y;
  for (const fx::shape& sizes : shapes()) {
    if (sizes[1] == 0) continue;  // max over an empty row has no value (an error, tested elsewhere)
    std::vector<fx::tensor<T>> keep;
    for (const auto& [binding, view] : input_views<T>(sizes, 21, keep)) {
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, fx::bfloat16>) {
        constexpr fx::in<"w", T, 1> w;
        constexpr fx::in<"b", T, 1> b;
        constexpr fx::program softmax{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                          fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
        constexpr fx::program layernorm{
            y = (x - fx::mean(x, fx::axis<1>)) *
                    fx::rsqrt(fx::var(x, fx::axis<1>, fx::correction{0}) + number_t<T>(1e-5f)) * w +
                b};
        const auto weight = random_tensor<T>({sizes[1]}, 22), bias = random_tensor<T>({sizes[1]}, 23);
        check_ways(describe("softmax", sizes, binding), reduced_tolerance<T>(), [&](way how) {
          auto out = fresh<T>(sizes);
          run(how, softmax, x(view), y(out));
          return std::tuple{std::move(out)};
        });
        // (x - mean) / std amplifies the rounding of the mean and the variance.
        const tolerance normalized{reduced_tolerance<T>().rtol * 4, reduced_tolerance<T>().atol * 4};
        check_ways(describe("layernorm", sizes, binding), normalized, [&](way how) {
          auto out = fresh<T>(sizes);
          run(how, layernorm, x(view), w(weight), b(bias), y(out));
          return std::tuple{std::move(out)};
        });
      } else {
        constexpr fx::out<"z", sum_t<T>, 2> z;
        constexpr fx::program centered{y = x - fx::max(x, fx::axis<1>), z = fx::sum(x, fx::axis<1>) + x};
        check_ways(describe("row group", sizes, binding), reduced_tolerance<T>(), [&](way how) {
          auto out_y = fresh<T>(sizes);
          auto out_z = fresh<sum_t<T>>(sizes);
          run(how, centered, x(view), y(out_y), z(out_z));
          return std::tuple{std::move(out_y), std::move(out_z)};
        });
      }
    }
  }
}

/// Column reductions (reduced leading axis) and full reductions, also over
/// more elements than one split chunk (the split path of few long rows).
template <class T>
void check_column_and_full_reductions() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"s", sum_t<T>, 1> s;
  constexpr fx::out<"m", T, 1> m;
  constexpr fx::out<"t", sum_t<T>, 0> t;
  constexpr fx::program columns{s = fx::sum(x, fx::axis<0>, fx::drop_axes),
                                m = fx::min(x * number_t<T>(2), fx::axis<0>, fx::drop_axes)};
  constexpr fx::program full{t = fx::sum(x, fx::axes<>, fx::drop_axes)};
  std::vector<fx::shape> sizes_list = shapes();
  sizes_list.push_back({2, 40000});  // a row reduction of few long rows: split into fixed chunks
  for (const fx::shape& sizes : sizes_list) {
    std::vector<fx::tensor<T>> keep;
    for (const auto& [binding, view] : input_views<T>(sizes, 31, keep)) {
      if (sizes[0] > 0)  // min over an empty column has no value
        check_ways(describe("column reduction", sizes, binding), reduced_tolerance<T>(), [&](way how) {
          auto out_s = fresh<sum_t<T>>({sizes[1]});
          auto out_m = fresh<T>({sizes[1]});
          run(how, columns, x(view), s(out_s), m(out_m));
          return std::tuple{std::move(out_s), std::move(out_m)};
        });
      tolerance full_tolerance = reduced_tolerance<T>();
      full_tolerance.atol *= 10;  // up to 80000 terms
      check_ways(describe("full reduction", sizes, binding), full_tolerance, [&](way how) {
        auto out_t = fresh<sum_t<T>>(fx::shape{});
        run(how, full, x(view), t(out_t));
        return std::tuple{std::move(out_t)};
      });
    }
  }
  // Two reduced axes: the rows come in runs along the inner one, which end
  // inside a task's part of the rows, odd runs included; rows of 64
  // columns or fewer are added two at a time.
  constexpr fx::in<"x3", T, 3> x3;
  constexpr fx::out<"s3", sum_t<T>, 1> s3;
  constexpr fx::out<"m3", T, 1> m3;
  constexpr fx::program columns3{s3 = fx::sum(x3, fx::axes<0, 1>, fx::drop_axes),
                                 m3 = fx::max(x3 * number_t<T>(2), fx::axes<0, 1>, fx::drop_axes)};
  for (const fx::shape& sizes : {fx::shape{1, 1, 1}, fx::shape{3, 7, 5}, fx::shape{6, 45, 64}, fx::shape{4, 129, 70}}) {
    auto dense = random_tensor<T>(sizes, 51);
    auto swapped = random_tensor<T>({sizes[1], sizes[0], sizes[2]}, 52);
    const std::pair<std::string, fx::tensor_view<T>> views[] = {{"dense", dense.view()},
                                                                {"axes 0 and 1 swapped", swapped.transpose(0, 1)}};
    for (const auto& [binding, view] : views)
      check_ways(describe("column reduction over two axes", sizes, binding), reduced_tolerance<T>(), [&](way how) {
        auto out_s = fresh<sum_t<T>>({sizes[2]});
        auto out_m = fresh<T>({sizes[2]});
        run(how, columns3, x3(view), s3(out_s), m3(out_m));
        return std::tuple{std::move(out_s), std::move(out_m)};
      });
  }
}

/// Horizontal groups: several outputs over one input, a reduction among them.
template <class T>
void check_horizontal() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"a", T, 2> a;
  constexpr fx::out<"b", T, 2> b;
  constexpr fx::out<"s", sum_t<T>, 1> s;
  constexpr fx::program prog{a = x * number_t<T>(2), b = x + number_t<T>(1),
                             s = fx::sum(x, fx::axis<1>, fx::drop_axes)};
  for (const fx::shape& sizes : shapes()) {
    std::vector<fx::tensor<T>> keep;
    for (const auto& [binding, view] : input_views<T>(sizes, 41, keep))
      check_ways(describe("horizontal", sizes, binding), reduced_tolerance<T>(), [&](way how) {
        auto out_a = fresh<T>(sizes), out_b = fresh<T>(sizes);
        auto out_s = fresh<sum_t<T>>({sizes[0]});
        run(how, prog, x(view), a(out_a), b(out_b), s(out_s));
        return std::tuple{std::move(out_a), std::move(out_b), std::move(out_s)};
      });
  }
}

/// In-place groups: statements that update their inputs in order (each
/// reads the values the previous one wrote), Adam-like.
template <class T>
void check_in_place() {
  constexpr fx::in<"g", T, 2> g;
  constexpr fx::inout<"p", T, 2> p;
  constexpr fx::inout<"m", T, 2> m;
  constexpr fx::program prog{m = m * number_t<T>(3) + g, p -= m * number_t<T>(2), m += p};
  for (const fx::shape& sizes : shapes()) {
    std::vector<fx::tensor<T>> keep;
    const auto p0 = random_tensor<T>(sizes, 51), m0 = random_tensor<T>(sizes, 52);
    for (const auto& [binding, view] : input_views<T>(sizes, 53, keep))
      check_ways(describe("in place", sizes, binding), fx::testing::default_tolerance<T>(4), [&](way how) {
        auto pw = p0.clone(), mw = m0.clone();
        run(how, prog, g(view), p(pw), m(mw));
        return std::tuple{std::move(pw), std::move(mw)};
      });
  }
}

/// True when `a` and `b` hold the same bits.
template <class T>
bool same_bits(const fx::tensor<T>& a, const fx::tensor<T>& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), sizeof(T) * a.numel()) == 0;
}

/// Reductions whose work is cut into parts (the lanes of a row, the row
/// parts of a column reduction, the chunks of a split one) give the same
/// bits with one thread and with two, three or five: the parts and the
/// order in which they merge depend on the sizes alone. (Whether few long
/// rows are split depends on the thread count too: these sizes are split,
/// or not, either way.)
template <class T>
void check_thread_counts() {
  constexpr fx::in<"x", T, 2> x;
  constexpr fx::out<"r", sum_t<T>, 1> r;
  constexpr fx::out<"c", sum_t<T>, 1> c;
  constexpr fx::out<"t", sum_t<T>, 0> t;
  constexpr fx::program reductions{r = fx::sum(x, fx::axis<1>, fx::drop_axes),
                                   c = fx::sum(x * number_t<T>(3), fx::axis<0>, fx::drop_axes),
                                   t = fx::sum(x, fx::axes<>, fx::drop_axes)};
  const int threads = omp_get_max_threads();
  for (const fx::shape& sizes : {fx::shape{37, 129}, fx::shape{1023, 3}, fx::shape{300, 2100}, fx::shape{2, 40000}}) {
    const auto input = random_tensor<T>(sizes, 41);
    auto once = [&](int n) {
      omp_set_num_threads(n);
      auto out_r = fresh<sum_t<T>>({sizes[0]});
      auto out_c = fresh<sum_t<T>>({sizes[1]});
      auto out_t = fresh<sum_t<T>>(fx::shape{});
      reductions.run(fx::cpu, x(input), r(out_r), c(out_c), t(out_t));
      return std::tuple{std::move(out_r), std::move(out_c), std::move(out_t)};
    };
    const auto [r1, c1, t1] = once(1);
    for (int n : {2, 3, 5}) {
      const auto [rn, cn, tn] = once(n);
      const std::string what =
          describe("thread counts", sizes, "dense") + ", " + std::to_string(n) + " threads against 1";
      INFO(what);
      CHECK(same_bits(r1, rn));
      CHECK(same_bits(c1, cn));
      CHECK(same_bits(t1, tn));
    }
    omp_set_num_threads(threads);
  }
}

/// All of the above for element type T.
template <class T>
void check_all_kernel_classes() {
  SUBCASE("pointwise") { check_pointwise<T>(); }
  SUBCASE("row groups") { check_row_groups<T>(); }
  SUBCASE("column and full reductions") { check_column_and_full_reductions<T>(); }
  SUBCASE("horizontal") { check_horizontal<T>(); }
  SUBCASE("in place") { check_in_place<T>(); }
  SUBCASE("thread counts") { check_thread_counts<T>(); }
}

}  // namespace kernel_classes
