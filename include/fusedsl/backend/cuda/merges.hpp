/// @file merges.hpp
/// How CUDA kernels merge reduction states across threads in a fixed
/// order: one merge (`merge_states`, a fast one for var and std),
/// shuffles, the tree over a row's threads (`merge_row`) and the shared
/// memory it takes. Its own header because the row, split and column
/// kernels and the finishing stage all merge.
#pragma once
#include <cstring>      // std::memcpy
#include <type_traits>  // std::is_same_v
#include <utility>      // std::integer_sequence, std::make_integer_sequence

#include <fusedsl/backend/cuda/gather.hpp>         // state_t, scan_value_t
#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_count, is_reduction_at, is_scan_at
#include <fusedsl/core/config.hpp>                 // FUSEDSL_DEVICE, FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE
#include <fusedsl/expr/reduction_ops.hpp>          // ops::moment

namespace fusedsl::cuda_detail {

/// True for var and std (`ops::moment`).
template <class Op>
inline constexpr bool is_moment = false;
template <bool Root>
inline constexpr bool is_moment<ops::moment<Root>> = true;

/// `op.merge(s, o)`, except for var and std over floats: Chan's merge with
/// one fast division (`__fdividef`, exact for the power-of-two counts of
/// full rows) instead of two IEEE divisions, and no branches. With IEEE
/// divisions these merges are about a quarter of layernorm's instructions
/// (docs/backends-cuda.md).
template <class Op, class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE void merge_states(const Op& op, State& s, const State& o) {
  if constexpr (is_moment<Op> && std::is_same_v<State, typename Op::template state<float>>) {
    // Empty states (n = 0) have mean and m2 0: w = 0 keeps s; s empty takes o (w = 1 within 2 ulp).
    const float n = s.n + o.n, w = n > 0.0f ? __fdividef(o.n, n) : 0.0f, delta = o.mean - s.mean;
    s.mean += delta * w;
    s.m2 += o.m2 + delta * delta * (s.n * w);
    s.n = n;
  } else {
    op.merge(s, o);
  }
}

/// `state` as `shuffle` (a `__shfl_*_sync` of one word) moves it between
/// lanes, word by word: any state or value type, bool and 8-bit ones too.
template <class State, class Shuffle>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State shuffled(const State& state, Shuffle shuffle) {
  unsigned words[(sizeof(State) + 3) / 4] = {};
  std::memcpy(words, &state, sizeof(State));
#pragma unroll
  for (auto& w : words) w = shuffle(w);
  State result;
  std::memcpy(&result, words, sizeof(State));
  return result;
}
/// `state` of the lane `offset` further down.
template <class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State shuffle_down(const State& state, int offset, int width) {
  return shuffled(state,
                  [&](unsigned w) { return __shfl_down_sync(0xffffffffu, w, static_cast<unsigned>(offset), width); });
}
/// `state` of the lane `offset` further up (a lane's own below `offset`).
template <class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State shuffle_up(const State& state, int offset, int width) {
  return shuffled(state,
                  [&](unsigned w) { return __shfl_up_sync(0xffffffffu, w, static_cast<unsigned>(offset), width); });
}
/// `state` of lane `lane` of each `width` lanes.
template <class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State shuffle_from(const State& state, int lane, int width) {
  return shuffled(state, [&](unsigned w) { return __shfl_sync(0xffffffffu, w, lane, width); });
}

/// Bytes of one of `merge_row`'s two shared-memory areas: a state per warp
/// of `threads` threads, the largest state being `state_bytes`.
FUSEDSL_HOST_DEVICE constexpr int merge_area_bytes(int threads, int state_bytes) {
  return ((threads + 31) / 32 * state_bytes + 15) / 16 * 16;
}

/// Merges the states of the `threads_per_row` threads (a power of two) of
/// each row of the block in a fixed tree: shuffles inside warps, then the
/// warps' states through shared memory; every thread gets its row's total.
/// Every thread of the block calls it. Consecutive merges write their
/// warps' states to the two areas of `shared` in turns (`turn`): so one
/// barrier per merge suffices (a warp writing the area of the merge before
/// last has passed the last merge's barrier, so every warp has read it).
template <class Op, class State>
FUSEDSL_DEVICE FUSEDSL_FORCEINLINE State merge_row(const Op& op, State state, int threads_per_row,
                                                   unsigned char* shared, int area_bytes, int& turn) {
  // Powers of two: masks and shifts, not integer divisions (about 25 instructions each).
  const int width = threads_per_row < 32 ? threads_per_row : 32;
  const int in_warp = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  // Unrolled over the five steps a warp can take (a loop over a run-time width
  // spent as many instructions on its bookkeeping as on the merges).
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    if (offset < width) {
      const State other = shuffle_down(state, offset, width);
      if ((in_warp & (width - 1)) < offset) merge_states(op, state, other);
    }
  }
  if (threads_per_row <= 32) return shuffle_from(state, 0, width);
  State* partials = reinterpret_cast<State*>(shared + (turn++ & 1) * area_bytes);
  const int warps_per_row = threads_per_row >> 5;
  if (in_warp == 0) partials[warp] = state;
  __syncthreads();
  State total = in_warp < warps_per_row ? partials[(warp & ~(warps_per_row - 1)) + in_warp] : State{};
  // log2(warps_per_row) steps (3 for rows of 8 warps), not 5.
  for (int offset = warps_per_row / 2; offset > 0; offset /= 2) {
    const State other = shuffle_down(total, offset, 32);
    if (in_warp < offset) merge_states(op, total, other);
  }
  return shuffle_from(total, 0, 32);
}

/// Bytes of reduction node J's state, or of scan node J's running value (0
/// for other nodes): what a merge or a scan puts in shared memory per warp.
template <class P, int J>
constexpr int state_bytes_of() {
  if constexpr (is_reduction_at<P, J>) return static_cast<int>(sizeof(state_t<P, J>));
  else if constexpr (is_scan_at<P, J>) return static_cast<int>(sizeof(scan_value_t<P, J>));
  else return 0;
}
template <class P, int... J>
constexpr int largest_state_bytes(std::integer_sequence<int, J...>) {
  int largest = 1;
  ((largest = largest < state_bytes_of<P, J>() ? state_bytes_of<P, J>() : largest), ...);
  return largest;
}
/// The largest state of `P`'s reductions and scans (bytes; 1 without any).
template <class P>
inline constexpr int largest_state = largest_state_bytes<P>(std::make_integer_sequence<int, node_count<P>>{});

/// Shared memory of a kernel of `threads` threads that merges states with
/// `merge_row`: its two areas.
template <class P>
constexpr int merge_shared_bytes(int threads) {
  return 2 * merge_area_bytes(threads, largest_state<P>);
}

}  // namespace fusedsl::cuda_detail
