/// @file executor.hpp
/// Runs a program on the CPU: every fused group of the program's plan is
/// one parallel loop over tiles, inside which each node of the group runs
/// on the tile in order (a group of pointwise nodes: on each chunk of the
/// tile in order). Buffers that stay inside a group live in a small
/// per-thread scratch (one tile or chunk) and never reach memory; buffers
/// between groups come from a per-thread pool reused across runs.
///
/// Group shapes that run fused: pointwise nodes over one space (chunk by
/// chunk), and reductions and scans over the same innermost axes with
/// pointwise nodes over their operand's space (tiles of rows: softmax,
/// layernorm, a cumsum divided by the row's sum). Any other group, and
/// every group with `fx::cpu_unfused`, runs node by node: a pointwise loop,
/// a row reduction, a column reduction (rows added into a vector of column
/// states), a split reduction (few long rows) or a scan (a line per thread).
#pragma once
#include <algorithm>  // std::min
#include <array>      // std::array
#include <atomic>     // std::atomic
#include <cstddef>    // std::byte
#include <string>     // std::string, std::to_string
#include <utility>    // std::integer_sequence
#include <vector>     // std::vector

#include <omp.h>  // omp_get_max_threads, omp_set_num_threads

#include <fusedsl/backend/cpu/kernels.hpp>     // pointwise_range, pointwise_chunk, reduction_rows, ...
#include <fusedsl/core/config.hpp>             // FUSEDSL_CPU_DISPATCH, FUSEDSL_CPU_POINTWISE_KERNEL
#include <fusedsl/core/error.hpp>              // error
#include <fusedsl/core/fault.hpp>              // detail::run_checking_faults, detail::fault_scope
#include <fusedsl/core/host_memory.hpp>        // host_vector
#include <fusedsl/plan/group_schedule.hpp>     // packed_schedule_of, lowered_node_count
#include <fusedsl/program/program.hpp>         // program
#include <fusedsl/runtime/describe_nodes.hpp>  // call_state, describe, find_node_entry
#include <fusedsl/runtime/kernel_class.hpp>    // kernel_class, solo_class, shape_of_group
#include <fusedsl/runtime/merge_axes.hpp>      // merge_axes
#include <fusedsl/runtime/nodes.hpp>           // node_runtime, node_expression
#include <fusedsl/runtime/run_program.hpp>     // run_program
#include <fusedsl/runtime/target.hpp>          // cpu_target

