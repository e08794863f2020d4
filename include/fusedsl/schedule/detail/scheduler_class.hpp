/// @file scheduler_class.hpp
/// The scheduler's state and the declarations of its parts: the memory score
/// (memory_score.hpp), the can_fuse gates and legality (legality.hpp), loop
/// reordering (loop_reordering.hpp), mix-order reductions (mix_order.hpp), the C++
/// backend's rules (cpp_backend.hpp), fusing and pruning (fuse_and_prune.hpp)
/// and the round driver (rounds.hpp). Include <fusedsl/schedule/scheduler.hpp>,
/// which brings them all.
#pragma once
#include <cstdint>      // std::int64_t
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <fusedsl/graph/detail/intern.hpp>         // interner
#include <fusedsl/graph/graph.hpp>                 // graph, dep, access, element_type
#include <fusedsl/schedule/config.hpp>             // fuse_config
#include <fusedsl/schedule/detail/containers.hpp>  // suffix_min
#include <fusedsl/schedule/fusion_policy.hpp>      // policy_view, fusion_policy, shared_memory
#include <fusedsl/schedule/plan.hpp>               // plan, round_log
#include <fusedsl/schedule/reason.hpp>             // why_no_fuse
#include <fusedsl/schedule/state.hpp>              // sched_node

namespace fusedsl {

/// The fusion engine. `Policy` supplies the heuristics Inductor keeps in
/// `V.choices` and the backend's can_fuse (see inductor_policy); the scheduler
/// itself holds the legality rules (order, deps, cycles) that no policy may relax.
template <class Policy>
class scheduler {
 public:
  scheduler(const scheduler&) = delete;
  scheduler& operator=(const scheduler&) = delete;
  constexpr ~scheduler() { delete tmp_; }

  /// Prepares to schedule `g` (which must be finalized).
  /// Bad input throws from the member initializers, before the scratch space is allocated.
  constexpr scheduler(const graph& g, fuse_config cfg, Policy policy);

  /// Runs fuse_nodes: up to max_rounds rounds of fuse_nodes_once until the node count
  /// stops changing or reaches 1, then the loop-reordering round; returns the plan.
  constexpr plan run();

  /// What every round does before it looks at pairs: drop the WeakDeps made redundant
  /// (so that check_fusion judges a pair as the first round of fuse_nodes does).
  constexpr void start_round();

  /// Every gate of Inductor's Scheduler.can_fuse in its order; `none` when a and b may fuse.
  /// In the loop-reordering round a node's loops may be permuted to match (as Inductor does).
  /// `allow_mix_order` false: the memory score does not count a mix-order pair (as when a
  /// mix-order node judges its parts).
  constexpr why_no_fuse can_fuse(int a, int b, bool reorder_round = false, bool allow_mix_order = true);

  /// The scheduler node of graph node `name`, or of the foreach group `name` before any
  /// fusion; -1 if there is none.
  constexpr int node_named(std::string_view name) const {
    if (int i = g_.find_node(name); i >= 0) return i;
    for (const foreach_info& fe : g_.foreach_groups())
      if (fe.name == name) return fused_of(fe.members.front());
    return -1;
  }

  /// True when fusing a and b would close a cycle through another fused node: some
  /// path leaves a or b, enters a fused node, and comes back (will_fusion_create_cycle).
  constexpr bool will_fusion_create_cycle(int a, int b) const;

 private:
  template <class Scheduler>
  friend class policy_view;
  /// What the policy sees of this scheduler (fusion_policy.hpp).
  constexpr policy_view<scheduler> view() const { return policy_view<scheduler>(*this); }

  // ------------------------------------------------------------------ queries

  /// The graph being scheduled.
  constexpr const graph& source() const { return g_; }
  /// The settings.
  constexpr const fuse_config& config() const { return cfg_; }
  /// Scheduler node `s` (plain nodes have the ids of their graph node).
  constexpr const sched_node& node(int s) const { return sched_[static_cast<std::size_t>(s)]; }
  /// Current top-level node containing graph node `i` (Inductor's name_to_fused_node).
  constexpr int fused_of(int i) const { return fused_of_[static_cast<std::size_t>(i)]; }
  /// Current top-level nodes, in order.
  constexpr const std::vector<int>& nodes() const { return alive_; }
  /// Dep by id (graph deps, then deps created by loop reordering).
  constexpr const dep& get_dep(int id) const {
    return id < g_.dep_count() ? g_.get_dep(id) : extra_deps_[id - g_.dep_count()];
  }
  /// Access by id.
  constexpr const access& get_access(int id) const {
    return id < g_.access_count() ? g_.get_access(id) : extra_access_[id - g_.access_count()];
  }
  /// Loop ranges of graph node `i` (pointwise then reduction; permuted by loop reordering).
  constexpr const std::vector<std::int64_t>& ranges(int i) const {
    const auto& reordered = ranges_[static_cast<std::size_t>(i)];
    return reordered.empty() ? g_.node(i).ranges : reordered;
  }
  /// How many of ranges(i) are pointwise.
  constexpr std::size_t pointwise_ranges(int i) const { return g_.node(i).pointwise_ranges; }

