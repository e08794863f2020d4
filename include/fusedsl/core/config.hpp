/// @file config.hpp
/// The one place that tests compilers and target features. Every knob (a
/// macro a user may want otherwise) is defined only `#ifndef`, so that a
/// definition on the command line wins; docs/limits.md lists them.
#pragma once

#include <fusedsl/core/version.hpp>  // FUSEDSL_VERSION

#if defined(__CUDACC__)
/// Marks functions that run on the host and on the device.
#  define FUSEDSL_HOST_DEVICE __host__ __device__
/// Marks functions that run on the device only.
#  define FUSEDSL_DEVICE __device__
#else
#  define FUSEDSL_HOST_DEVICE
#  define FUSEDSL_DEVICE
#endif

/// Forces inlining of small hot functions (index math, loads, stores).
#ifndef FUSEDSL_FORCEINLINE
#  if defined(_MSC_VER)
#    define FUSEDSL_FORCEINLINE __forceinline
#  else
#    define FUSEDSL_FORCEINLINE inline __attribute__((always_inline))
#  endif
#endif

/// Keeps a function out of its callers: compiled once, for the baseline
/// target, where inlined into the kernels' target clones it ran slower.
#ifndef FUSEDSL_NOINLINE
#  if defined(_MSC_VER)
#    define FUSEDSL_NOINLINE __declspec(noinline)
#  else
#    define FUSEDSL_NOINLINE __attribute__((noinline))
#  endif
#endif

/// 1 while nvcc compiles the device side of a translation unit (device
/// intrinsics replace host math there).
#if defined(__CUDA_ARCH__)
#  define FUSEDSL_DEVICE_CODE 1
#else
#  define FUSEDSL_DEVICE_CODE 0
#endif

/// The host's vector instruction sets the compile targets (the baseline's,
/// in FUSEDSL_CPU_KERNEL's target clones): SSE2 (non-temporal 16-byte stores),
/// AVX (32-byte ones), SSE4.2 (64-bit integer compares: vector_math's double
/// functions vectorize; x86-64 only needs it, other targets vectorize them).
#if defined(__SSE2__)
#  define FUSEDSL_HOST_SSE2 1
#else
#  define FUSEDSL_HOST_SSE2 0
#endif
#if defined(__AVX__)
#  define FUSEDSL_HOST_AVX 1
#else
#  define FUSEDSL_HOST_AVX 0
#endif
#if defined(__x86_64__) && !defined(__SSE4_2__)
#  define FUSEDSL_DOUBLE_VECTORIZES 0
#else
#  define FUSEDSL_DOUBLE_VECTORIZES 1
#endif

/// 1 when the compile lets math functions skip errno (-fno-math-errno,
/// -ffast-math): std::sqrt is then the instruction and vectorizes as it is.
#if defined(__NO_MATH_ERRNO__)
#  define FUSEDSL_NO_MATH_ERRNO 1
#else
#  define FUSEDSL_NO_MATH_ERRNO 0
#endif

/// 1 when the CUDA runtime is available: nvcc compiles this translation unit,
/// or host code defines FUSEDSL_WITH_CUDART and links CUDA::cudart.
#if defined(__CUDACC__) || defined(FUSEDSL_WITH_CUDART)
#  define FUSEDSL_HAS_CUDA_RUNTIME 1
#endif

/// 1 when the target has a fused multiply-add that compiles inline (x86 with
/// FMA: -mfma, -march=x86-64-v3 or newer, not the AVX2 clone of
/// FUSEDSL_CPU_KERNEL, whose macros are the baseline's; AArch64; CUDA devices).
#if defined(__CUDA_ARCH__) || defined(__FMA__) || defined(__aarch64__)
#  define FUSEDSL_VM_FMA 1
#else
#  define FUSEDSL_VM_FMA 0
#endif

/// 1 where fusedsl_sqrtf and its x86-64 vector-ABI variants can be defined
/// (core/simd_sqrt.hpp): g++ on x86-64, outside nvcc. Define it to 0 to keep
/// std::sqrt.
#ifndef FUSEDSL_SIMD_SQRT
#  if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#    define FUSEDSL_SIMD_SQRT 1
#  else
#    define FUSEDSL_SIMD_SQRT 0
#  endif
#endif

