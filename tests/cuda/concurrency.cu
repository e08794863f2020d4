// One program run at the same time from two host threads on two streams, and from one
// thread on two streams without waiting: every run must give what a run alone gives, bit
// for bit. The program's groups pass a buffer between them (the column mean) and use a
// workspace, both from the program's device pool, so that runs sharing one set of
// buffers would overwrite each other's.
#include <cstdint>  // std::int64_t
#include <string>   // std::string
#include <thread>   // std::thread
#include <vector>   // std::vector

#include <cuda_runtime_api.h>  // cudaStreamCreate, cudaStreamSynchronize, cudaStreamDestroy

#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>
#include <support/compare.hpp>  // mismatch
#include <support/random.hpp>   // random_tensor

namespace {

namespace fx = fusedsl;
using fx::device;
using fx::tensor;

constexpr fx::in<"x", float, 2> x;
constexpr fx::out<"y", float, 2> y;
constexpr fx::program centered{y = x - fx::mean(x, fx::axis<0>)};

constexpr std::int64_t rows = 2048, columns = 2048;

/// A stream that is destroyed with its owner.
struct stream {
  cudaStream_t handle = nullptr;
  stream() { REQUIRE(cudaStreamCreate(&handle) == cudaSuccess); }
  ~stream() { cudaStreamDestroy(handle); }
};

/// `runs` runs of `centered` on `s` with input `in`; the first output that differs from
/// `expected`, described, or empty.
std::string run_many(const tensor<float>& in, const tensor<float>& expected, cudaStream_t s, int runs) {
  tensor<float> out({rows, columns}, device::cuda);
  for (int r = 0; r < runs; ++r) {
    centered.run(fx::cuda(s), x(in), y(out));
    if (cudaStreamSynchronize(s) != cudaSuccess) return "run " + std::to_string(r) + ": the stream failed";
    const std::string m = fx::testing::mismatch(out.to(device::cpu).view(), expected.view(), {0, 0});
    if (!m.empty()) return "run " + std::to_string(r) + ": " + m;
  }
  return {};
}

/// Input `seed` on the device and what one run alone gives for it.
std::pair<tensor<float>, tensor<float>> input_and_result(std::uint64_t seed) {
  tensor<float> in = fx::testing::random_tensor<float>({rows, columns}, seed).to(device::cuda);
  tensor<float> out({rows, columns}, device::cuda);
  centered.run(fx::cuda(), x(in), y(out));
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  return {std::move(in), out.to(device::cpu)};
}

}  // namespace

TEST_CASE("device pool: one program on two streams from two host threads") {
  static_assert(fx::kernel_count(centered) >= 1);
  const auto [in_a, expected_a] = input_and_result(1);
  const auto [in_b, expected_b] = input_and_result(2);
  stream sa, sb;
  std::string failure_a, failure_b;
  std::thread ta([&] { failure_a = run_many(in_a, expected_a, sa.handle, 40); });
  std::thread tb([&] { failure_b = run_many(in_b, expected_b, sb.handle, 40); });
  ta.join();
  tb.join();
  CHECK_MESSAGE(failure_a.empty(), "thread a: ", failure_a);
  CHECK_MESSAGE(failure_b.empty(), "thread b: ", failure_b);
}

TEST_CASE("device pool: one thread, two streams, no wait between the runs") {
  const auto [in_a, expected_a] = input_and_result(3);
  const auto [in_b, expected_b] = input_and_result(4);
  stream sa, sb;
  tensor<float> out_a({rows, columns}, device::cuda), out_b({rows, columns}, device::cuda);
  for (int r = 0; r < 20; ++r) {
    centered.run(fx::cuda(sa.handle), x(in_a), y(out_a));
    centered.run(fx::cuda(sb.handle), x(in_b), y(out_b));
  }
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(fx::testing::mismatch(out_a.to(device::cpu).view(), expected_a.view(), {0, 0}) == "");
  CHECK(fx::testing::mismatch(out_b.to(device::cpu).view(), expected_b.view(), {0, 0}) == "");
}

TEST_CASE("device pool: every device of the machine") {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  if (count < 2) {
    MESSAGE("one device: the runs on a second device are not tried");
    return;
  }
  for (int d = 0; d < 2; ++d) {
    REQUIRE(cudaSetDevice(d) == cudaSuccess);
    const auto [in, expected] = input_and_result(5);
    stream s;
    CHECK_MESSAGE(run_many(in, expected, s.handle, 3).empty(), "device ", d);
  }
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
}
