/// @file node.hpp
/// Scheduler nodes: what kind of kernel a node is and what it reads and writes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <fusedsl/graph/dep.hpp>
#include <fusedsl/graph/element_type.hpp>

namespace fusedsl {

/// What kind of kernel a scheduler node is (Inductor's node classes and flags).
enum class node_kind : unsigned char {
  pointwise,        ///< elementwise loop over `numel` (rnumel == 1)
  reduction,        ///< reduces `rnumel` elements for each of `numel` outputs
  extern_kernel,    ///< library call (matmul, conv, ...): never fused
  nop,              ///< no kernel at all (views, concat placeholders): never fused
  template_kernel,  ///< generated template (e.g. a Triton matmul): takes epilogues
  foreach,          ///< horizontal group of independent kernels (combo kernel)
};

/// Short lower-case name of a kind ("pointwise", "reduction", ...).
constexpr const char* to_string(node_kind k) {
  switch (k) {
    case node_kind::pointwise: return "pointwise";
    case node_kind::reduction: return "reduction";
    case node_kind::extern_kernel: return "extern";
    case node_kind::nop: return "nop";
    case node_kind::template_kernel: return "template";
    case node_kind::foreach: return "foreach";
  }
  return "?";
}

/// A node as the user describes it. The iteration space is the `group`
/// (device, numel, rnumel) Inductor's SIMD backend compares.
struct node_spec {
  std::string name;  ///< unique node name
  node_kind kind = node_kind::pointwise;
  std::string device = "cpu";                  ///< nodes on different devices never fuse
  std::int64_t numel = 1;                      ///< pointwise size of the group
  std::int64_t rnumel = 1;                     ///< reduction size of the group (1 when not a reduction)
  std::vector<dep_spec> reads;                 ///< deps read, in order
  std::vector<dep_spec> writes;                ///< deps written, in order
  std::vector<std::string> buffers;            ///< buffers written; empty means the buffers of `writes`
  std::vector<std::string> members;            ///< names reported for this node in plans; empty means {name}
  std::string foreach_group;                   ///< the foreach (combo) kernel this node belongs to; empty: none
  element_type dtype = element_type::unknown;  ///< element type of the output (optional)
  /// A split reduction's first stage (Inductor's `_split_size`): the numel and rnumel of the
  /// reduction before the split; 0 when the node is not one.
  std::int64_t unsplit_numel = 0, unsplit_rnumel = 0;
  /// The C++ backend's group (CPU dumps): the loop sizes of the pointwise part and of the
  /// reduction part after Inductor merged the node's loops, whose products are `numel`
  /// and `rnumel`; both empty when not given (then {numel} and, for a reduction, {rnumel}).
  std::vector<std::int64_t> loop_sizes, reduction_loop_sizes;
};

}  // namespace fusedsl
