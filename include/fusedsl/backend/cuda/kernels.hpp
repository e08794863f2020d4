/// @file kernels.hpp
/// The CUDA kernels, one kernel class per header. Each kernel template
/// holds the code of every node of a program (program_nodes.hpp) and runs,
/// in order, the nodes its group names in `group_args::active` (a uniform
/// branch per node): one launch per group, whatever the group. Kernel
/// classes:
/// - `pointwise_kernel` (pointwise.hpp): nodes over one space, `V`
///   consecutive elements per thread (16-byte loads and stores for the
///   operands contiguous and aligned along them), values between nodes in
///   registers.
/// - `row_kernel` (rows.hpp): reductions over the same axes with the
///   pointwise nodes over their operand: `threads_per_row` threads per row,
///   each pass over the row in chunks of a few vectors per thread, a tree
///   of shuffles and one barrier per reduction; rows of one chunk keep a
///   placeholder that several nodes read in registers (each element read
///   once).
/// - `short_row_kernel` (short_rows.hpp): rows of at most 32 elements, a
///   row per thread, rows staged through shared memory.
/// - `column_kernel` (columns.hpp) + `finish_kernel` (partials.hpp):
///   reductions over leading axes, threads over vectors of columns
///   (16-byte loads when contiguous and aligned) and rows, partial states
///   per chunk of rows (chunks enough to fill the device), merged in a
///   fixed order.
/// - `split_kernel` (split.hpp): few long rows cut into chunks, merged in
///   the same launch by each row's last block to finish, or, where later
///   nodes read the reductions, by every block of the row after a barrier.
///
/// What they share: the launch arguments (group_args.hpp), gathering and
/// storing operands (gather.hpp) and merging states (merges.hpp).
#pragma once
#include <fusedsl/backend/cuda/columns.hpp>     // column_kernel
#include <fusedsl/backend/cuda/gather.hpp>      // is_param_leaf, value_t, target_element_t
#include <fusedsl/backend/cuda/group_args.hpp>  // group_args, operand, space_args
#include <fusedsl/backend/cuda/merges.hpp>      // merge_shared_bytes, largest_state
#include <fusedsl/backend/cuda/partials.hpp>    // finish_kernel, unroll
#include <fusedsl/backend/cuda/pointwise.hpp>   // pointwise_kernel
#include <fusedsl/backend/cuda/rows.hpp>        // row_kernel, chunk_elements
#include <fusedsl/backend/cuda/short_rows.hpp>  // short_row_kernel, short_row_limit
#include <fusedsl/backend/cuda/split.hpp>       // split_kernel