namespace fusedsl {

namespace cpu_detail {

using detail::address;
using detail::buffer_home;
using detail::call_state;
using detail::group_schedule;
using detail::group_shape;
using detail::host_vector;
using detail::kernel_class;
using detail::split_rule;

/// Elements a tile covers: small enough that a tile of every node of a
/// group stays in the L2 cache, large enough to amortise the per-node setup.
inline constexpr std::int64_t tile_elements = 8192;

/// Elements a tile of a group that runs in tiles of rows covers: 16 rows
/// of 1024. Faster than 8 rows for softmax, layernorm and rmsnorm over
/// rows of 1024 floats, level for row sums (figures: bench/RESULTS.md).
inline constexpr std::int64_t row_tile_elements = 2 * tile_elements;

/// How one group of the plan runs.
enum class group_mode {
  chunks_of_elements,  ///< pointwise nodes over one space, chunk by chunk
  tiles_of_rows,       ///< reductions of rows and pointwise nodes, tile of rows by tile
  split_rows,          ///< few long rows: parts of rows in parallel, the reductions' parts merged after
  node_by_node,
};

/// True when node K of a statement, of type N, runs a reduction loop: one
/// of the statement's distinct nodes (K >= 0) that is a reduction. Any
/// other node runs a pointwise loop.
template <class N, int K>
inline constexpr bool runs_reduction = K >= 0 && is_reduction_node<N>;
/// True when node K of a statement, of type N, runs a scan loop.
template <class N, int K>
inline constexpr bool runs_scan = K >= 0 && is_scan_node<N>;

/// When `R` is a reduction whose operand, an inlined expression, is among
/// the subexpressions `Computed` of another loop, in the same type: the
/// operand's count of computed subexpressions (what sharing it saves); else 0.
template <class R, class Computed>
constexpr int operand_among() {
  if constexpr (!is_reduction_node<R>) {
    return 0;
  } else {
    using A = std::remove_cvref_t<decltype(std::declval<R>().arg)>;
    if constexpr (!is_inlined<A> || !std::is_same_v<loop_value_t<A>, compute_t<kernel_numerics, R::input_dtype>>)
      return 0;
    else return lists<A>(Computed{}) ? list_length(typename computed_subexpressions<A>::type{}) : 0;
  }
}

/// Position of the one of `Nodes` (`hana::type`s) whose operand
/// operand_among finds in `Computed` and that saves the most (the first of
/// equals), or -1: a masked softmax's output shares its sum's exp(t - max),
/// not its max's t = where(mask, x, -inf). (A function template, not a
/// generic lambda: nvcc compiles this header too.)
template <class Computed, class... Nodes>
constexpr int largest_operand_among(const hana::tuple<Nodes...>&) {
  constexpr int saves[] = {operand_among<typename Nodes::type, Computed>()..., 0};
  int best = -1;
  for (int k = 0; k < static_cast<int>(sizeof...(Nodes)); ++k)
    if (saves[k] > 0 && (best < 0 || saves[k] > saves[best])) best = k;
  return best;
}

/// The reduction of statement S whose operand pointwise node (S, K) also
/// computes (softmax's exp(x - max) in its sum and in its value), or -1.
/// In a group that runs in tiles of rows, the reduction keeps that
/// operand's values for the tile and the node reads them instead of
/// computing them again.
template <class P, std::size_t S, int K>
constexpr int operand_source() {
  using V = std::remove_cvref_t<decltype(hana::at_c<S>(std::declval<P>().statements).value)>;
  using N = std::remove_cvref_t<decltype(detail::node_expression<S, K>(std::declval<const P&>()))>;
  if constexpr (runs_reduction<N, K> || runs_scan<N, K>) {
    return -1;
  } else {
    using E = std::remove_cvref_t<decltype(detail::loop_expression_of<K>(std::declval<const N&>()))>;
    return largest_operand_among<typename computed_subexpressions<E>::type>(distinct_nodes<V>());
  }
}

/// The operand type node (S, K) reads from its source reduction, or void.
template <class P, std::size_t S, int K, int Source = operand_source<P, S, K>()>
struct shared_operand {
  using type = void;
};
template <class P, std::size_t S, int K, int Source>
requires(Source >= 0) struct shared_operand<P, S, K, Source> {
  using type = std::remove_cvref_t<decltype(detail::node_expression<S, Source>(std::declval<const P&>()).arg)>;
};

/// True when one of the nodes (S, J - 1) reads reduction (S, K)'s operand.
template <class P, std::size_t S, int K, int... J>
constexpr bool operand_read(std::integer_sequence<int, J...>) {
  return ((operand_source<P, S, J - 1>() == K) || ...);
}

/// True when reduction (S, K) is the operand source of another node of S
/// (its value, K = -1, or one of its distinct nodes).
template <class P, std::size_t S, int K>
constexpr bool keeps_operand() {
  using V = std::remove_cvref_t<decltype(hana::at_c<S>(std::declval<P>().statements).value)>;
  return operand_read<P, S, K>(
      std::make_integer_sequence<int, static_cast<int>(hana::length(distinct_nodes<V>()).value) + 1>{});
}

/// Runs node (S, K) over [begin, end) of its own units (elements or rows),
/// storing `Out` elements. `operand`: where a reduction keeps its operand's
/// values, or where a pointwise node reads its shared operand (`Shared`).
/// `kind`: a reduction's kernel class; for a pointwise node, `pointwise` when
/// it runs on its own, `rows` or `split` in a group of rows.
template <class Out, int K, class Shared, class N>
void run_loop(const N& node, const detail::node_runtime& n, const tile_operands& t, kernel_class kind,
              std::int64_t begin, std::int64_t end, void* operand) {
  if constexpr (runs_reduction<N, K>) {
    if (kind == kernel_class::columns) reduction_columns<Out>(node, n, t);
    else if (kind == kernel_class::split) reduction_split<Out>(node, n, t);
    else reduction_rows<Out>(node, n, t, begin, end, operand);
  } else if constexpr (runs_scan<N, K>) {
    scan_rows<Out>(node, n, t, begin, end);
  } else {
    const auto& e = detail::loop_expression_of<K>(node);
    if constexpr (!std::is_void_v<Shared>) {
      if (operand) return pointwise_range<Out, Shared>(e, n, t, begin, end, operand);
    }
    // Without dispatch the two are the same code: one instantiation.
    if constexpr (FUSEDSL_CPU_DISPATCH != 0)
      if (kind == kernel_class::pointwise) return pointwise_node_range<Out>(e, n, t, begin, end);
    pointwise_range<Out>(e, n, t, begin, end, nullptr, kind == kernel_class::pointwise);
  }
}

/// Runs node (S, K): a node that writes its statement's target stores the
/// target's element type (the value converts as it is stored), any other
/// node its storage type (node_storage_t).
template <std::size_t S, int K, class P>
void run_node(const P& prog, const detail::node_runtime& n, const tile_operands& t, kernel_class kind,
              std::int64_t begin, std::int64_t end, void* operand) {
  const auto& node = detail::node_expression<S, K>(prog);
  using N = std::remove_cvref_t<decltype(node)>;
  using Target = typename std::remove_cvref_t<decltype(hana::at_c<S>(prog.statements))>::target_type;
  using Shared = typename shared_operand<P, S, K>::type;
  if (n.writes_target) run_loop<typename Target::element_type, K, Shared>(node, n, t, kind, begin, end, operand);
  else if constexpr (K >= 0) run_loop<node_storage_t<N>, K, Shared>(node, n, t, kind, begin, end, operand);
}

/// Reduction node (S, K) over reduced elements [j0, j1) of row `row`, one
/// step of a part of a split group (split.hpp), added to its part's state.
template <std::size_t S, int K, class P>
void run_part(const P& prog, const detail::node_runtime& n, const tile_operands& t, std::int64_t row, std::int64_t j0,
              std::int64_t j1, void* state, bool fresh) {
  const auto& node = detail::node_expression<S, K>(prog);
  split_part(node, n, t, row, j0, j1, *static_cast<reduction_state<std::remove_cvref_t<decltype(node)>>*>(state),
             fresh);
}

/// Reduction node (S, K) of a split group: row `row`'s part states merged
/// and stored, as run_node stores (the target's element type, else the
/// node's storage type).
template <std::size_t S, int K, class P>
void run_merge(const P& prog, const detail::node_runtime& n, const tile_operands& t, std::int64_t row,
               const void* parts) {
  const auto& node = detail::node_expression<S, K>(prog);
  using N = std::remove_cvref_t<decltype(node)>;
  using Target = typename std::remove_cvref_t<decltype(hana::at_c<S>(prog.statements))>::target_type;
  const auto* states = static_cast<const reduction_state<N>*>(parts);
  if (n.writes_target) split_merge<typename Target::element_type>(node, n, t, row, states);
  else split_merge<node_storage_t<N>>(node, n, t, row, states);
}

/// The entry points of node (S, K) of program `P` in the CPU executor.
template <class P>
struct cpu_node_entry {
  using describe_fn = void (*)(call_state<P>&, detail::node_runtime&);
  using run_fn = void (*)(const P&, const detail::node_runtime&, const tile_operands&, kernel_class, std::int64_t,
                          std::int64_t, void*);
  using part_fn = void (*)(const P&, const detail::node_runtime&, const tile_operands&, std::int64_t, std::int64_t,
                           std::int64_t, void*, bool);
  using merge_fn = void (*)(const P&, const detail::node_runtime&, const tile_operands&, std::int64_t, const void*);
  describe_fn describe = nullptr;
  run_fn run = nullptr;
  std::size_t element_size = 0;
  int shared_operand_of = -1;         ///< operand_source<P, S, K>()
  std::size_t kept_operand_size = 0;  ///< a reduction that keeps its operand: bytes per element, else 0
  part_fn part = nullptr;             ///< a reduction: run_part
  merge_fn merge = nullptr;           ///< a reduction: run_merge
  std::size_t state_size = 0;         ///< a reduction: bytes of its state

