/// @file score.hpp
/// The priority of a candidate fusion (Inductor's FusionScore) and its ordering.
#pragma once
#include <cstdint>

namespace fusedsl {

/// How good a candidate fusion is; compared with fusion_score_less.
struct fusion_score {
  int template_score = 0;                 ///< 0: prologue into a template; 2: epilogue-first or sharing data; else 1
  bool type_score = false;                ///< same reduction-ness and some shared data
  std::int64_t memory_score = 0;          ///< bytes of exactly matching deps (memory traffic saved)
  std::int64_t buffer_overlap_score = 0;  ///< bytes of same-buffer reads at different indices
  std::int64_t proximity_score = 0;       ///< minus the distance in the original order

  constexpr bool operator==(const fusion_score&) const = default;
};

/// Inductor's FusionScore.__lt__: template score first; then memory if the two memory
/// scores differ more than 16x; else (type, memory, overlap, proximity) lexicographically.
/// Not a strict weak order in general, which is why the scheduler sorts with Python's algorithm.
constexpr bool fusion_score_less(const fusion_score& a, const fusion_score& b) {
  if (a.template_score != b.template_score) return a.template_score < b.template_score;
  std::int64_t hi = a.memory_score > b.memory_score ? a.memory_score : b.memory_score;
  std::int64_t lo = a.memory_score > b.memory_score ? b.memory_score : a.memory_score;
  if (hi > lo * 16) return a.memory_score < b.memory_score;
  if (a.type_score != b.type_score) return a.type_score < b.type_score;
  if (a.memory_score != b.memory_score) return a.memory_score < b.memory_score;
  if (a.buffer_overlap_score != b.buffer_overlap_score) return a.buffer_overlap_score < b.buffer_overlap_score;
  return a.proximity_score < b.proximity_score;
}

}  // namespace fusedsl
