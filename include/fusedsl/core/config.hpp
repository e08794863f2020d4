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

/// Marks the CPU kernel functions whose loops carry the work: g++ compiles
/// each for AVX2 with FMA and for the x86-64 baseline, and the program
/// picks one when it loads, by the CPU it runs on (`target_clones`). So
/// kernels vectorize 8 floats wide on the machines of the last decade
/// without users compiling with -march. (Not AVX-512: g++ 12 turns the
/// 8-lane reduction loops into scalar code there, and the pointwise loops
/// gained little.) Results may differ between machines in the last bit
/// (FMA contraction), never between runs on one machine. Define
/// FUSEDSL_NO_CPU_DISPATCH to compile the baseline (or -march) version only.
/// No clones either when the compile already targets AVX2 and FMA
/// (-march=native, -march=x86-64-v3): there the AVX2 clone could not inline
/// the math the kernels call (compiled for the wider target) and ran 4-5x
/// slower than kernels compiled for the target alone (bench/RESULTS.md).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && \
    !defined(FUSEDSL_NO_CPU_DISPATCH) && !(defined(__AVX2__) && defined(__FMA__))
#  define FUSEDSL_CPU_KERNEL __attribute__((target_clones("arch=x86-64-v3", "default")))
/// 1 when CPU kernels are compiled for several x86-64 levels (above).
#  define FUSEDSL_CPU_DISPATCH 1
#else
#  define FUSEDSL_CPU_KERNEL
#  define FUSEDSL_CPU_DISPATCH 0
#endif

/// Put before a loop whose iterations do not depend on each other though
/// they may store where they load (an in-place update, element i reading
/// and writing element i only): tells the compiler to vectorize it without
/// checking at run time that the stores and loads do not overlap (a check
/// an in-place update fails, which then runs scalar). Not `omp simd`: g++
/// 12 then privatizes the loop's reader objects per lane and leaves some
/// loops scalar.
#if defined(__clang__)
#  define FUSEDSL_INDEPENDENT_ITERATIONS _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#  define FUSEDSL_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#else
#  define FUSEDSL_INDEPENDENT_ITERATIONS
#endif