/// Marks the CPU kernel functions whose loops carry the work: g++ compiles
/// each for AVX2 with FMA and for the x86-64 baseline, and the program
/// picks one when it loads, by the CPU it runs on (`target_clones`). So
/// kernels vectorize 8 floats wide on the machines of the last decade
/// without users compiling with -march. (Not AVX-512: g++ 12 turns the
/// 8-lane reduction loops into scalar code there, and the pointwise loops of
/// row groups ran slower; pointwise nodes that run on their own have an
/// AVX-512 clone, FUSEDSL_CPU_POINTWISE_KERNEL.) Results may differ between machines in the last bit
/// (FMA contraction), never between runs on one machine. Define
/// FUSEDSL_NO_CPU_DISPATCH to compile the baseline (or -march) version only.
/// No clones either when the compile already targets AVX2 and FMA
/// (-march=native, -march=x86-64-v3): there the AVX2 clone could not inline
/// the math the kernels call (compiled for the wider target) and runs several
/// times slower than kernels compiled for the target alone (bench/RESULTS.md).
#ifndef FUSEDSL_CPU_KERNEL
#  if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && \
      !defined(FUSEDSL_NO_CPU_DISPATCH) && !(defined(__AVX2__) && defined(__FMA__))
#    define FUSEDSL_CPU_KERNEL __attribute__((target_clones("arch=x86-64-v3", "default")))
/// 1 when CPU kernels are compiled for several x86-64 levels (above).
#    define FUSEDSL_CPU_DISPATCH 1
#  else
#    define FUSEDSL_CPU_KERNEL
#    define FUSEDSL_CPU_DISPATCH 0
#  endif
#endif

/// Marks the CPU kernels of pointwise nodes that run on their own and of
/// groups of pointwise nodes: as FUSEDSL_CPU_KERNEL, with an AVX-512 clone
/// besides (x86-64-v4, 16 floats wide), in which loops bound by their math
/// (exp, erf, gelu) run about twice as fast.
#ifndef FUSEDSL_CPU_POINTWISE_KERNEL
#  if FUSEDSL_CPU_DISPATCH
#    define FUSEDSL_CPU_POINTWISE_KERNEL __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#  else
#    define FUSEDSL_CPU_POINTWISE_KERNEL FUSEDSL_CPU_KERNEL
#  endif
#endif

/// Put before a loop whose iterations do not depend on each other though
/// they may store where they load (an in-place update, element i reading
/// and writing element i only): tells the compiler to vectorize it without
/// checking at run time that the stores and loads do not overlap (a check
/// an in-place update fails, which then runs scalar). Not `omp simd`: g++
/// 12 then privatizes the loop's reader objects per lane and leaves some
/// loops scalar.
#ifndef FUSEDSL_INDEPENDENT_ITERATIONS
#  if defined(__clang__)
#    define FUSEDSL_INDEPENDENT_ITERATIONS _Pragma("clang loop vectorize(assume_safety)")
#  elif defined(__GNUC__)
#    define FUSEDSL_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#  else
#    define FUSEDSL_INDEPENDENT_ITERATIONS
#  endif
#endif

/// Put before a short loop over a reduction's lanes whose add chooses
/// between values (a max): keeps g++ from unrolling it before the loop
/// vectorizer sees it. Unrolled, its lanes go to the block vectorizer,
/// which leaves the choice scalar (a row max or argmax several times
/// slower); as a loop it becomes a vector compare and blend.
#ifndef FUSEDSL_ROLLED_LANES
#  if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)  // nvcc's front end rejects the pragma
#    define FUSEDSL_ROLLED_LANES _Pragma("GCC unroll 1")
#  else
#    define FUSEDSL_ROLLED_LANES
#  endif
#endif

/// Shortest rows whose invariant subexpressions (the rsqrt of an rmsnorm) the
/// CPU kernels compute once per row when a chunk holds several rows; on rows
/// of 3, staging the rows' values costs more than computing them per element
/// (bench/RESULTS.md, "Values held per row over short rows").
#ifndef FUSEDSL_CPU_HELD_ROW_LENGTH
#  define FUSEDSL_CPU_HELD_ROW_LENGTH 4
#endif

/// Shortest rows the CUDA short-row kernel stages through shared memory
/// (the cached placeholder's rows in, contiguous outputs' rows out). Shorter
/// rows are read and written by each thread directly: a warp's loads then
/// touch few cache lines, and the barriers would cost more than they save
/// (bench/RESULTS.md, "Short rows on the GPU").
#ifndef FUSEDSL_CUDA_SHORT_ROW_STAGED
#  define FUSEDSL_CUDA_SHORT_ROW_STAGED 6
#endif

/// Bytes of a row each thread of the CUDA row kernel takes per chunk (and
/// holds in registers, for a row of one chunk): at least 16, at most 32
/// elements. More elements share a row's fixed costs (its merges, its
/// prologue), but 128 (32 floats) needs FUSEDSL_CUDA_ROW_THREADS 512 not to
/// spill, and that pair ran the matrix's softmax-like and norm rows slower
/// (bench/RESULTS.md, "Division and the row kernel's prologue").
#ifndef FUSEDSL_CUDA_ROW_BYTES
#  define FUSEDSL_CUDA_ROW_BYTES 64
#endif