  /// Bytes saved by fusing a and b: exactly shared deps, else same-buffer read overlap; for
  /// mix-order reductions (when allowed), the elements of a's tensor.
  constexpr shared_memory score_fusion_memory(int a, int b, bool allow_mix_order = true) const;

  /// True when the pair is judged by Inductor's C++ backend (fuse_config::cpp_backend and
  /// a CPU device; cpp_backend.hpp).
  constexpr bool cpp_rules(int a, int b) const;

  /// CppScheduling.can_fuse_vertical (`vertical`) or can_fuse_horizontal as a reason.
  constexpr why_no_fuse cpp_backend_can_fuse(int a, int b, bool vertical) const;

  /// CppScheduling.can_fuse_vertical_outer_loop: b depends on a, and they share their outer
  /// loops without fusing as one loop nest (the pair's priority is then 1, below the others').
  constexpr bool cpp_outer_loop_fusion(int a, int b) const;

  /// Inductor's MixOrderReduction.can_fuse: a and b reduce one tensor along its rows and
  /// along its columns, and Triton would compute both in one kernel (mix_order.hpp).
  constexpr bool mix_order_reductions(int a, int b) const;

  /// Inductor's peak-memory guard: true when the single-use inputs the two nodes
  /// would stop sharing (by buffer shape) outweigh 32x the bytes the fusion saves.
  constexpr bool can_fusion_increase_peak_memory(int a, int b) const;

  /// True when the fused node would read and write more than `limit` distinct buffers.
  constexpr bool too_many_io(int a, int b, int limit) const;

  /// True when some graph node of `x` is an ancestor of some graph node of `y`.
  constexpr bool depends_on(int x, int y) const;

  /// Producer/consumer legality: every read of b from a matches a's write exactly,
  /// and nothing b still needs is computed from a by a third node.
  constexpr why_no_fuse can_fuse_vertical(int a, int b) const;

  /// A WeakDep of b on a can be ignored when the fused kernel updates in place exactly
  /// what a reads: same index, one reader (Inductor's fusable_weak_dep).
  constexpr bool fusable_weak_dep(int weak, int a, int b) const;

  /// A read of b matches a's write: same (renamed) buffer and index, and the read's
  /// sizes start with the write's (broadcasting drops trailing loops).
  constexpr bool fusable_read_and_write(int read, int write) const;

  /// A per-node cache for policies: `compute()` once per scheduler node until the
  /// node's loops are reordered (e.g. the SIMD backend's tiling of the node alone).
  template <class F>
  constexpr const std::vector<std::int64_t>& memo(int s, F compute) const;

  /// Throws fusedsl::error for settings no schedule can honour (counts below their minimum,
  /// a negative ratio), naming the field, what it must be and what it was.
  static constexpr const fuse_config& checked_config(const fuse_config& c);
  /// `g`, or fusedsl::error when it is not finalized.
  static constexpr const graph& checked_graph(const graph& g);

  // ------------------------------------------------------------ helpers

  constexpr void mark_once(std::vector<int>& out, int d) const;

  static constexpr bool uses_all_vars(const access& a);

  // Index equality as sympy sees it: by value for affine formulas, by text otherwise.
  static constexpr bool same_index(const access& x, const access& y);

  // Merged loops without trailing loops the index does not use (MemoryDep.normalize()).
  static constexpr detail::merged_loops normalized(const access& a);

  // Loops sorted by decreasing stride, then merged (MemoryDep.normalize_with_stride_order()).
  static constexpr detail::merged_loops stride_ordered(const access& a);
  // stride_ordered(a), or else normalized(a).
  static constexpr detail::merged_loops merged_form(const access& a, bool stride_order);
  // Whether accesses a and b have the same merged form. The loop-reordering round asks
  // this of every pair of nodes sharing a buffer: the forms of the graph's accesses are
  // computed once (merged_form_slot: their place in the memo).
  constexpr bool same_merged_form(int a, int b, bool stride_order) const;
  constexpr int merged_form_slot(int id, bool stride_order) const;

