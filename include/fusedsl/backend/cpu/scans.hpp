/// @file scans.hpp
/// The CPU's scan kernel: a scan node over a range of its lines (the kept
/// elements of its space; each line runs along the scan's axis, contiguous
/// or strided), each line by one thread, its operand evaluated a chunk at a
/// time and combined element after element from the line's start: the same
/// order on every run, whatever the threads, tiles and fusion.
#pragma once
#include <algorithm>    // std::min
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <type_traits>  // std::remove_cvref_t

#include <fusedsl/backend/cpu/chunks.hpp>          // chunk, chunk_leaves, evaluate_chunk, tile_operands
#include <fusedsl/backend/cpu/reduction_axes.hpp>  // reduction_axes
#include <fusedsl/core/config.hpp>                 // FUSEDSL_CPU_KERNEL
#include <fusedsl/core/numerics.hpp>               // kernel_numerics, compute_t
#include <fusedsl/expr/traverse.hpp>               // leaf_slots
#include <fusedsl/runtime/nodes.hpp>               // node_runtime

namespace fusedsl::cpu_detail {

/// Scan node `s` over lines [begin, end) of its space, storing `Out`
/// elements: element i of a line is the combination of the operand's
/// elements 0..i of the line, in the scan's compute type (its input dtype's).
template <class Out, class S>
FUSEDSL_CPU_KERNEL void scan_rows(const S& scan_node, const node_runtime& n, const tile_operands& t, std::int64_t begin,
                                  std::int64_t end) {
  const S s = scan_node;  // a local copy: see chunk_reader
  using Arg = std::remove_cvref_t<decltype(s.arg)>;
  using acc_type = compute_t<kernel_numerics, S::input_dtype>;
  constexpr std::size_t slots = leaf_slots<Arg>();
  const reduction_axes axes(n);
  const int along = axes.reduced[0];
  std::int64_t base[slots + 1], step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) step[k] = n.leaves[k].strides[along];
  const std::int64_t out_step = n.out.strides[along];
  chunk_leaves<Arg> leaves(n);
  for (std::int64_t row = begin; row < end; ++row) {
    for (std::size_t k = 0; k < slots; ++k) base[k] = axes.row_offset(row, n.leaves[k].strides) - t.bias[k];
    Out* out = static_cast<Out*>(t.out) + axes.row_offset(row, n.out.strides) - t.out_bias;
    acc_type acc = S::op_type::template identity<acc_type>();
    for (std::int64_t done = 0; done < n.inner; done += chunk) {
      const std::int64_t m = std::min(chunk, n.inner - done);
      leaves.prepare(t.data, base, step, m);
      alignas(64) acc_type values[chunk];
      evaluate_chunk(s.arg, leaves.leaf, values, m);
      for (std::int64_t i = 0; i < m; ++i) {
        acc = s.op.combine(acc, values[i]);
        out[(done + i) * out_step] = static_cast<Out>(acc);
      }
      for (std::size_t k = 0; k < slots; ++k) base[k] += m * step[k];
    }
  }
}

}  // namespace fusedsl::cpu_detail