/// Most threads per row (and per block) of the CUDA row kernel, a power of
/// two from 256 to 1024: its launch bound, which caps its registers at
/// 65536 / FUSEDSL_CUDA_ROW_THREADS per thread (1024: 64 registers, and the
/// occupancy that hides the latency of a row's passes). Rows of one chunk
/// have at most this many threads' FUSEDSL_CUDA_ROW_BYTES.
#ifndef FUSEDSL_CUDA_ROW_THREADS
#  define FUSEDSL_CUDA_ROW_THREADS 1024
#endif

/// Blocks of FUSEDSL_CUDA_ROW_THREADS threads the CUDA row kernel's launch
/// bound asks to fit on a multiprocessor at once: its registers are capped
/// at 65536 / (FUSEDSL_CUDA_ROW_THREADS * FUSEDSL_CUDA_ROW_MIN_BLOCKS).
#ifndef FUSEDSL_CUDA_ROW_MIN_BLOCKS
#  define FUSEDSL_CUDA_ROW_MIN_BLOCKS 1
#endif

/// The CUDA row kernel's `Packed` form: FUSEDSL_CUDA_PACKED_ROW_BYTES of a
/// row per thread (at most 32 elements), blocks of at most
/// FUSEDSL_CUDA_PACKED_ROW_THREADS threads, FUSEDSL_CUDA_PACKED_ROW_MIN_BLOCKS
/// of them per multiprocessor (256 and 3: at most 80 registers, enough for 32
/// floats of a row held and their operand values). It runs vectorized rows
/// from FUSEDSL_CUDA_PACKED_ROW_MIN elements up to its one chunk, where it
/// takes more elements per thread than the other form (f32 rows) and the
/// group has two or more reductions (softmax, layernorm, var_mean: up to 20%
/// faster; rows of 64 and 32768, half types and groups of one reduction were
/// slower: bench/RESULTS.md, "Rows of 32 elements per thread").
/// FUSEDSL_CUDA_PACKED_ROW_MIN 0: no `Packed` form (a smaller binary).
#ifndef FUSEDSL_CUDA_PACKED_ROW_MIN
#  define FUSEDSL_CUDA_PACKED_ROW_MIN 512
#endif
#ifndef FUSEDSL_CUDA_PACKED_ROW_BYTES
#  define FUSEDSL_CUDA_PACKED_ROW_BYTES 128
#endif
#ifndef FUSEDSL_CUDA_PACKED_ROW_THREADS
#  define FUSEDSL_CUDA_PACKED_ROW_THREADS 256
#endif
#ifndef FUSEDSL_CUDA_PACKED_ROW_MIN_BLOCKS
#  define FUSEDSL_CUDA_PACKED_ROW_MIN_BLOCKS 3
#endif

/// 1: CUDA kernels divide floats (and f16 / bf16 values, computed in float)
/// as IEEE 754 does, correctly rounded. 0 (the default): as torch.compile's
/// Triton kernels do, with PTX's `div.full.f32` (within 2 ulp over the
/// whole range): a division by a value constant over a row (softmax's sum)
/// then costs a multiply per element, its reciprocal computed once (docs/math.md).
#ifndef FUSEDSL_CUDA_IEEE_DIVISION
#  define FUSEDSL_CUDA_IEEE_DIVISION 0
#endif

/// Rows each thread of the CUDA column kernel adds at least, per chunk of
/// rows: fewer chunks than the device could hold when the columns are few,
/// so that a thread's loads outweigh its merge tree and the second kernel
/// has fewer partial states to merge.
#ifndef FUSEDSL_CUDA_COLUMN_ROWS
#  define FUSEDSL_CUDA_COLUMN_ROWS 32
#endif

/// Percent of the L2 cache the rows of one wave of the CUDA split kernel may
/// touch where its row's blocks meet (split.hpp): the passes after a wave's
/// first then read its rows from L2, for a meeting per wave and reduction.
/// 0: one wave of every row.
#ifndef FUSEDSL_CUDA_SPLIT_WAVE_L2
#  define FUSEDSL_CUDA_SPLIT_WAVE_L2 100
#endif

/// What a meeting of the split kernel's blocks costs, in percent of the L2
/// cache's bytes moved from memory (bench/RESULTS.md, "Split rows in one launch"):
/// rows run in waves only where the passes they save from memory outweigh
/// the meetings they add.
#ifndef FUSEDSL_CUDA_SPLIT_MEETING_L2
#  define FUSEDSL_CUDA_SPLIT_MEETING_L2 40
#endif
