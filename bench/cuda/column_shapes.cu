// bench_cuda_columns: column sums of tall, narrow f32 matrices, which decide the kernel
// class of a lone column reduction (runtime/kernel_class.hpp). Median device time of 200
// runs, each after an L2 flush, with events around the run alone. Results in
// bench/RESULTS.md ("Column sums of tall, narrow matrices on the H100").
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime_api.h>
#include <fusedsl/fusedsl.hpp>
namespace fx = fusedsl;
constexpr fx::in<"x", float, 2> x;
constexpr fx::out<"s", float, 1> s;
constexpr fx::program column_sum{s = fx::sum(x, fx::axis<0>, fx::drop_axes)};
int main() {
  void* flush = nullptr;
  const size_t flush_bytes = 256u << 20;
  cudaMalloc(&flush, flush_bytes);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const long shapes[][2] = {{1 << 20, 8}, {1 << 20, 64}, {1 << 18, 128}, {1 << 16, 256}, {1 << 14, 200}, {1 << 22, 16}};
  for (auto& sh : shapes) {
    fx::tensor<float> hx({sh[0], sh[1]});
    for (long i = 0; i < hx.numel(); ++i) hx.data()[i] = float((i * 7919) % 1000) / 1000.0f;
    auto dx = hx.to(fx::device::cuda);
    fx::tensor<float> ds({sh[1]}, fx::device::cuda);
    for (int w = 0; w < 10; ++w) column_sum.run(fx::cuda(), x(dx), s(ds));
    std::vector<float> t;
    for (int r = 0; r < 200; ++r) {
      cudaMemsetAsync(flush, r & 0xff, flush_bytes);
      cudaEventRecord(a);
      column_sum.run(fx::cuda(), x(dx), s(ds));
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms = 0;
      cudaEventElapsedTime(&ms, a, b);
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    const double gbs = double(sh[0]) * sh[1] * 4 / (t[100] * 1e-3) / 1e9;
    std::printf("column sum %ld x %ld: median %.4f ms (%.0f GB/s)\n", sh[0], sh[1], t[100], gbs);
  }
}
