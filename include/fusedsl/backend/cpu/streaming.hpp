/// @file streaming.hpp
/// Non-temporal (streaming) stores of the CPU loops' outputs: which outputs
/// are written around the caches (`streams_output`), the stores that write
/// them (`store_chunk`) and the fence after them. Its own header because it
/// alone needs the x86 intrinsics, and because the pointwise loops of
/// pointwise.hpp and of the executor's fused groups share it.
#pragma once
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uintptr_t
#include <type_traits>  // std::is_same_v

#include <fusedsl/backend/cpu/chunks.hpp>    // chunk
#include <fusedsl/backend/cpu/indexing.hpp>  // innermost
#include <fusedsl/core/config.hpp>           // FUSEDSL_FORCEINLINE, FUSEDSL_HOST_AVX, FUSEDSL_HOST_SSE2
#include <fusedsl/runtime/nodes.hpp>         // node_runtime

#if FUSEDSL_HOST_AVX
#  include <immintrin.h>  // _mm256_stream_si256, _mm256_loadu_si256, _mm_sfence
#elif FUSEDSL_HOST_SSE2
#  include <emmintrin.h>  // _mm_stream_si128, _mm_loadu_si128, _mm_sfence
#endif

namespace fusedsl::cpu_detail {

using detail::node_runtime;

/// Outputs of at least this many bytes are written with non-temporal
/// stores, around the caches (when `may_stream`): no cache holds them
/// anyway, and an ordinary store first reads the line it writes, so that
/// streaming saves a fifth of the traffic of exp(a) * b + c.
inline constexpr std::int64_t streaming_bytes = std::int64_t{16} << 20;

#if FUSEDSL_HOST_SSE2
/// Bytes of one non-temporal store: 32 where the compile targets AVX
/// (-march=native, -mavx2), else 16; the AVX2 target clone is compiled from
/// the baseline's preprocessed text, so it stores 16. (32-byte stores make
/// `exp(a) * b + c` a little faster than 16-byte ones; bench/RESULTS.md.)
#  if FUSEDSL_HOST_AVX
inline constexpr std::size_t stream_bytes = 32;
#  else
inline constexpr std::size_t stream_bytes = 16;
#  endif

/// One non-temporal store of `stream_bytes` from `from` (any alignment) to
/// `to` (aligned to `stream_bytes`).
FUSEDSL_FORCEINLINE void stream_store(void* to, const void* from) {
#  if FUSEDSL_HOST_AVX
  _mm256_stream_si256(static_cast<__m256i*>(to), _mm256_loadu_si256(static_cast<const __m256i*>(from)));
#  else
  _mm_stream_si128(static_cast<__m128i*>(to), _mm_loadu_si128(static_cast<const __m128i*>(from)));
#  endif
}
#endif

/// Bytes of a cache line, the unit that non-temporal stores write whole.
inline constexpr std::size_t line_bytes = 64;

/// Stores the `n` `values` at contiguous `out`, converted to Out; with
/// `stream`, the whole cache lines in non-temporal stores and the partial
/// ones at the ends with ordinary stores (the caller fences once it is done).
/// A line written partly around the caches and partly through them, as the
/// lines split between the chunks of short rows would be, reaches memory
/// piece by piece, far slower than whole lines.
template <class Out, class V>
FUSEDSL_FORCEINLINE void store_chunk(Out* out, const V* values, std::int64_t n, bool stream) {
#if FUSEDSL_HOST_SSE2
  if constexpr (line_bytes % sizeof(Out) == 0) {
    if (stream) {
      alignas(64) Out converted[chunk];
      const Out* from = converted;
      if constexpr (std::is_same_v<Out, V>) from = values;
      else
        for (std::int64_t i = 0; i < n; ++i) converted[i] = static_cast<Out>(values[i]);
      constexpr std::int64_t per_store = stream_bytes / sizeof(Out), per_line = line_bytes / sizeof(Out);
      std::int64_t i = 0;
      for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % line_bytes != 0; ++i) out[i] = from[i];
      for (; i + per_line <= n; i += per_line)
        for (std::int64_t k = 0; k < per_line; k += per_store) stream_store(out + i + k, from + i + k);
      for (; i < n; ++i) out[i] = from[i];
      return;
    }
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(values[i]);
}

/// Orders the non-temporal stores of this thread before what follows (the
/// barrier after which other threads read them). Once per thread and loop,
/// after its last tile: the loops that stream (pointwise_range,
/// pointwise_group_range) leave it to their caller, since a fence waits for
/// the stores to reach memory (one per tile of 8192 elements slows
/// `exp(a) * b + c` measurably; bench/RESULTS.md).
inline void fence_streaming_stores() {
#if FUSEDSL_HOST_SSE2
  _mm_sfence();
#endif
}

/// True when node `n`'s output, `Out` elements, is to be written around the
/// caches: allowed (`may_stream`), contiguous and at least streaming_bytes.
template <class Out>
bool streams_output(const node_runtime& n, bool may_stream) {
  const int r = n.space.rank();
  return may_stream && innermost(n.out.strides, r) == 1 &&
         n.out_sizes.numel() * std::int64_t{sizeof(Out)} >= streaming_bytes;
}

}  // namespace fusedsl::cpu_detail
