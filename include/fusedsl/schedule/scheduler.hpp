/// @file scheduler.hpp
/// Inductor's fuse_nodes: rounds of candidate collection, scoring and greedy fusion,
/// with every can_fuse gate. Plain constexpr C++ (vectors, sorting, integer ids), so the
/// same code schedules graphs in constant evaluation and at run time. The scheduler
/// is declared in detail/scheduler_class.hpp and defined part by part, along
/// Inductor's own parts.
#pragma once
#include <fusedsl/schedule/detail/cpp_backend.hpp>      // cpp_rules, cpp_backend_can_fuse
#include <fusedsl/schedule/detail/fuse_and_prune.hpp>   // fuse, prune_redundant_deps
#include <fusedsl/schedule/detail/legality.hpp>         // can_fuse, will_fusion_create_cycle
#include <fusedsl/schedule/detail/loop_reordering.hpp>  // reorder_loops
#include <fusedsl/schedule/detail/memory_score.hpp>     // score_fusion_memory
#include <fusedsl/schedule/detail/mix_order.hpp>        // mix_order_reductions, make_mix
#include <fusedsl/schedule/detail/rounds.hpp>           // scheduler(...), run
#include <fusedsl/schedule/detail/scheduler_class.hpp>  // scheduler
