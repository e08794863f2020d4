/// @file target.hpp
/// Where a program runs on a GPU: `prog.run(fx::cuda(stream), ...)`. Needs
/// the CUDA runtime (nvcc, or host code with FUSEDSL_WITH_CUDART).
#pragma once
#include <cuda_runtime_api.h>  // cudaStream_t

#include <fusedsl/program/executor.hpp>  // executor

namespace fusedsl {

/// Runs programs on the current CUDA device, on one stream.
struct cuda_target {
  cudaStream_t stream = nullptr;  ///< the stream every launch goes to (0: the legacy default stream)
  /// Runs each fused group of the plan as one kernel; false runs every node
  /// as a kernel of its own (for comparison and debugging).
  bool fuse = true;
};

/// The CUDA target on `stream`: `prog.run(fx::cuda(stream), bindings...)`.
inline cuda_target cuda(cudaStream_t stream = nullptr) { return {stream, true}; }
/// The CUDA target with fusion turned off: every node is its own kernel.
inline cuda_target cuda_unfused(cudaStream_t stream = nullptr) { return {stream, false}; }

}  // namespace fusedsl
