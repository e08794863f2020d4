/// @file reason.hpp
/// Why two nodes were not fused: one value per gate, with Inductor's WhyNoFuse wording.
#pragma once

namespace fusedsl {

/// Outcome of a fusion check; `none` means the pair may fuse.
enum class why_no_fuse : unsigned char {
  none,
  same_node,
  node1_nop,
  node1_extern,
  node2_extern_or_nop,
  order,
  prologue_off,
  prologue_not_pointwise,
  prologue_inputs,
  template_epilogue,
  device_mismatch,
  no_shared_data,
  exceeds_max_fusion,
  peak_memory,
  too_many_io,
  memory_deps_mismatch,
  intermediate_nodes,
  score_threshold,
  too_far,
  reduce_mismatch,
  nonreduce_mismatch,
  tiling_mismatch,
  rnumel_incompatible,
  invalid_reduction_tiling,
  numel_incompatible,
  foreach_length,
  foreach_reduction,
  foreach_no_dep,
  mix_order_second,
  mix_order_contiguity,
  mix_order_ancestor,
  mix_order_score,
  cpp_loops,
  cpp_horizontal_size,
  cpp_template,
  cycle,
  policy,
};

/// The reason as text (Inductor's WhyNoFuse message where Inductor has one).
constexpr const char* to_string(why_no_fuse r) {
  switch (r) {
    case why_no_fuse::none: return "fused";
    case why_no_fuse::same_node: return "same node";
    case why_no_fuse::node1_nop: return "node1 is nop";
    case why_no_fuse::node1_extern: return "node1 is extern but not a triton kernel";
    case why_no_fuse::node2_extern_or_nop: return "node2 is extern or nop";
    case why_no_fuse::order: return "node1 must go before node2";
    case why_no_fuse::prologue_off: return "prologue fusion turned off";
    case why_no_fuse::prologue_not_pointwise: return "prologue fusion only supported for pointwise nodes";
    case why_no_fuse::prologue_inputs: return "template has no allowed prologue inputs";
    case why_no_fuse::template_epilogue: return "template epilogue not satisfied";
    case why_no_fuse::device_mismatch: return "device mismatch";
    case why_no_fuse::no_shared_data: return "no shared data";
    case why_no_fuse::exceeds_max_fusion: return "exceeds max fusion";
    case why_no_fuse::peak_memory: return "Fusion will increase peak memory";
    case why_no_fuse::too_many_io: return "fusion_prevent_too_many_reads_and_writes";
    case why_no_fuse::memory_deps_mismatch: return "memory deps did not match";
    case why_no_fuse::intermediate_nodes: return "intermediate nodes between node1 & node2";
    case why_no_fuse::score_threshold: return "score_fusion_memory_threshold";
    case why_no_fuse::too_far: return "Nodes are too far away. Fusing them may increase peak memory.";
    case why_no_fuse::reduce_mismatch: return "numel/rnumel mismatch (reduce)";
    case why_no_fuse::nonreduce_mismatch: return "numel/rnumel mismatch (non-reduce)";
    case why_no_fuse::tiling_mismatch: return "tiling mismatch";
    case why_no_fuse::rnumel_incompatible: return "nodes numel/rnumel incompatibility";
    case why_no_fuse::invalid_reduction_tiling: return "invalid tiling for reduction";
    case why_no_fuse::numel_incompatible: return "nodes numel incompatibility";
    case why_no_fuse::foreach_length: return "foreach do not have same length";
    case why_no_fuse::foreach_reduction: return "foreach ops cannot be fused with reductions";
    case why_no_fuse::foreach_no_dep: return "candidate is not a dep of any foreach subnode";
    case why_no_fuse::mix_order_second: return "nothing fuses before a mix-order reduction";
    case why_no_fuse::mix_order_contiguity:
      return "mix-order reduction: its contiguous part cannot take a node with non-contiguous loads";
    case why_no_fuse::mix_order_ancestor: return "mix-order reduction: the node depends on its other part, or feeds it";
    case why_no_fuse::mix_order_score: return "mix-order reduction: a reduction must share at least the kernel's numel";
    case why_no_fuse::cpp_loops:
      return "C++ backend: the loops are neither the same, a reduction's, compatible ranges, nor shared outer loops";
    case why_no_fuse::cpp_horizontal_size: return "C++ backend: exceeds cpp.max_horizontal_fusion_size";
    case why_no_fuse::cpp_template:
      return "C++ backend: a template takes pointwise epilogues reading its output at one index";
    case why_no_fuse::cycle: return "will create cycle";
    case why_no_fuse::policy: return "refused by the fusion policy";
  }
  return "?";
}

}  // namespace fusedsl
