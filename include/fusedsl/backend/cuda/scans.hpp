/// @file scans.hpp
/// How CUDA kernels scan across the threads of a row in a fixed order:
/// `scan_row` gives each thread the combination of the values of the
/// row's threads before it, and the row's total. The row kernel (rows.hpp)
/// builds its scans of a chunk of a row on it; the short-row kernel scans a
/// row in one thread and needs none.
#pragma once
#include <fusedsl/backend/cuda/merges.hpp>  // shuffle_up, shuffle_from
#include <fusedsl/core/config.hpp>          // FUSEDSL_DEVICE, FUSEDSL_FORCEINLINE

namespace fusedsl::cuda_detail {

/// What `scan_row` gives a thread: the combination of the values of the
/// row's threads before it (the identity for the first), and of all of them.
template <class T>
struct row_prefix {
  T before, total;
};

/// Scans `value` over the `threads_per_row` threads (a power of two) of each
/// row of the block, in lane order: inside warps a fixed ladder of shuffles
/// (step 1, 2, 4, ...: a lane combines the partial of the lanes below it
/// with its own), then, for rows of several warps, the warps' totals through
/// shared memory, combined in warp order by every thread. Every thread of
/// the block calls it. It shares `merge_row`'s areas and turns (`shared`,
/// `area_bytes`, `turn`), so one barrier per scan suffices, as per merge.
template <class Op, class T>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE row_prefix<T> scan_row(const Op& op, T value, int threads_per_row,
                                                          unsigned char* shared, int area_bytes, int& turn) {
  const int width = threads_per_row < 32 ? threads_per_row : 32;
  const int in_warp = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int lane = in_warp & (width - 1);
  T inclusive = value;
  for (int offset = 1; offset < width; offset *= 2) {
    const T lower = shuffle_up(inclusive, offset, width);
    if (lane >= offset) inclusive = op.combine(lower, inclusive);
  }
  const T below = shuffle_up(inclusive, 1, width);
  row_prefix<T> result{lane == 0 ? Op::template identity<T>() : below, shuffle_from(inclusive, width - 1, width)};
  if (threads_per_row <= 32) return result;
  T* totals = reinterpret_cast<T*>(shared + (turn++ & 1) * area_bytes);
  if (in_warp == 31) totals[warp] = result.total;
  __syncthreads();
  const int warps_per_row = threads_per_row >> 5, first = warp & ~(warps_per_row - 1);
  T earlier = Op::template identity<T>();
  for (int w = first; w < warp; ++w) earlier = op.combine(earlier, totals[w]);
  T total = earlier;
  for (int w = warp; w < first + warps_per_row; ++w) total = op.combine(total, totals[w]);
  return {op.combine(earlier, result.before), total};
}

}  // namespace fusedsl::cuda_detail
