/// @file config.hpp
/// Host/device macros: the one place that knows which compiler is compiling fusedsl.
#pragma once

#if defined(__CUDACC__)
/// Defined when a CUDA compiler (nvcc) compiles this translation unit.
#  define FUSEDSL_CUDA_COMPILER 1
/// Marks functions that run on the host and on the device.
#  define FUSEDSL_HOST_DEVICE __host__ __device__
/// Marks functions that run on the device only.
#  define FUSEDSL_DEVICE __device__
#else
#  define FUSEDSL_HOST_DEVICE
#  define FUSEDSL_DEVICE
#endif

#if defined(__CUDA_ARCH__)
/// Defined while nvcc compiles the device side of a translation unit.
#  define FUSEDSL_DEVICE_PASS 1
#endif

/// Forces inlining of small hot functions (index math, loads, stores).
#if defined(_MSC_VER)
#  define FUSEDSL_FORCEINLINE __forceinline
#else
#  define FUSEDSL_FORCEINLINE inline __attribute__((always_inline))
#endif
