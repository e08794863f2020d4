/// @file cuda_harness.hpp
/// The matrix's harness on a CUDA device, timed as peers.py times torch: before each
/// repetition an L2 flush (a memset of a buffer larger than the L2) and a wait on the GPU
/// longer than a call's host dispatch, CUDA events around the run alone, the median of
/// the repetitions after warm-up. Apart from that: host time per call (the launches, not
/// waited for) and launches per call (the kernel nodes of a CUDA graph captured from one
/// run).
#pragma once
#include <chrono>         // std::chrono::steady_clock
#include <cstdint>        // std::int64_t
#include <memory>         // std::shared_ptr
#include <stdexcept>      // std::runtime_error
#include <string>         // std::string
#include <type_traits>    // std::remove_const_t
#include <unordered_map>  // std::unordered_map
#include <vector>         // std::vector

#include <cuda_runtime_api.h>

#include "harness.hpp"  // harness_base, measurement

namespace matrix {

/// Throws with the call's text when a CUDA call fails.
inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// Clock cycles the GPU waits after the flush, before a timed call: about 0.5 ms, longer
/// than any call's host dispatch, so that the call's kernels are queued before its start
/// event and the events time the GPU alone (peers.py waits as long: BUSY_CYCLES).
inline constexpr long long busy_cycles = 1'000'000;

/// Keeps the GPU busy for `cycles` clock cycles.
__global__ void busy(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

/// Runs and times cells on the current CUDA device, on a stream of its own.
class cuda_harness : public harness_base {
 public:
  static constexpr const char* target_name = "gpu";

  cuda_harness(bool check_only, int repetitions) : harness_base(check_only, repetitions) {
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
    int device = 0, l2 = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
    flush_bytes_ = 4 * static_cast<std::size_t>(l2);
    cuda_check(cudaMalloc(&flush_, flush_bytes_), "cudaMalloc (L2 flush)");
  }
  cuda_harness(cuda_harness&& o) noexcept
      : harness_base(o),
        stream_(o.stream_),
        start_(o.start_),
        stop_(o.stop_),
        flush_(o.flush_),
        flush_bytes_(o.flush_bytes_) {
    o.stream_ = nullptr;
    o.start_ = o.stop_ = nullptr;
    o.flush_ = nullptr;
  }
  cuda_harness& operator=(cuda_harness&&) = delete;
  ~cuda_harness() {
    if (flush_) cudaFree(flush_);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  /// The device, as the tables name it.
  std::string describe() const {
    int device = 0;
    cudaDeviceProp p{};
    cudaGetDevice(&device);
    cudaGetDeviceProperties(&p, device);
    return std::string(p.name);
  }

  /// Runs `run(fx::cuda(stream), place)` once on device copies of the family's tensors
  /// (`place`), copies them back and compares with `reference()` (`checks`); then times
  /// `run` (repetitions after 10 warm-up runs), its host time, and its launches.
  template <class Run, class Reference>
  measurement measure(std::int64_t bytes, int kernels, Run run, Reference reference,
                      std::initializer_list<check> checks) {
    const auto place = [this](const auto& binding) { return mirror(binding); };
    const auto target = fx::cuda(stream_);
    measurement m = checked_run(
        bytes, kernels,
        [&] {
          run(target, place);
          cuda_check(cudaStreamSynchronize(stream_), "the checked run");
          for (auto& mirrored : mirrors_) mirrored.second.fetch();
        },
        reference, checks);
    if (!check_only_) {
      for (int i = 0; i < 10; ++i) run(target, place);
      std::vector<double> device_ms, host_us;
      for (int i = 0; i < repetitions_; ++i) {
        cuda_check(cudaMemsetAsync(flush_, i & 0xff, flush_bytes_, stream_), "L2 flush");
        busy<<<1, 1, 0, stream_>>>(busy_cycles);
        cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
        const auto host_start = std::chrono::steady_clock::now();
        run(target, place);
        host_us.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - host_start).count());
        cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
        cuda_check(cudaEventSynchronize(stop_), "a timed run");
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
        device_ms.push_back(ms);
      }
      m.ms = median(device_ms);
      m.host_us = median(host_us);
      m.launches = launches_of([&] { run(target, place); });
    }
    mirrors_.clear();
    return m;
  }

  /// The device's copy bandwidth in GB/s: the median of device-to-device copies of 1 GiB
  /// (read plus written bytes), timed as the cells are.
  double copy_gbs() {
    const std::size_t n = std::size_t{1} << 30;
    void *from = nullptr, *to = nullptr;
    cuda_check(cudaMalloc(&from, n), "cudaMalloc");
    cuda_check(cudaMalloc(&to, n), "cudaMalloc");
    cuda_check(cudaMemset(from, 1, n), "cudaMemset");
    std::vector<double> t;
    for (int i = 0; i < 30; ++i) {
      cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
      cuda_check(cudaMemcpyAsync(to, from, n, cudaMemcpyDeviceToDevice, stream_), "cudaMemcpyAsync");
      cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
      cuda_check(cudaEventSynchronize(stop_), "copy");
      float ms = 0;
      cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
      if (i >= 5) t.push_back(ms);
    }
    cudaFree(from);
    cudaFree(to);
    return 2.0 * static_cast<double>(n) / (median(t) * 1e6);
  }

 private:
  /// A device copy of a host tensor a family bound, and how to copy it back.
  struct mirrored {
    std::shared_ptr<void> device;
    std::function<void()> fetch;
  };

  /// `binding` with its tensor replaced by a device copy, made on first use per cell
  /// (so that every run of the cell sees the same device tensors).
  template <class P, class U>
  fx::tensor_binding<P, U> mirror(const fx::tensor_binding<P, U>& binding) {
    using T = std::remove_const_t<U>;
    const auto view = binding.view;
    auto& m = mirrors_[view.data()];
    if (!m.device) {
      auto copy = std::make_shared<fx::tensor<T>>(view.sizes(), fx::device::cuda);
      const std::size_t bytes = static_cast<std::size_t>(view.numel()) * sizeof(T);
      cuda_check(cudaMemcpy(copy->data(), view.data(), bytes, cudaMemcpyHostToDevice), "copy to the device");
      T* host = const_cast<T*>(view.data());
      m.fetch = [copy, host, bytes] {
        cuda_check(cudaMemcpy(host, copy->data(), bytes, cudaMemcpyDeviceToHost), "copy to the host");
      };
      m.device = copy;
    }
    return {static_cast<fx::tensor<T>*>(m.device.get())->view()};
  }

  /// The kernel nodes of a graph captured from `run` (-1 when it cannot be captured).
  template <class F>
  int launches_of(F run) {
    cudaGraph_t graph = nullptr;
    if (cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed) != cudaSuccess) return -1;
    bool ran = true;
    try {
      run();
    } catch (...) {
      ran = false;
    }
    if (cudaStreamEndCapture(stream_, &graph) != cudaSuccess || !ran) {
      cudaGetLastError();
      return -1;
    }
    std::size_t count = 0;
    cudaGraphGetNodes(graph, nullptr, &count);
    std::vector<cudaGraphNode_t> nodes(count);
    cudaGraphGetNodes(graph, nodes.data(), &count);
    int kernels = 0;
    for (cudaGraphNode_t node : nodes) {
      cudaGraphNodeType type{};
      cudaGraphNodeGetType(node, &type);
      kernels += type == cudaGraphNodeTypeKernel ? 1 : 0;
    }
    cudaGraphDestroy(graph);
    return kernels;
  }

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  std::unordered_map<const void*, mirrored> mirrors_;
};

/// The harness of bench_matrix_cuda and bench_matrix_cuda_rows: `reps` repetitions, 100
/// where `--reps` is not given (0).
inline cuda_harness make_cuda_harness(bool check_only, int reps) {
  return cuda_harness(check_only, reps > 0 ? reps : 100);
}

}  // namespace matrix