  constexpr bool read_outside(int buf, const sched_node& A, const sched_node& B) const;

  // Same-buffer reads at different indices (Inductor's buffer-overlap score).
  constexpr std::int64_t overlap_score(const sched_node& A, const sched_node& B) const;

  constexpr int intern_dep(const dep& d);
  constexpr int intern_access(const access& a);

  // The loop order of `self` that gives it the strides of `other` (decide_loop_order_to_match).
  static constexpr std::vector<std::size_t> loop_order_to_match(const access& self, const access& other);

  // Permutes the loops of every graph node of s so that `self_dep` reads like `other_dep`.
  constexpr bool reorder_loops(int s, int self_dep, int other_dep);

  // Loop reordering (shared_data_after_reordering_loop): -1 when nothing was reordered.
  constexpr std::int64_t shared_data_after_reordering_loop(int a, int b);

  // Recomputes a fused node's deps from its members (refresh_group_node_dependencies).
  constexpr void refresh_group(int s);

  // A new scheduler node over the graph nodes of `parts`, in order (FusedSchedulerNode(parts)).
  constexpr int make_group(const std::vector<int>& parts);

  // A foreach node whose subnodes are `parts` (ForeachKernelSchedulerNode(parts)).
  constexpr int make_foreach(const std::vector<int>& parts, bool reads_indexed);

  // The backend's fuse: fuses a and b into a new top-level node and returns it
  // (ForeachKernelSchedulerNode.fuse when either is a foreach node with subnodes).
  constexpr int fuse(int a, int b);

  // ForeachKernelSchedulerNode.can_fuse: foreach nodes fuse subnode by subnode, a foreach
  // node and another node through the one subnode that the other feeds or reads.
  constexpr why_no_fuse foreach_can_fuse(int a, int b);

  // The subnode of foreach node f that contains graph node i, or -1 (f itself when f lists no subnodes).
  constexpr int subnode_of(int f, int i) const;

  // The one subnode of foreach node f that writes what `consumer` reads, else -1
  // (get_producer_subnode_for).
  constexpr int producer_subnode(int f, int consumer) const;

  // The subnode of foreach node f that reads the first buffer of `producer` some subnode
  // reads (the last such subnode), else -1 (get_consumer_subnode_for).
  constexpr int consumer_subnode(int f, int producer) const;

  // CppScheduling's reasons to fuse a pair as one loop nest (ReasonFusedNodes).
  enum class cpp_reason : unsigned char { none, same_vars_reduce, compatible_reduction, compatible_ranges };

  // The graph node whose group (loop_sizes, reduction_loop_sizes) s has in the C++ backend.
  constexpr const graph_node& cpp_group(int s) const;

  // CppScheduling._why_fuse_nodes.
  constexpr cpp_reason cpp_why_fuse(int a, int b) const;

  // CppScheduling._can_fuse_horizontal_impl: one loop nest, neither side outer-loop fused nor extern.
  constexpr bool cpp_one_loop_nest(int a, int b) const;

  // CppScheduling._get_outer_loop_fusion_depth: the outer loops a and b share, 0 if none.
  constexpr int cpp_outer_loop_depth(int a, int b) const;

  // An outer-loop fused node of a's and b's parts (OuterLoopFusedSchedulerNode.fuse).
  constexpr int make_outer_loop(int a, int b);

  // The (numel, rnumel) mix orders compare: a split reduction's sizes before its split
  // (MixOrderReduction.get_numel_rnumel).
  constexpr std::pair<std::int64_t, std::int64_t> unsplit_group(int s) const;

  // Every load of every graph node of s has stride 0 or 1 along that node's last loop
  // (MixOrderReduction.is_contiguous_node).
  constexpr bool contiguous_loads(int s) const;

  // s's first read of `buf` covers all of s's loops (MixOrderReduction._is_full_access).
  constexpr bool full_access(int buf, int s) const;

  // A mix-order node over a and b, the part with contiguous loads first (FusedMixOrderReductions).
  constexpr int make_mix(int a, int b);

  // FusedMixOrderReductions.can_fuse_with: mix-order node f takes `other` into one of its parts
  // (or, `other` being one too, part by part).
  constexpr why_no_fuse mix_can_fuse_with(int f, int other);

