/// @file kernel_class.hpp
/// How a node or a fused group runs, decided the same way by every backend
/// from the nodes' shapes at run time: the kernel classes (pointwise, rows,
/// columns, split) and the predicates behind them. A backend supplies only
/// its split rule (how many rows fill it) and its own strategy for groups.
#pragma once
#include <bit>      // std::countr_one, std::countr_zero
#include <cstdint>  // std::int64_t
#include <vector>   // std::vector

#include <fusedsl/core/shape.hpp>     // shape
#include <fusedsl/runtime/nodes.hpp>  // node_runtime

namespace fusedsl::detail {

/// The kernel classes of every backend.
enum class kernel_class {
  pointwise,  ///< elementwise over one space
  rows,       ///< reductions of rows (or scans along them), each row by one worker
  columns,    ///< a reduction of leading axes: rows added into column states, then merged
  split,      ///< few long rows: each row split across workers, then merged
};

/// The class's name, for messages.
inline const char* name(kernel_class k) {
  switch (k) {
    case kernel_class::pointwise: return "pointwise";
    case kernel_class::rows: return "row";
    case kernel_class::columns: return "column";
    default: return "split";
  }
}

/// True when a reduction reduces its leading axes and keeps the trailing
/// ones (a column reduction): whole rows are then added into a vector of
/// column states, reading memory in order.
inline bool reduces_leading(const node_runtime& n) {
  if (!n.reduction || n.reduced_mask == 0) return false;
  const unsigned leading = (1u << std::countr_one(n.reduced_mask)) - 1u;
  return n.reduced_mask == leading && n.reduced_mask != (1u << n.space.rank()) - 1u;
}

/// True when a reduction reduces the innermost axes of its space.
inline bool reduces_innermost(const node_runtime& n) {
  const unsigned all = (1u << n.space.rank()) - 1u;
  const unsigned trailing = all & ~((1u << std::countr_zero(n.reduced_mask | (1u << n.space.rank()))) - 1u);
  return n.reduced_mask != 0 && n.reduced_mask == trailing;
}

/// When a backend splits rows across workers: fewer rows than `max_rows`
/// (a few per worker: the rows alone would leave workers idle), each of at
/// least `min_row` elements (long enough to pay for the merge).
struct split_rule {
  std::int64_t max_rows;
  std::int64_t min_row;
};

/// True when `rows` rows of `row_length` elements are few and long by `rule`.
inline bool few_long_rows(std::int64_t rows, std::int64_t row_length, split_rule rule) {
  return rows > 0 && rows < rule.max_rows && row_length >= rule.min_row;
}

/// True when node `n`'s rows are few and long by `rule`.
inline bool few_long_rows(const node_runtime& n, split_rule rule) { return few_long_rows(n.outer, n.inner, rule); }

/// The class of a node run alone: pointwise; a scan, rows (along any axis:
/// a line of the space per worker); a column reduction; few long rows,
/// split; else rows.
inline kernel_class solo_class(const node_runtime& n, split_rule rule) {
  if (!n.reduction) return kernel_class::pointwise;
  if (n.scan) return kernel_class::rows;
  if (n.inner > 0 && reduces_leading(n)) return kernel_class::columns;
  if (few_long_rows(n, rule)) return kernel_class::split;
  return kernel_class::rows;
}

/// The shape of a fused group's nodes, which decides whether a backend can
/// run it as one kernel: `pointwise` (all nodes pointwise over one space),
/// `rows` (reductions and scans over the same axes of one space, with
/// pointwise nodes over that space, or over its rows: `over_rows_of`), or
/// `mixed` (anything else: run node by node).
enum class group_shape { pointwise, rows, mixed };

/// True when node `n` is pointwise over the rows of reduction `anchor`, a
/// reduction of innermost axes (no scan): its space is the anchor's with the
/// reduced axes dropped or of size 1, so it computes one value per row, as
/// Inductor's pointwise node of the reduction's numel fused after it
/// (cross-entropy's loss after its logsumexp).
inline bool over_rows_of(const node_runtime& n, const node_runtime& anchor) {
  if (n.reduction || anchor.scan || !reduces_innermost(anchor)) return false;
  shape dropped, kept;
  for (int d = 0; d < anchor.space.rank(); ++d) {
    const bool reduced = anchor.reduced_mask & (1u << d);
    if (!reduced) dropped.push_back(anchor.space[d]);
    kept.push_back(reduced ? 1 : anchor.space[d]);
  }
  return n.space == dropped || n.space == kept;
}

/// The shape of group `members` (two or more nodes; one node is `mixed`:
/// it runs alone). `anchor` is set to the group's first reduction (or null).
/// `row_values`: the backend runs pointwise nodes over the rows
/// (`over_rows_of` the anchor) in its row kernels.
inline group_shape shape_of_group(const std::vector<const node_runtime*>& members, const node_runtime*& anchor,
                                  bool row_values = false) {
  anchor = nullptr;
  if (members.size() < 2) return group_shape::mixed;
  for (const auto* n : members)
    if (n->reduction && !anchor) anchor = n;
  const shape& space = anchor ? anchor->space : members[0]->space;
  for (const auto* n : members)
    if ((n->space != space && !(row_values && anchor && over_rows_of(*n, *anchor))) ||
        (n->reduction && n->reduced_mask != anchor->reduced_mask))
      return group_shape::mixed;
  return anchor ? group_shape::rows : group_shape::pointwise;
}

/// True when one of `members` is a scan: its rows then run whole, never
/// split across workers (a part of a row would need the earlier parts' total).
inline bool has_scan(const std::vector<const node_runtime*>& members) {
  for (const auto* n : members)
    if (n->scan) return true;
  return false;
}

}  // namespace fusedsl::detail
