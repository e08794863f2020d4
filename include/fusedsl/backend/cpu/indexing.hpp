/// @file indexing.hpp
/// Index math of the CPU loops over a node's row-major space: the
/// multi-index of a flat position, the next multi-index, the innermost entry
/// of strides or an index, offsets. Its own header because every loop
/// (pointwise, rows, columns) and the executor's fused group loops use it.
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/core/shape.hpp>  // shape

namespace fusedsl::cpu_detail {

/// The row-major multi-index of flat position `flat` over `sizes`.
inline shape unravel(std::int64_t flat, const shape& sizes) {
  shape index = sizes;
  for (int d = sizes.rank() - 1; d >= 0; --d) {
    if (flat < sizes[d]) {  // the rest is 0: no division (a tile starts on a row's first element or inside it)
      index[d] = flat;
      flat = 0;
      continue;
    }
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  return index;
}

/// Steps multi-index `index` over `sizes` to its next row-major position
/// along axes [0, last]; the axes after `last` are left as they are.
inline void step_index(shape& index, const shape& sizes, int last) {
  for (int d = last; d >= 0; --d) {
    if (++index[d] < sizes[d]) return;
    index[d] = 0;
  }
}

/// The innermost entry of `s` (strides or a multi-index) over a space of
/// rank `rank`; 0 for rank 0, whose one element has no axis to step along.
inline std::int64_t innermost(const shape& s, int rank) { return rank == 0 ? 0 : s[rank - 1]; }

inline std::int64_t dot(const shape& index, const shape& strides) {
  std::int64_t offset = 0;
  for (int d = 0; d < index.rank(); ++d) offset += index[d] * strides[d];
  return offset;
}

}  // namespace fusedsl::cpu_detail
