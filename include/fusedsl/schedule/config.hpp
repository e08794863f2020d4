/// @file config.hpp
/// Knobs of the fusion scheduler, defaulting to PyTorch Inductor's settings.
#pragma once
#include <compare>  // operator<=>
#include <cstdint>  // std::int64_t

namespace fusedsl {

/// A PyTorch release, as far as Inductor's fusion rules differ between releases.
struct torch_version {
  int major = 2;  ///< 2 in "2.11.0+cu130"
  int minor = 0;  ///< 11 in "2.11.0+cu130"

  constexpr auto operator<=>(const torch_version&) const = default;
};

/// The newest PyTorch release whose rules fusedsl follows; programs are scheduled by its rules.
inline constexpr torch_version newest_torch{2, 15};

/// Scheduler settings; the defaults are Inductor's (the newest release's torch._inductor.config).
struct fuse_config {
  torch_version torch = newest_torch;                  ///< whose Inductor rules apply (a dump's torch_version)
  int max_rounds = 10;                                 ///< fuse_nodes: rounds of fuse_nodes_once at most
  int max_fusion_buffer_group_pairwise_attempts = 64;  ///< partners tried after a node in a bucket
  int max_fusion_size = 64;                            ///< nodes in one fused kernel at most
  bool aggressive_fusion = false;                      ///< also pair nodes of equal group, shared data or not
  std::int64_t score_fusion_memory_threshold = 10;     ///< horizontal fusions must share this many bytes
  int max_proximity = 64;                              ///< horizontal pairs farther apart than this are refused
  bool epilogue_fusion = true;                         ///< templates may take pointwise epilogues
  bool epilogue_fusion_first = false;                  ///< score template epilogues above other fusions
  bool prologue_fusion = true;                         ///< templates may take pointwise prologues...
  bool template_prologue_inputs = false;         ///< ...but only inputs the template allows (dumps do not say which)
  bool peak_memory_guard = true;                 ///< refuse fusions that likely raise peak memory
  int max_fusion_unique_io_buffers = 0;          ///< 0: no limit (Inductor's None)
  double min_overlap_ratio = 1.1;                ///< buffer-overlap score needs this share of the reads (> 1: off)
  bool loop_ordering_after_fusion = true;        ///< one extra round that may reorder loops to match
  bool tiling_prevents_pointwise_fusion = true;  ///< SIMD backend: pointwise pairs need compatible tilings
  bool tiling_prevents_reduction_fusion = true;  ///< SIMD backend: pointwise into reduction needs a valid tiling
  /// Triton backend (triton.mix_order_reduction): fuse a reduction along rows with one along
  /// columns of the same tensor (on CUDA or XPU devices). Off by default, unlike Inductor:
  /// fusedsl's backends have no kernel for such a group; a dump turns it on as Inductor had it.
  bool mix_order_reduction = false;
  /// CPU nodes follow Inductor's C++ backend (CppScheduling: its group rules, outer-loop
  /// fusion, no loop reordering). Off by default: fusedsl's own CPU kernels take the SIMD
  /// backend's groups; a dump turns it on as its Inductor had it (`cpu_backend`).
  bool cpp_backend = false;
  int cpp_max_horizontal_fusion_size = 16;  ///< C++ backend: nodes in a horizontal fusion at most
  bool record_log = true;                   ///< keep every candidate and its outcome (for explain)
  bool record_rejected = false;             ///< also keep pairs refused while collecting candidates
};

}  // namespace fusedsl
