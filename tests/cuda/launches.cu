// Launches per fused group: a program run captured into a CUDA graph holds one kernel per
// group of fx::kernel_count(prog) for every kernel class (pointwise, rows, short rows, split
// rows with and without nodes after their reductions, columns in one chunk of rows), and two for a column reduction
// in several chunks (its finishing kernel); the graph, replayed, computes what the CPU backend does. So a run is
// capturable (after a first run on the stream has sized the program's buffers for that stream, the split kernel's
// cooperative launches included) and costs the host nothing per replay.
#include <cstdint>  // std::int64_t
#include <limits>   // std::numeric_limits
#include <vector>   // std::vector

#include <cuda_runtime_api.h>  // cudaStreamBeginCapture, cudaGraph*

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>
#include <support/compare.hpp>  // mismatch, default_tolerance
#include <support/random.hpp>   // random_tensor

namespace {

namespace fx = fusedsl;
using fx::device;
using fx::tensor;

constexpr fx::in<"x", float, 2> x;
constexpr fx::out<"y", float, 2> y;
constexpr fx::out<"c", float, 1> c;

/// A stream and a graph captured from it, destroyed with their owner.
struct capture {
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  capture() { REQUIRE(cudaStreamCreate(&stream) == cudaSuccess); }
  ~capture() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  }
  /// Captures `run(stream)` and returns the number of kernel nodes in the graph.
  template <class Run>
  int kernels_of(Run run) {
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    run(stream);
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    std::size_t count = 0;
    REQUIRE(cudaGraphGetNodes(graph, nullptr, &count) == cudaSuccess);
    std::vector<cudaGraphNode_t> nodes(count);
    REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count) == cudaSuccess);
    int kernels = 0;
    for (cudaGraphNode_t n : nodes) {
      cudaGraphNodeType type{};
      REQUIRE(cudaGraphNodeGetType(n, &type) == cudaSuccess);
      kernels += type == cudaGraphNodeTypeKernel;
    }
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    return kernels;
  }
  /// Replays the graph and waits for it.
  void replay() {
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  }
};

/// Runs `prog` (output `y` of x's shape, or `c` of its columns) once to size its
/// buffers, captures a second run on the same stream, and checks the plan's groups,
/// the graph's kernels and its results.
template <class Prog, class Out>
void check_launches(const Prog& prog, const Out& out, fx::shape sizes, fx::shape out_sizes, int groups, int launches) {
  // Positive values: sums without cancellation, so that the tolerance of a few roundings holds.
  const tensor<float> host = fx::testing::random_tensor<float>(sizes, 7, 0.5, 1.5);
  const tensor<float> in = host.to(device::cuda);
  tensor<float> result(out_sizes, device::cuda), expected(out_sizes);
  prog.run(fx::cpu, x(host), out(expected));
  capture g;
  prog.run(fx::cuda(g.stream), x(in), out(result));  // sizes the buffers of runs on this stream
  REQUIRE(cudaStreamSynchronize(g.stream) == cudaSuccess);
  REQUIRE(cudaMemset(result.data(), 0, static_cast<std::size_t>(result.numel()) * sizeof(float)) == cudaSuccess);
  CHECK(g.kernels_of([&](cudaStream_t s) { prog.run(fx::cuda(s), x(in), out(result)); }) == launches);
  CHECK(fx::kernel_count(prog) == groups);
  g.replay();
  g.replay();  // the arrival counters are back to zero after each run
  CHECK(fx::testing::mismatch(result.to(device::cpu).view(), expected.view(),
                              fx::testing::default_tolerance<float>(8)) == "");
}

constexpr fx::program pointwise{y = fx::exp(x) * 2.0f};
constexpr fx::program softmax{y = fx::exp(x - fx::max(x, fx::axis<1>)) /
                                  fx::sum(fx::exp(x - fx::max(x, fx::axis<1>)), fx::axis<1>)};
