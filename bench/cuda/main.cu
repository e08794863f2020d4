// bench_cuda: fusedsl's CUDA kernels on the issue's workloads. Prints, per
// workload, the median time of 30 runs (CUDA events), the bytes it must move
// and a checksum of its output (bench.py compares it with PyTorch's, on the
// same inputs); first the copy bandwidth of this run. Each fused result is
// also checked against fx::cuda_unfused (every node a kernel of its own).
#include <algorithm>  // std::sort
#include <cmath>      // std::sin, std::fabs
#include <cstdint>    // std::int64_t
#include <cstdio>     // std::printf
#include <cstdlib>    // std::getenv
#include <string>     // std::string
#include <vector>     // std::vector

#include <fusedsl/fusedsl.hpp>  // prog.run(fx::cuda(), ...)

#include "programs.hpp"

namespace {

namespace fx = fusedsl;
using namespace bench_cuda;

void check(cudaError_t status) {
  if (status != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(status));
    std::exit(1);
  }
}

/// The inputs bench.py builds too: 2 sin(0.37 i + seed) (shifted and scaled when `positive`).
template <class T>
fx::tensor<T> input(const fx::shape& sizes, int seed, bool positive = false) {
  fx::tensor<T> host(sizes);
  for (std::int64_t i = 0; i < host.numel(); ++i) {
    const double s = std::sin(0.37 * static_cast<double>(i) + seed);
    host.data()[i] = static_cast<T>(positive ? 0.5 + 0.4 * s : 2.0 * s);
  }
  return host.to(fx::device::cuda);
}

template <class T>
std::vector<double> values(const fx::tensor<T>& t) {
  const fx::tensor<T> host = t.to(fx::device::cpu);
  std::vector<double> result(static_cast<std::size_t>(host.numel()));
  for (std::int64_t i = 0; i < host.numel(); ++i)
    result[static_cast<std::size_t>(i)] = static_cast<double>(host.data()[i]);
  return result;
}

double checksum(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum;
}

/// Largest |a - b| / (1 + |b|).
double difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]) / (1 + std::fabs(b[i])));
  return worst;
}

