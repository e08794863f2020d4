/// @file merge_axes.hpp
/// Merging the axes of a pointwise iteration space that every operand steps
/// through as one, so that kernels iterate a contiguous `[N, 3]` as one run of
/// 3N elements instead of N runs of 3.
#pragma once
#include <vector>  // std::vector

#include <fusedsl/core/shape.hpp>  // shape

namespace fusedsl::detail {

/// Drops the axes of extent 1 from `space` and merges each axis into the one
/// before it where every operand's stride steps through both as one (the
/// outer stride is the inner stride times the inner extent), rewriting
/// `space` and every operand's strides (`strides`, each of `space`'s rank).
/// Row-major flat positions keep their meaning, so flat ranges need no
/// change. An empty space is left as it is; a space of one element becomes
/// `[1]` with strides 0.
inline void merge_axes(shape& space, const std::vector<shape*>& strides) {
  if (space.numel() == 0) return;
  shape merged;
  std::vector<shape> merged_strides(strides.size());
  int previous = -1;  // the last axis kept
  for (int d = 0; d < space.rank(); ++d) {
    if (space[d] == 1) continue;
    bool joins = previous >= 0;
    for (const shape* s : strides) joins = joins && (*s)[previous] == (*s)[d] * space[d];
    if (joins) {
      merged[merged.rank() - 1] *= space[d];
      for (std::size_t k = 0; k < strides.size(); ++k) merged_strides[k][merged.rank() - 1] = (*strides[k])[d];
    } else {
      merged.push_back(space[d]);
      for (std::size_t k = 0; k < strides.size(); ++k) merged_strides[k].push_back((*strides[k])[d]);
    }
    previous = d;
  }
  if (merged.rank() == 0 && space.rank() > 0) {
    merged.push_back(1);
    for (shape& s : merged_strides) s.push_back(0);
  }
  space = merged;
  for (std::size_t k = 0; k < strides.size(); ++k) *strides[k] = merged_strides[k];
}

}  // namespace fusedsl::detail