  template <std::size_t S, int K>
  static cpu_node_entry make() {
    cpu_node_entry e{&detail::describe<S, K, P>, &run_node<S, K, P>, detail::node_element_size<P, S, K>,
                     operand_source<P, S, K>()};
    if constexpr (K >= 0) {
      using N = std::remove_cvref_t<decltype(detail::node_expression<S, K>(std::declval<const P&>()))>;
      if constexpr (is_reduction_node<N>) {
        if constexpr (keeps_operand<P, S, K>())
          e.kept_operand_size = sizeof(compute_t<kernel_numerics, N::input_dtype>);
        e.part = &run_part<S, K, P>;
        e.merge = &run_merge<S, K, P>;
        e.state_size = sizeof(reduction_state<N>);
      }
    }
    return e;
  }
};

/// True when node (S, K) of `P` runs a pointwise loop (not a reduction's or a scan's).
template <class P, std::size_t S, int K>
constexpr bool is_pointwise_node() {
  using N = std::remove_cvref_t<decltype(detail::node_expression<S, K>(std::declval<const P&>()))>;
  return !runs_reduction<N, K> && !runs_scan<N, K>;
}

/// Per lowered position of `P`: true for the nodes of the plan's groups of
/// two or more nodes, all pointwise. Only these can run in interleaved
/// chunks (pointwise_group_range), so only these are compiled for it.
template <class P, int... J>
constexpr std::array<bool, sizeof...(J)> interleaved_positions(std::integer_sequence<int, J...>) {
  constexpr auto& packed = detail::packed_schedule_of<P>;
  constexpr bool pointwise[] = {
      is_pointwise_node<P, static_cast<std::size_t>(packed.statement[J]), packed.distinct[J]>()..., true};
  std::array<bool, sizeof...(J)> result{};
  int begin = 0;
  for (int g = 0; g < packed.group_count; ++g) {
    const int end = packed.group_end[static_cast<std::size_t>(g)];
    bool all_pointwise = end - begin >= 2;
    for (int i = begin; i < end; ++i)
      all_pointwise = all_pointwise && pointwise[packed.order[static_cast<std::size_t>(i)]];
    for (int i = begin; i < end; ++i)
      result[static_cast<std::size_t>(packed.order[static_cast<std::size_t>(i)])] = all_pointwise;
    begin = end;
  }
  return result;
}
template <class P>
inline constexpr auto interleaved_position =
    interleaved_positions<P>(std::make_integer_sequence<int, static_cast<int>(detail::lowered_node_count<P>)>{});

/// A node of a group that runs in interleaved chunks, as one thread sees it.
struct chunk_member {
  const detail::node_runtime* node = nullptr;  ///< null: the node is not in the group
  const void* const* data = nullptr;           ///< its leaves: memory or this thread's scratch
  void* out = nullptr;                         ///< its output: memory or this thread's scratch
  bool may_stream = false;                     ///< its output is memory that no node of the group reads
};

/// Node `e` (its loop expression) of member `c` over the chunk of `rows`
/// rows of `cols` elements (rows > 1: whole rows of the space) at flat
/// position `at` (multi-index `index`) of the group's space.
template <class Out, class E>
FUSEDSL_FORCEINLINE void member_chunk(const E& expression, const chunk_member& c, const shape& index, std::int64_t at,
                                      std::int64_t rows, std::int64_t cols) {
  const E e = expression;  // a local copy: see chunk_reader
  constexpr std::size_t slots = leaf_slots<E>();
  const detail::node_runtime& n = *c.node;
  const int r = n.space.rank();
  std::int64_t step[slots + 1], base[slots + 1], row_step[slots + 1];
  for (std::size_t k = 0; k < slots; ++k) {
    const address& a = n.leaves[k];
    step[k] = innermost(a.strides, r);
    base[k] = dot(index, a.strides) - (a.scratch >= 0 ? at * a.per_outer : 0);
    row_step[k] = r >= 2 ? a.strides[r - 2] : 0;
  }
  chunk_leaves<E> leaves(n);
  leaves.prepare_rows(c.data, base, row_step, step, rows, cols);
  const std::int64_t out_at = dot(index, n.out.strides) - (n.out.scratch >= 0 ? at * n.out.per_outer : 0);
  Out* out = static_cast<Out*>(c.out) + out_at;
  const bool stream = streams_output<Out>(n, c.may_stream);
  if (rows > 1) {
    pointwise_rows_chunk<Out, void>(e, leaves, step, out, n.out.strides[r - 2], innermost(n.out.strides, r), stream,
                                    rows, cols, nullptr);
  } else {
    chunk_invariants<E> held;
    pointwise_chunk<Out, void>(e, leaves, step, held, true, out, innermost(n.out.strides, r), stream, cols, nullptr);
  }
}

/// Runs the group's nodes among lowered positions J, J + 1, ... of `P`
/// (`members`, by position) over one chunk of `rows` rows of `cols`, in order.
template <class P, int J = 0>
FUSEDSL_FORCEINLINE void interleaved_chunk(const P& prog, const chunk_member* members, const shape& index,
                                           std::int64_t at, std::int64_t rows, std::int64_t cols) {
  if constexpr (J < static_cast<int>(detail::lowered_node_count<P>)) {
    if constexpr (interleaved_position<P>[static_cast<std::size_t>(J)]) {
      if (members[J].node) {
        constexpr auto& packed = detail::packed_schedule_of<P>;
        constexpr auto S = static_cast<std::size_t>(packed.statement[J]);
        constexpr int K = packed.distinct[J];
        const auto& node = detail::node_expression<S, K>(prog);
        using N = std::remove_cvref_t<decltype(node)>;
        using Target = typename std::remove_cvref_t<decltype(hana::at_c<S>(prog.statements))>::target_type;
        const auto& e = detail::loop_expression_of<K>(node);
        if (members[J].node->writes_target)
          member_chunk<typename Target::element_type>(e, members[J], index, at, rows, cols);
        else if constexpr (K >= 0) member_chunk<node_storage_t<N>>(e, members[J], index, at, rows, cols);
      }
    }
    interleaved_chunk<P, J + 1>(prog, members, index, at, rows, cols);
  }
}

/// A group of pointwise nodes over one space (`members`, by lowered
/// position) over its elements [begin, end), chunk by chunk: every node
/// runs on a chunk before the next chunk starts. So the memory streams of
/// all the nodes advance together, and a chunk costs no call and no setup
/// per node. (In tiles of 512 elements, node after node, a loop per node
/// per tile, Adam's update is much slower than a hand loop of the same
/// order; figures: bench/RESULTS.md.)
template <class P>
FUSEDSL_CPU_POINTWISE_KERNEL void pointwise_group_range(const P& prog, const chunk_member* members, const shape& space,
                                                        std::int64_t begin, std::int64_t end) {
  const int r = space.rank();
  const std::int64_t row = r == 0 ? 1 : space[r - 1];
  shape index = unravel(begin, space);
  const std::int64_t rows_at_once = rows_per_chunk(row);
  while (begin < end) {
    if (const std::int64_t rows = whole_rows(index, space, end - begin, rows_at_once)) {  // short rows
      interleaved_chunk<P>(prog, members, index, begin, rows, row);
      begin += rows * row;
      step_rows(index, space, rows);
      continue;
    }
    const std::int64_t m = std::min({chunk, end - begin, row - innermost(index, r)});
    interleaved_chunk<P>(prog, members, index, begin, 1, m);
    begin += m;
    if (r > 0 && (index[r - 1] += m) == row) {  // next row of the space
      index[r - 1] = 0;
      step_index(index, space, r - 2);
    }
  }
}

/// When the CPU splits rows across threads (runtime/kernel_class.hpp): fewer
/// than 4 rows per thread, each at least 4 tiles long.
inline split_rule cpu_split_rule() { return {4 * std::int64_t{omp_get_max_threads()}, 4 * tile_elements}; }

/// How group `members` (described nodes) can run: the CPU runs a group of
/// reductions in tiles of rows only when they reduce the innermost axes
/// (with pointwise nodes over their rows, `over_rows_of`, a tile's rows at a
/// time: cross-entropy's loss after its logsumexp).
inline group_mode choose_mode(const std::vector<const detail::node_runtime*>& members) {
  const detail::node_runtime* anchor = nullptr;
  switch (shape_of_group(members, anchor, true)) {
    case group_shape::pointwise: return group_mode::chunks_of_elements;
    case group_shape::rows: return reduces_innermost(*anchor) ? group_mode::tiles_of_rows : group_mode::node_by_node;
    default: return group_mode::node_by_node;
  }
}

/// Merges the axes of the space that pointwise nodes `which` share (merge_axes) in
/// every node's leaves and output.
inline void merge_pointwise_axes(std::vector<detail::node_runtime>& nodes, const std::vector<int>& which) {
  std::vector<shape*> strides;
  for (int m : which) {
    detail::node_runtime& n = nodes[static_cast<std::size_t>(m)];
    for (address& a : n.leaves) strides.push_back(&a.strides);
    strides.push_back(&n.out.strides);
  }
  shape space = nodes[static_cast<std::size_t>(which.front())].space;
  detail::merge_axes(space, strides);
  for (int m : which) nodes[static_cast<std::size_t>(m)].space = space;
}

/// Merges the axes of reduction node `n`'s space (merge_reduction_axes) in
/// its leaves and output, for a node that runs on its own.
inline void merge_reduction_node_axes(detail::node_runtime& n) {
  std::vector<shape*> strides;
  for (address& a : n.leaves) strides.push_back(&a.strides);
  strides.push_back(&n.out.strides);
  detail::merge_reduction_axes(n.space, n.reduced_mask, strides);
}

/// True when a node of group `g` reads the output of one of the group's
/// reductions (softmax's normalization reads its sum): the group's
/// reductions are then not all at its end, and its rows cannot be split
/// (a part of a row would need the whole row's result).
template <class P>
bool reads_group_reduction(const call_state<P>& call, const group_schedule::group& g) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& r = call.nodes[static_cast<std::size_t>(g.nodes[i])];
    if (!r.reduction) continue;
    for (std::size_t j = i + 1; j < g.nodes.size(); ++j)
      for (const address& a : call.nodes[static_cast<std::size_t>(g.nodes[j])].leaves)
        if (a.scratch < 0 && a.data == r.out.data) return true;
  }
  return false;
}