/// Median milliseconds of `f` (30 runs after 5 warm-up runs, CUDA events around each).
template <class F>
double median_ms(F&& f) {
  for (int i = 0; i < 5; ++i) f();
  std::vector<float> times;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start));
  check(cudaEventCreate(&stop));
  for (int i = 0; i < 30; ++i) {
    check(cudaEventRecord(start));
    f();
    check(cudaEventRecord(stop));
    check(cudaEventSynchronize(stop));
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  check(cudaEventDestroy(start));
  check(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// True when workload `name` runs: every one, or those named in the
/// comma-separated FUSEDSL_BENCH_ONLY (quicker runs while tuning a kernel).
bool wanted(const char* name) {
  const char* only = std::getenv("FUSEDSL_BENCH_ONLY");
  if (only == nullptr) return true;
  const std::string list = std::string(",") + only + ",";
  return list.find(std::string(",") + name + ",") != std::string::npos;
}

void report(const char* name, double ms, double bytes, double sum, double unfused_difference) {
  std::printf("fusedsl %s %.5f %.0f %.9g %.3g\n", name, ms, bytes, sum, unfused_difference);
  std::fflush(stdout);
}

}  // namespace

int main() {
  const std::int64_t rows = 32768, cols = 4096, flat = std::int64_t{1} << 26;
  {  // copy bandwidth: 1 GiB device to device, bytes read + written
    const std::int64_t n = std::int64_t{1} << 28;
    fx::tensor<float> src = input<float>({n}, 0), dst({n}, fx::device::cuda);
    const double ms =
        median_ms([&] { check(cudaMemcpyAsync(dst.data(), src.data(), n * 4, cudaMemcpyDeviceToDevice)); });
    std::printf("copy %.5f %.0f\n", ms, 2.0 * n * 4);
  }
  if (wanted("pointwise_f32")) {
    const auto da = input<float>({flat}, 1), db = input<float>({flat}, 2), dc = input<float>({flat}, 3);
    fx::tensor<float> out({flat}, fx::device::cuda), ref({flat}, fx::device::cuda);
    pointwise_f32.run(fx::cuda_unfused(), a(da), b(db), c(dc), y(ref));
    const double ms = median_ms([&] { pointwise_f32.run(fx::cuda(), a(da), b(db), c(dc), y(out)); });
    const auto v = values(out);
    report("pointwise_f32", ms, 4.0 * flat * 4, checksum(v), difference(v, values(ref)));
  }
  if (wanted("pointwise_bf16")) {
    const auto da = input<fx::bfloat16>({flat}, 1), db = input<fx::bfloat16>({flat}, 2),
               dc = input<fx::bfloat16>({flat}, 3);
    fx::tensor<fx::bfloat16> out({flat}, fx::device::cuda), ref({flat}, fx::device::cuda);
    pointwise_bf16.run(fx::cuda_unfused(), ha(da), hb(db), hc(dc), hy(ref));
    const double ms = median_ms([&] { pointwise_bf16.run(fx::cuda(), ha(da), hb(db), hc(dc), hy(out)); });
    const auto v = values(out);
    report("pointwise_bf16", ms, 4.0 * flat * 2, checksum(v), difference(v, values(ref)));
  }
  const auto dx = input<float>({rows, cols}, 4), dw = input<float>({cols}, 5), dbias = input<float>({cols}, 6);
  fx::tensor<float> out({rows, cols}, fx::device::cuda), ref({rows, cols}, fx::device::cuda);
  const double matrix = 4.0 * rows * cols;
  if (wanted("softmax")) {
    softmax.run(fx::cuda_unfused(), x(dx), y2(ref));
    const double ms = median_ms([&] { softmax.run(fx::cuda(), x(dx), y2(out)); });
    const auto v = values(out);
    report("softmax", ms, 2 * matrix, checksum(v), difference(v, values(ref)));
  }
  if (wanted("layernorm")) {
    layernorm.run(fx::cuda_unfused(), x(dx), w(dw), bias(dbias), y2(ref));
    const double ms = median_ms([&] { layernorm.run(fx::cuda(), x(dx), w(dw), bias(dbias), y2(out)); });
    const auto v = values(out);
    report("layernorm", ms, 2 * matrix, checksum(v), difference(v, values(ref)));
  }
  if (wanted("rmsnorm")) {
    rmsnorm.run(fx::cuda_unfused(), x(dx), w(dw), y2(ref));
    const double ms = median_ms([&] { rmsnorm.run(fx::cuda(), x(dx), w(dw), y2(out)); });
    const auto v = values(out);
    report("rmsnorm", ms, 2 * matrix, checksum(v), difference(v, values(ref)));
  }
  if (wanted("bias_gelu")) {
    bias_gelu.run(fx::cuda_unfused(), x(dx), bias(dbias), y2(ref));
    const double ms = median_ms([&] { bias_gelu.run(fx::cuda(), x(dx), bias(dbias), y2(out)); });
    const auto v = values(out);
    report("bias_gelu", ms, 2 * matrix, checksum(v), difference(v, values(ref)));
  }
  if (wanted("row_sum")) {
    fx::tensor<float> r({rows}, fx::device::cuda), rr({rows}, fx::device::cuda);
    row_sum.run(fx::cuda_unfused(), x(dx), s(rr));
    const double ms = median_ms([&] { row_sum.run(fx::cuda(), x(dx), s(r)); });
    const auto v = values(r);
    report("row_sum", ms, matrix, checksum(v), difference(v, values(rr)));
  }
  if (wanted("column_sum")) {
    fx::tensor<float> r({cols}, fx::device::cuda), rr({cols}, fx::device::cuda);
    column_sum.run(fx::cuda_unfused(), x(dx), s(rr));
    const double ms = median_ms([&] { column_sum.run(fx::cuda(), x(dx), s(r)); });
    const auto v = values(r);
    report("column_sum", ms, matrix, checksum(v), difference(v, values(rr)));
  }
  if (wanted("full_sum")) {
    const std::int64_t n = std::int64_t{1} << 28;
    const auto dv = input<float>({n}, 7);
    fx::tensor<float> r(fx::shape{}, fx::device::cuda), rr(fx::shape{}, fx::device::cuda);
    full_sum.run(fx::cuda_unfused(), v(dv), t(rr));
    const double ms = median_ms([&] { full_sum.run(fx::cuda(), v(dv), t(r)); });
    const auto val = values(r);
    report("full_sum", ms, 4.0 * n, checksum(val), difference(val, values(rr)));
  }
  if (wanted("horizontal")) {
    fx::tensor<float> q({rows, cols}, fx::device::cuda), r({rows}, fx::device::cuda),
        rq({rows, cols}, fx::device::cuda), rr({rows}, fx::device::cuda);
    horizontal.run(fx::cuda_unfused(), x(dx), p2(ref), q2(rq), s(rr));
    const double ms = median_ms([&] { horizontal.run(fx::cuda(), x(dx), p2(out), q2(q), s(r)); });
    const auto vp = values(out), vq = values(q), vs = values(r);
    const double diff = std::max({difference(vp, values(ref)), difference(vq, values(rq)), difference(vs, values(rr))});
    report("horizontal", ms, 3 * matrix, checksum(vp) + checksum(vq) + checksum(vs), diff);
  }
  if (wanted("adam")) {
    const std::int64_t n = std::int64_t{1} << 25;
    const auto dg = input<float>({n}, 8);
    fx::tensor<float> dp = input<float>({n}, 9), dm = input<float>({n}, 10), dv = input<float>({n}, 11, true);
    fx::tensor<float> rp = input<float>({n}, 9), rm = input<float>({n}, 10), rv = input<float>({n}, 11, true);
    adam.run(fx::cuda(), g(dg), p(dp), m(dm), vv(dv), lr(1e-3f));
    adam.run(fx::cuda_unfused(), g(dg), p(rp), m(rm), vv(rv), lr(1e-3f));
    const auto v = values(dp);
    const double diff = difference(v, values(rp));
    const double ms = median_ms([&] { adam.run(fx::cuda(), g(dg), p(dp), m(dm), vv(dv), lr(1e-3f)); });
    report("adam", ms, 7.0 * n * 4, checksum(v), diff);
  }
  return 0;
}
