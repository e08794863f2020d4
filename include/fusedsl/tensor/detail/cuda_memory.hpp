/// @file cuda_memory.hpp
/// The only place that calls the CUDA runtime for memory: allocation, release
/// and copies, each call checked. Without the runtime, the same functions throw
/// a `fusedsl::error` that says how to enable it, so callers need no `#if`.
#pragma once
#include <cstddef>  // std::size_t
#include <string>   // std::string

#include <fusedsl/core/config.hpp>    // FUSEDSL_HAS_CUDA_RUNTIME
#include <fusedsl/core/error.hpp>     // fusedsl::error
#include <fusedsl/tensor/device.hpp>  // device

#if defined(FUSEDSL_HAS_CUDA_RUNTIME)
#  include <cuda_runtime_api.h>  // cudaMalloc, cudaFree, cudaMemcpy, cudaGetErrorString
#endif

namespace fusedsl::detail {

#if defined(FUSEDSL_HAS_CUDA_RUNTIME)

/// Throws `fusedsl::error` with the CUDA message when `status` is a failure.
inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess)
    throw error(std::string("fusedsl: ") + call + " failed: " + cudaGetErrorName(status) + ": " +
                cudaGetErrorString(status));
}

/// `bytes` of device memory on the current CUDA device.
inline void* cuda_allocate(std::size_t bytes) {
  void* memory = nullptr;
  check_cuda(cudaMalloc(&memory, bytes), "cudaMalloc");
  return memory;
}

/// Releases memory from `cuda_allocate`. Errors are ignored on purpose: this
/// runs in destructors, and the typical failure (the runtime already shut down
/// at program exit) leaves nothing to release.
inline void cuda_free(void* memory) noexcept { static_cast<void>(cudaFree(memory)); }

/// Copies `bytes` from `src` (on `from`) to `dst` (on `to`) with a blocking
/// `cudaMemcpy`, which orders it after work on the legacy default stream.
inline void cuda_memcpy(void* dst, device to, const void* src, device from, std::size_t bytes) {
  const cudaMemcpyKind kind = from == device::cpu
                                  ? (to == device::cpu ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
                                  : (to == device::cpu ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  check_cuda(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
}

#else

/// The message for any use of CUDA memory in a build without the runtime.
inline constexpr const char* no_cuda_runtime_message =
    "fusedsl was compiled without the CUDA runtime; compile with nvcc or define FUSEDSL_WITH_CUDART and link "
    "CUDA::cudart";

/// Always throws: there is no CUDA runtime to allocate with.
[[noreturn]] inline void* cuda_allocate(std::size_t) { throw error(no_cuda_runtime_message); }

/// Nothing to do: without the runtime `cuda_allocate` never returned memory.
inline void cuda_free(void*) noexcept {}

/// Always throws: there is no CUDA runtime to copy with.
[[noreturn]] inline void cuda_memcpy(void*, device, const void*, device, std::size_t) {
  throw error(no_cuda_runtime_message);
}

#endif

}  // namespace fusedsl::detail