/// Runs one group of the schedule.
template <class P>
void run_group(call_state<P>& call, std::vector<host_vector<std::byte>>& pool, const group_schedule::group& g,
               bool fuse) {
  using entry = cpu_node_entry<P>;
  const std::size_t count = g.nodes.size();
  const std::vector<entry> entries = detail::describe_group_spaces<P, entry>(call, g);
  std::vector<const detail::node_runtime*> members;
  for (int m : g.nodes) members.push_back(&call.nodes[static_cast<std::size_t>(m)]);
  group_mode mode = fuse ? choose_mode(members) : group_mode::node_by_node;
  std::int64_t group_outer = members[0]->outer;  // rows: the reductions' kept elements
  const detail::node_runtime* anchor = members[0];
  if (mode == group_mode::tiles_of_rows)
    for (auto it = members.rbegin(); it != members.rend(); ++it)
      if ((*it)->reduction) group_outer = (*it)->outer, anchor = *it;
  const std::int64_t inner =
      mode == group_mode::tiles_of_rows ? anchor->space.numel() / std::max<std::int64_t>(group_outer, 1) : 1;
  // Nodes over the rows (a value per row: in tiles of rows the nodes of another space than
  // the anchor's, `shape_of_group`) run over a tile's rows, not its elements.
  std::vector<char> over_rows(count, 0);
  bool any_over_rows = false;
  if (mode == group_mode::tiles_of_rows)
    for (std::size_t i = 0; i < count; ++i) any_over_rows |= over_rows[i] = members[i]->space != anchor->space;
  // Rows too few to keep the threads busy are split, as a reduction alone is (not a
  // scan's). A group computing a value per row needs the row's results: with fewer rows
  // than threads it runs node by node, each node over every thread (as tiles of rows, a
  // full sum and a value of it would run on one thread).
  if (mode == group_mode::tiles_of_rows && few_long_rows(group_outer, inner, cpu_split_rule()) &&
      !detail::has_scan(members)) {
    if (!any_over_rows) mode = group_mode::split_rows;
    else if (group_outer < omp_get_max_threads()) mode = group_mode::node_by_node;
  }
  // The loops' units: elements of the space when rows split, else rows (elements of a
  // pointwise group). A tile: units a thread runs every node over before the next tile.
  std::int64_t units = 0, tile = 0;
  std::vector<std::size_t> scratch_bytes;
  // Homes: targets write the bound memory; kernel-local buffers of a fused
  // group live in scratch (one tile's); the rest in the pool.
  const auto place = [&] {
    units = mode == group_mode::split_rows ? group_outer * inner : group_outer;
    tile = mode == group_mode::tiles_of_rows
               ? std::max<std::int64_t>(1, row_tile_elements / std::max<std::int64_t>(inner, 1))
               : (mode == group_mode::split_rows ? split_step : chunk);
    scratch_bytes.clear();
    for (std::size_t i = 0; i < count; ++i) {
      const auto m = static_cast<std::size_t>(g.nodes[i]);
      auto& n = call.nodes[m];
      buffer_home& home = call.homes[m];
      home.sizes = n.out_sizes;
      if (n.writes_target) continue;
      home.data = nullptr;  // placed again: a second place() may move a buffer out of scratch
      home.scratch = -1;
      const std::int64_t numel = n.out_sizes.numel();
      home.strides = contiguous_strides(n.out_sizes);
      // A split group's reductions are stored once per row, after the parts: not in scratch.
      if (mode != group_mode::node_by_node && g.kernel_local[i] && !(mode == group_mode::split_rows && n.reduction)) {
        home.scratch = static_cast<int>(scratch_bytes.size());
        home.per_outer = numel / std::max<std::int64_t>(units, 1);
        scratch_bytes.push_back(static_cast<std::size_t>(tile * home.per_outer) * entries[i].element_size);
      } else {
        auto& bytes = pool[m];
        bytes.resize(static_cast<std::size_t>(numel) * entries[i].element_size);
        home.data = bytes.data();
      }
    }
    for (std::size_t i = 0; i < count; ++i) entries[i].describe(call, call.nodes[static_cast<std::size_t>(g.nodes[i])]);
  };
  place();
  if (mode == group_mode::split_rows && reads_group_reduction(call, g)) {
    // Whole rows per thread while there are rows for every thread; else node by node,
    // each node over all threads (reading the operands again, but on every core).
    mode = group_outer >= omp_get_max_threads() ? group_mode::tiles_of_rows : group_mode::node_by_node;
    place();
  }
  // Nodes run over their space with its mergeable axes merged: a contiguous [N, 3] as one
  // run of 3N elements, not N runs of 3 that cost a setup each. The nodes of a pointwise
  // group share one space, so they merge together.
  if (mode == group_mode::chunks_of_elements) merge_pointwise_axes(call.nodes, g.nodes);
  else if (mode == group_mode::node_by_node)
    for (int m : g.nodes) {
      detail::node_runtime& n = call.nodes[static_cast<std::size_t>(m)];
      if (!n.reduction) merge_pointwise_axes(call.nodes, {m});
      else if (!n.scan) merge_reduction_node_axes(n);
    }
  // Outputs in memory that no node of the group reads may be written
  // around the cache: a line that the tile has just read (an in-place
  // update) or that a later node reads back is cheaper through the cache
  // (streaming stores make Adam's in-place group much slower; bench/RESULTS.md).
  std::vector<char> may_stream(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& writer = call.nodes[static_cast<std::size_t>(g.nodes[i])];
    may_stream[i] = writer.out.scratch < 0;
    for (std::size_t j = 0; j < count; ++j)
      for (const address& a : call.nodes[static_cast<std::size_t>(g.nodes[j])].leaves)
        if (a.scratch < 0 && a.data == writer.out.data) may_stream[i] = 0;
  }
  // Operands shared in tiles of rows: a scratch slot of one tile, written by
  // the reduction, read by the later nodes of its statement.
  std::vector<int> operand_slot(count, -1);
  if (mode == group_mode::tiles_of_rows)
    for (std::size_t i = 0; i < count; ++i) {
      if (entries[i].shared_operand_of < 0) continue;
      const auto& reader = call.nodes[static_cast<std::size_t>(g.nodes[i])];
      for (std::size_t j = 0; j < i; ++j) {
        const auto& source = call.nodes[static_cast<std::size_t>(g.nodes[j])];
        if (source.statement != reader.statement || source.distinct != entries[i].shared_operand_of) continue;
        if (operand_slot[j] < 0) {
          operand_slot[j] = static_cast<int>(scratch_bytes.size());
          scratch_bytes.push_back(static_cast<std::size_t>(tile * inner) * entries[j].kept_operand_size);
        }
        operand_slot[i] = operand_slot[j];
      }
    }

  if (mode == group_mode::node_by_node) {
    for (std::size_t i = 0; i < count; ++i) {
      const auto& n = call.nodes[static_cast<std::size_t>(g.nodes[i])];
      std::vector<const void*> data(n.leaves.size() + 1);
      std::vector<std::int64_t> bias(n.leaves.size() + 1, 0);
      for (std::size_t k = 0; k < n.leaves.size(); ++k) data[k] = n.leaves[k].data;
      const tile_operands t{data.data(), bias.data(), n.out.data, 0, may_stream[i] != 0};
      const kernel_class kind = solo_class(n, cpu_split_rule());
      if (kind == kernel_class::split || kind == kernel_class::columns) {  // the loop parallelises itself
        entries[i].run(call.prog, n, t, kind, 0, n.outer, nullptr);
        continue;
      }
      const std::int64_t per_task = kind == kernel_class::pointwise
                                        ? tile_elements
                                        : std::max<std::int64_t>(1, tile_elements / std::max<std::int64_t>(n.inner, 1));
      detail::run_faults* const faults = detail::current_faults;
#pragma omp parallel if (n.outer * n.inner > tile_elements)
      {
        const detail::fault_scope fault_word(faults);
#pragma omp for schedule(static) nowait
        for (std::int64_t b = 0; b < n.outer; b += per_task)
          entries[i].run(call.prog, n, t, kind, b, std::min(n.outer, b + per_task), nullptr);
        fence_streaming_stores();
      }
    }
    return;
  }

  if (mode == group_mode::chunks_of_elements)
    for (int m : g.nodes)
      if (!interleaved_position<P>[static_cast<std::size_t>(m)])
        throw error("fusedsl: internal: node " + std::to_string(m) +
                    " runs in a group of pointwise nodes that the compile-time plan does not have");
  // A split group's part states: per reduction, split_chunks per row, shared by the threads.
  std::vector<host_vector<std::byte>> part_states(count);
  if (mode == group_mode::split_rows)
    for (std::size_t i = 0; i < count; ++i)
      part_states[i].resize(static_cast<std::size_t>(group_outer * split_chunks) * entries[i].state_size);
  detail::run_faults* const faults = detail::current_faults;
#pragma omp parallel if (group_outer * inner > tile_elements)
  {
    const detail::fault_scope fault_word(faults);
    std::vector<host_vector<std::byte>> scratch(scratch_bytes.size());
    for (std::size_t s = 0; s < scratch.size(); ++s) scratch[s].resize(scratch_bytes[s]);
    // Each node's operands in this thread's scratch or in memory, set once.
    std::vector<std::vector<const void*>> data(count);
    std::vector<void*> out(count);
    for (std::size_t i = 0; i < count; ++i) {
      const auto& n = call.nodes[static_cast<std::size_t>(g.nodes[i])];
      data[i].assign(n.leaves.size() + 1, nullptr);
      for (std::size_t k = 0; k < n.leaves.size(); ++k) {
        const address& a = n.leaves[k];
        data[i][k] = a.scratch >= 0 ? scratch[static_cast<std::size_t>(a.scratch)].data() : a.data;
      }
      out[i] = n.out.scratch >= 0 ? scratch[static_cast<std::size_t>(n.out.scratch)].data() : n.out.data;
    }
    // Node i's operands for the tile at unit `at`: a tile only moves the offsets of the
    // scratch operands (`bias`).
    std::vector<std::vector<std::int64_t>> bias(count);
    for (std::size_t i = 0; i < count; ++i)
      bias[i].assign(call.nodes[static_cast<std::size_t>(g.nodes[i])].leaves.size() + 1, 0);
    const auto operands_at = [&](std::size_t i, std::int64_t at) {
      const auto& n = call.nodes[static_cast<std::size_t>(g.nodes[i])];
      for (std::size_t k = 0; k < n.leaves.size(); ++k)
        if (n.leaves[k].scratch >= 0) bias[i][k] = at * n.leaves[k].per_outer;
      return tile_operands{data[i].data(), bias[i].data(), out[i], n.out.scratch >= 0 ? at * n.out.per_outer : 0,
                           may_stream[i] != 0};
    };
    if (mode == group_mode::chunks_of_elements) {
      std::vector<chunk_member> by_position(detail::lowered_node_count<P>);
      for (std::size_t i = 0; i < count; ++i) {
        const auto m = static_cast<std::size_t>(g.nodes[i]);
        by_position[m] = {&call.nodes[m], data[i].data(), out[i], may_stream[i] != 0};
      }
#pragma omp for schedule(static) nowait
      for (std::int64_t b = 0; b < group_outer; b += tile_elements)
        pointwise_group_range(call.prog, by_position.data(), members[0]->space, b,
                              std::min(group_outer, b + tile_elements));
    } else if (mode == group_mode::split_rows) {
      // Part c of row r: its steps in order, every node on a step before the next step.
#pragma omp for schedule(static)
      for (std::int64_t u = 0; u < group_outer * split_chunks; ++u) {
        const std::int64_t row = u / split_chunks, c = u % split_chunks;
        for_each_split_step(inner, c, [&](std::int64_t j0, std::int64_t j1, bool first) {
          const std::int64_t at = row * inner + j0;
          for (std::size_t i = 0; i < count; ++i) {
            const auto& n = call.nodes[static_cast<std::size_t>(g.nodes[i])];
            const tile_operands t = operands_at(i, at);
            if (n.reduction)
              entries[i].part(call.prog, n, t, row, j0, j1, part_states[i].data() + u * entries[i].state_size, first);
            else entries[i].run(call.prog, n, t, kernel_class::split, at, row * inner + j1, nullptr);
          }
        });
      }
#pragma omp for schedule(static) nowait
      for (std::int64_t row = 0; row < group_outer; ++row)
        for (std::size_t i = 0; i < count; ++i)
          if (entries[i].merge)
            entries[i].merge(call.prog, call.nodes[static_cast<std::size_t>(g.nodes[i])], operands_at(i, 0), row,
                             part_states[i].data() + row * split_chunks * entries[i].state_size);
    } else {
#pragma omp for schedule(static) nowait
      for (std::int64_t b = 0; b < group_outer; b += tile) {
        const std::int64_t e = std::min(group_outer, b + tile);
        for (std::size_t i = 0; i < count; ++i) {
          const auto& n = call.nodes[static_cast<std::size_t>(g.nodes[i])];
          const tile_operands t = operands_at(i, b);
          void* operand = operand_slot[i] >= 0 && !over_rows[i]
                              ? scratch[static_cast<std::size_t>(operand_slot[i])].data()
                              : nullptr;
          if (n.reduction) entries[i].run(call.prog, n, t, kernel_class::rows, b, e, operand);
          else if (over_rows[i]) entries[i].run(call.prog, n, t, kernel_class::rows, b, e, operand);
          else entries[i].run(call.prog, n, t, kernel_class::rows, b * inner, e * inner, operand);
        }
      }
    }
    fence_streaming_stores();
  }
}

