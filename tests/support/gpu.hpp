/// @file gpu.hpp
/// Test support for executables that need a CUDA device.
#pragma once
#include <cstdio>   // std::fprintf
#include <cstdlib>  // std::exit

#include <cuda_runtime_api.h>  // cudaGetDeviceCount, cudaGetErrorString

namespace fusedsl::testing {

/// The exit code CTest maps to "skipped" (SKIP_RETURN_CODE in cmake/FusedslGpuTest.cmake).
inline constexpr int skip_exit_code = 77;

/// Exits with `skip_exit_code` when no CUDA device is usable, saying why, so a
/// GPU test on a machine without a GPU is reported as skipped rather than
/// passed or failed. Call it first in main().
inline void skip_without_gpu() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    std::fprintf(stderr, "skipped: no usable CUDA device (%s)\n",
                 status != cudaSuccess ? cudaGetErrorString(status) : "cudaGetDeviceCount reports 0 devices");
    std::exit(skip_exit_code);
  }
}

}  // namespace fusedsl::testing