  // FusedMixOrderReductions.sub_node_can_fuse: part `part` of mix-order node f takes `other`,
  // which must not depend on nor feed the parts `others` (-1: none).
  constexpr why_no_fuse mix_part_can_fuse(int f, int part, int other, int other1, int other2);

  // FusedMixOrderReductions.fuse_with: the mix-order node made of f and `other`.
  constexpr int mix_fuse_with(int f, int other);

  // Drops WeakDeps made redundant by fusion (_prune_redundant_deps).
  constexpr void prune_redundant_deps(int s);

  constexpr std::vector<std::pair<int, int>> get_possible_fusions(bool reorder_round, round_log* log,
                                                                  std::size_t& examined);

  constexpr void fuse_nodes_once(bool reorder_round, plan& p);

  // sorted(nodes, key=min_order) unless `keep_order`, then a depth-first topological sort
  // visiting each node's unmet deps by buffer name (topological_sort_schedule).
  constexpr void topological_sort(bool keep_order = false);
  // alive_ by min_order, in one pass over the graph's positions.
  constexpr void sort_by_min_order();

  constexpr void finish(plan& p) const;

  const graph& g_;
  fuse_config cfg_;
  Policy policy_;
  std::vector<sched_node> sched_;
  std::vector<std::vector<std::int64_t>> ranges_;  // per graph node once its loops are reordered, else empty
  std::vector<std::vector<int>> loop_orders_;      // per graph node, see plan::loop_orders
  std::vector<int> fused_of_, alive_, owner_, index_in_round_;
  std::vector<char> dead_;
  // Per device id: a CPU ("cpu...": the C++ backend's rules) or a GPU ("cuda...", "xpu...":
  // mix-order reductions), told by name once rather than per pair.
  std::vector<char> cpu_device_, gpu_device_;
  // Per max_order, the lowest min_order of the fused nodes made so far (for
  // will_fusion_create_cycle). A fused node that is fused again stays in: the node it
  // became spans it, so it never lowers the floor below what that node does.
  detail::suffix_min spans_;
  std::vector<dep> extra_deps_;
  std::vector<access> extra_access_;
  detail::interner<dep, detail::dep_hash> extra_dep_ids_;
  detail::interner<access, detail::access_hash> extra_access_ids_;
  // A buffer as the peak-memory guard compares them: by where and how large it is.
  struct peak_key {
    int device;
    element_type dtype;
    std::int64_t elems;
    constexpr bool operator==(const peak_key&) const = default;
  };
  // Scratch marks for the const queries. Held through a pointer rather than as
  // `mutable` members, which GCC 12 refuses to read in constant evaluation.
  struct scratch {
    std::vector<int> dep_mark, dep_seen, buf_mark, node_mark, node_seen, group_seen;
    int stamp = 0, visit = 0;
    std::vector<int> stack;                       // depends_on
    std::vector<std::pair<int, bool>> walk;       // will_fusion_create_cycle
    std::vector<std::vector<std::int64_t>> memo;  // policy memo per scheduler node
    std::vector<char> memo_valid;
    std::vector<std::pair<int, int>> remaining;  // can_fuse_vertical
    // get_possible_fusions: (list, node) uses; per list (start, size); per buffer its list;
    // the lists' nodes; per node where its places end; the places (list, position); per
    // list where its pairs go; the pairs with their list, then in Inductor's order
    std::vector<std::pair<int, int>> uses, lists;
    std::vector<int> bucket_of, filled, place_start, partner_seen, by_list;
    std::vector<std::pair<int, int>> places;
    std::vector<std::pair<int, std::pair<int, int>>> pairs;
    std::vector<std::pair<int, int>> ordered;
    // topological_sort; sort_by_min_order: per graph position, the live node whose min_order it is
    std::vector<int> start, producers, result, at_order;
    std::vector<std::pair<int, int>> deps, order_stack;
    std::vector<char> seen;
    std::vector<int> names, groups;        // can_fuse_vertical
    std::vector<peak_key> keys_a, keys_b;  // can_fusion_increase_peak_memory
    std::vector<int> common;               // shared_data_after_reordering_loop
    struct loops_memo {
      std::vector<detail::merged_loops> loops;  // in the order computed
      std::vector<int> slot;                    // per graph access: its place in loops, or -1
    };
    loops_memo stride_ordered, normalized;  // same_merged_form
  };
  scratch* tmp_ = new scratch{};
};

}  // namespace fusedsl