constexpr fx::program column_sum{c = fx::sum(x, fx::axis<0>)};
constexpr fx::program row_sum{c = fx::sum(x, fx::axis<1>, fx::drop_axes)};
constexpr fx::program centered{y = x - fx::mean(x, fx::axis<0>)};
// A causal softmax: its index leaves are computed in the row kernel, not launched or read.
constexpr auto masked = fx::where(fx::index<0> < fx::index<1>, -std::numeric_limits<float>::infinity(), x);
constexpr fx::program causal_softmax{y = fx::exp(masked - fx::max(masked, fx::axis<1>)) /
                                         fx::sum(fx::exp(masked - fx::max(masked, fx::axis<1>)), fx::axis<1>)};
// A scan and a reduction over the same rows (exact: the CPU's values bit for bit): one row
// kernel, also for few long rows (a group with a scan is never split).
constexpr fx::program below_max{y = fx::cummax(x, fx::axis<1>) - fx::max(x, fx::axis<1>)};
// Cross-entropy at the labels r % 7: the row's logsumexp and the picked logit (a gather, a
// value per row after the row's reduction) in one row kernel.
constexpr fx::program cross_entropy{c = fx::logsumexp(x, fx::axis<1>, fx::drop_axes) -
                                        fx::take_along_axis(x, fx::index<0> % 7, fx::axis<1>, fx::drop_axes)};

}  // namespace

TEST_CASE("launches: a captured run has a kernel per group, two for a column group in several chunks") {
  SUBCASE("pointwise") { check_launches(pointwise, y, {1000, 300}, {1000, 300}, 1, 1); }
  SUBCASE("rows") { check_launches(softmax, y, {2048, 1000}, {2048, 1000}, 1, 1); }
  SUBCASE("rows with index leaves") { check_launches(causal_softmax, y, {2048, 1000}, {2048, 1000}, 1, 1); }
  SUBCASE("short rows") { check_launches(softmax, y, {50000, 10}, {50000, 10}, 1, 1); }
  SUBCASE("rows with a scan") { check_launches(below_max, y, {2048, 1000}, {2048, 1000}, 1, 1); }
  SUBCASE("short rows with a scan") { check_launches(below_max, y, {50000, 10}, {50000, 10}, 1, 1); }
  SUBCASE("few long rows with a scan") { check_launches(below_max, y, {3, 1 << 20}, {3, 1 << 20}, 1, 1); }
  SUBCASE("rows with a gather: cross-entropy") { check_launches(cross_entropy, c, {2048, 1000}, {2048}, 1, 1); }
  SUBCASE("short rows with a gather: cross-entropy") { check_launches(cross_entropy, c, {50000, 10}, {50000}, 1, 1); }
  SUBCASE("split rows") { check_launches(row_sum, c, {3, 1 << 20}, {3}, 1, 1); }
  SUBCASE("split rows with nodes after their reductions: softmax") {
    check_launches(softmax, y, {3, 1 << 20}, {3, 1 << 20}, 1, 1);
  }
  SUBCASE("split rows in waves (more rows than half the L2 cache holds)") {
    check_launches(softmax, y, {100, 1 << 17}, {100, 1 << 17}, 1, 1);
  }
  SUBCASE("split rows with a gather: cross-entropy") { check_launches(cross_entropy, c, {3, 1 << 20}, {3}, 1, 1); }
  SUBCASE("columns, one chunk of rows") { check_launches(column_sum, c, {16, 65536}, {65536}, 1, 1); }
  SUBCASE("columns, 16-byte vectors") { check_launches(column_sum, c, {3000, 512}, {512}, 1, 2); }
  SUBCASE("columns, one column per thread, one chunk") { check_launches(column_sum, c, {3000, 3}, {3}, 1, 1); }
  SUBCASE("columns, one column per thread") { check_launches(column_sum, c, {300000, 3}, {3}, 1, 2); }
  SUBCASE("columns, many chunks per column") { check_launches(column_sum, c, {1 << 20, 4}, {4}, 1, 2); }
  SUBCASE("two groups: column mean, then the centering") {
    check_launches(centered, y, {4000, 700}, {4000, 700}, 2, 3);
  }
}
