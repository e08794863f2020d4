/// @file indexing.hpp
/// Index math of the CPU loops over a node's row-major space: the
/// multi-index of a flat position, the next multi-index, the innermost entry
/// of strides or an index, offsets, the whole short rows a chunk takes. Its
/// own header because every loop (pointwise, rows, columns) and the
/// executor's fused group loops use it.
#pragma once
#include <algorithm>  // std::min
#include <cstdint>    // std::int64_t

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

/// Whole rows of `space`'s innermost axis that a loop at multi-index `index`
/// takes as one chunk: at most `at_most` (rows_per_chunk), within the `left`
/// elements of its range and the rest of the second-innermost axis; 0 when
/// `index` is inside a row or fewer than two rows are left.
inline std::int64_t whole_rows(const shape& index, const shape& space, std::int64_t left, std::int64_t at_most) {
  const int r = space.rank();
  if (at_most <= 1 || r < 2 || index[r - 1] != 0 || left < 2 * space[r - 1]) return 0;
  return std::min({at_most, left / space[r - 1], space[r - 2] - index[r - 2]});
}

/// Steps `index`, at the first element of a row, `rows` rows on (whole_rows).
inline void step_rows(shape& index, const shape& space, std::int64_t rows) {
  const int r = space.rank();
  if ((index[r - 2] += rows) == space[r - 2]) {
    index[r - 2] = 0;
    step_index(index, space, r - 3);
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
