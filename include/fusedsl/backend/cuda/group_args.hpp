/// @file group_args.hpp
/// What the host passes to a CUDA kernel for one group, besides the node
/// objects: the group's space, split into kept and reduced axes
/// (`space_args`), where each leaf slot is read and each node written
/// (`operand`), and the group's masks and workspace (`group_args`). Its own
/// header because it is the interface between the executor, which fills
/// it, and every kernel class, which reads it.
#pragma once
#include <cstdint>  // std::int64_t, std::uint64_t

#include <fusedsl/backend/cuda/program_nodes.hpp>  // node_count, slot_base
#include <fusedsl/core/shape.hpp>                  // max_rank

namespace fusedsl::cuda_detail {

/// How the pointwise kernel reaches an operand's `V` consecutive elements
/// of the group's flattened space (chosen per launch; other kernels use
/// `along_last`).
enum class vector_access : std::int32_t {
  along_last,  ///< stride 0 (one value) or 1 (a 16-byte vector) along the innermost kept axis, whose size V divides
  contiguous,  ///< contiguous over the whole space and 16-byte aligned: a vector at the flat index, no offsets
  elements,    ///< any strides: each element at its own offset
};

/// Where a kernel reads one leaf slot or writes one node: memory with
/// strides over the group's kept axes (outer) and reduced axes (inner). A
/// gathered leaf's strides are x's with 0 along the gathered axis, whose
/// stride and size follow (the reader adds the index's offset and checks it).
struct operand {
  const void* data = nullptr;           ///< nullptr: the value is in registers (or a param)
  std::int64_t kept[max_rank] = {};     ///< strides over the kept axes
  std::int64_t reduced[max_rank] = {};  ///< strides over the reduced axes
  std::uint64_t value = 0;              ///< a param's bits
  std::int64_t gathered_stride = 0;     ///< gathered leaves: x's stride along the gathered axis
  std::int64_t gathered_size = 0;       ///< gathered leaves: x's size along the gathered axis
  vector_access access = vector_access::along_last;
};

/// The iteration space of a group: kept axes (rows, or every axis of a
/// pointwise group), then reduced axes (the elements of a row).
struct space_args {
  int kept_rank = 0, reduced_rank = 0;
  std::int64_t kept[max_rank] = {}, reduced[max_rank] = {};
  std::int64_t outer = 1, inner = 1;  ///< products of the kept and reduced sizes
};

/// Everything a launch of one group needs besides the node objects.
template <class P>
struct group_args {
  space_args space;
  std::uint64_t active = 0;         ///< nodes the group runs
  std::uint64_t in_registers = 0;   ///< nodes whose readers in this group take the value from registers
  std::uint64_t stores_target = 0;  ///< nodes that store their statement target's element type
  std::uint64_t per_row = 0;        ///< row groups: pointwise nodes over the rows (a value per row, `row_value`)
  int cached = -1;                  ///< the placeholder the row kernel keeps in registers for the row (-1: none)
  int cache_source = -1;            ///< the slot whose address it is loaded from
  int threads_per_row = 1;          ///< row and finish kernels
  std::int64_t chunks = 1;          ///< column and split kernels: partial states per kept element
  char* workspace = nullptr;        ///< partial states
  unsigned* arrivals = nullptr;     ///< split kernel: counters per row slot (split.hpp), 0 between launches
  bool row_barriers = false;        ///< split kernel: the row's blocks meet before nodes that read reductions
  std::uint64_t meet_before = 0;    ///< split kernel with row barriers: nodes that read a reduction of the group
  std::int64_t work_offset[node_count<P>] = {};  ///< bytes into `workspace`, per node
  operand leaves[slot_base<P>[node_count<P>] + 1];
  operand outs[node_count<P>];
};

}  // namespace fusedsl::cuda_detail