/// Sets the calling thread's OpenMP thread count (its `nthreads-var`, which
/// each thread has its own of) to `n` for the guard's life, unless `n` is 0.
class thread_count_scope {
 public:
  explicit thread_count_scope(int n) : saved_(n > 0 ? omp_get_max_threads() : 0) {
    if (n > 0) omp_set_num_threads(n);
  }
  ~thread_count_scope() {
    if (saved_ > 0) omp_set_num_threads(saved_);
  }
  thread_count_scope(const thread_count_scope&) = delete;
  thread_count_scope& operator=(const thread_count_scope&) = delete;

 private:
  int saved_;
};

}  // namespace cpu_detail

/// Runs programs on the CPU.
template <>
struct executor<cpu_target> {
  template <class... Statements, class... Bindings>
  static void run(const program<Statements...>& prog, cpu_target target, const Bindings&... bindings) {
    using P = program<Statements...>;
    const cpu_detail::thread_count_scope threads(target.thread_count);
    detail::run_program(
        prog, device::cpu, target.fuse,
        [&](detail::call_state<P>& call) {
          thread_local std::vector<detail::host_vector<std::byte>> pool;  // buffers between groups
          pool.resize(call.plan.statement.size());
          detail::run_checking_faults("run on the CPU", [&] {
            for (const auto& g : call.plan.groups) cpu_detail::run_group(call, pool, g, target.fuse);
          });
        },
        bindings...);
  }
};

}  // namespace fusedsl
