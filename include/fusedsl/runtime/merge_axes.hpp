/// @file merge_axes.hpp
/// Merging the axes of an iteration space that every operand steps through
/// as one, so that kernels iterate a contiguous `[N, 3]` as one run of 3N
/// elements instead of N runs of 3: a pointwise space (`merge_axes`), or a
/// reduction's, its reduced axes with reduced ones and its kept axes with
/// kept ones (`merge_reduction_axes`).
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

/// merge_axes for a reduction's space: an axis merges into the one before it
/// only when both are reduced or both kept (`reduced_mask`, rewritten), and
/// axes of extent 1 stay, so that each kind keeps at least the axes it had of
/// extent 1 and the flat kept and reduced positions keep their meaning (a
/// sum over both axes of a contiguous `[N, 3]` reduces one axis of 3N).
inline void merge_reduction_axes(shape& space, unsigned& reduced_mask, const std::vector<shape*>& strides) {
  if (space.numel() == 0) return;
  shape merged;
  unsigned mask = 0;
  std::vector<shape> merged_strides(strides.size());
  for (int d = 0; d < space.rank(); ++d) {
    const bool reduced = (reduced_mask >> d & 1u) != 0;
    const int last = merged.rank() - 1;
    bool joins = last >= 0 && ((mask >> last & 1u) != 0) == reduced && merged[last] > 1 && space[d] > 1;
    for (std::size_t k = 0; k < strides.size(); ++k)
      joins = joins && merged_strides[k][last] == (*strides[k])[d] * space[d];
    if (joins) {
      merged[last] *= space[d];
      for (std::size_t k = 0; k < strides.size(); ++k) merged_strides[k][last] = (*strides[k])[d];
    } else {
      if (reduced) mask |= 1u << merged.rank();
      merged.push_back(space[d]);
      for (std::size_t k = 0; k < strides.size(); ++k) merged_strides[k].push_back((*strides[k])[d]);
    }
  }
  space = merged;
  reduced_mask = mask;
  for (std::size_t k = 0; k < strides.size(); ++k) *strides[k] = merged_strides[k];
}

}  // namespace fusedsl::detail
