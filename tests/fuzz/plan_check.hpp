/// @file plan_check.hpp
/// Checks a plan of a random graph: its invariants, and that running it group by
/// group (each group one fused loop over tiles) gives what unfused execution gives.
#pragma once
#include <algorithm>  // std::find, std::sort
#include <cstdint>    // std::int64_t, std::uint64_t
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string
#include <vector>     // std::vector

#include <fusedsl/schedule/fuse_nodes.hpp>  // fuse_nodes, check_fusion, plan

#include "random_graph.hpp"  // random_graph, node_semantics

namespace fx_fuzz {

/// A broken invariant or a wrong result; the message says which and where.
struct violation : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

constexpr std::uint64_t poison = ~std::uint64_t{0};  ///< an element never written
constexpr std::uint64_t mask32 = 0xffffffffu;

inline std::uint64_t mix(std::uint64_t v) {
  v &= mask32;
  return (v ^ (v >> 7) ^ (v << 3)) & mask32;
}

/// Memory of one execution: one array per storage (an in-place chain shares its first buffer's).
class machine {
 public:
  machine(const random_graph& rg, const fx::graph& g) : rg_(rg), g_(g) {
    storage_.resize(static_cast<std::size_t>(g.buffer_count()));
    for (int b = 0; b < g.buffer_count(); ++b) {
      std::int64_t n = rg.size_of(g.buffer_name(b));
      if (n < 0) throw violation("internal: buffer " + g.buffer_name(b) + " has no size");
      auto& s = storage_[static_cast<std::size_t>(g.real_name(b))];
      if (s.size() < static_cast<std::size_t>(n)) s.resize(static_cast<std::size_t>(n), poison);
    }
    for (const auto& in : rg.inputs) {
      if (g.find_buffer(in) < 0) continue;  // an input no node reads
      auto& s = storage_[static_cast<std::size_t>(storage_of(g.find_buffer(in)))];
      for (std::size_t e = 0; e < s.size(); ++e) s[e] = mix(0x9e3779b9u * (e + 1) + in.size() * 77 + in.back());
    }
  }

  int storage_of(int buffer) const { return g_.real_name(buffer); }

  /// Runs reordered nodes in the plan's loop order from now on.
  void use_loop_orders(const std::vector<std::vector<int>>& orders) { loop_orders_ = orders; }
  /// The node's own flat iteration index of kernel index k (they differ for reordered nodes).
  std::int64_t graph_index(int n, std::int64_t k) const {
    if (static_cast<std::size_t>(n) >= loop_orders_.size() || loop_orders_[static_cast<std::size_t>(n)].empty())
      return k;
    const auto& order = loop_orders_[static_cast<std::size_t>(n)];
    const auto& ranges = g_.node(n).ranges;
    std::vector<std::int64_t> v(ranges.size(), 0);
    for (std::size_t j = order.size(); j-- > 0;) {
      std::int64_t extent = ranges[static_cast<std::size_t>(order[j])];
      v[static_cast<std::size_t>(order[j])] = k % extent;
      k /= extent;
    }
    std::int64_t f = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) f = f * ranges[i] + v[i];
    return f;
  }
  std::vector<std::uint64_t>& storage(int id) { return storage_[static_cast<std::size_t>(id)]; }

  /// Runs node `n` over pointwise indices [p0, p1). `check_read(storage, element)` may refuse a read.
  template <class Check>
  void run(int n, std::int64_t p0, std::int64_t p1, Check&& check_read) {
    const node_semantics& sem = semantics(n);
    int out = storage_of(g_.find_buffer(sem.output));
    auto& dst = storage(out);
    if (sem.kind == fx::node_kind::extern_kernel) {
      std::uint64_t total = 0;
      bool poisoned = false;
      for (const auto& name : sem.star_reads) {
        int s = storage_of(g_.find_buffer(name));
        for (std::size_t e = 0; e < storage(s).size(); ++e) {
          check_read(s, static_cast<std::int64_t>(e));
          std::uint64_t v = storage(s)[e];
          poisoned = poisoned || v == poison;
          total += v;
        }
      }
      for (std::int64_t e = p0; e < p1; ++e)
        dst[static_cast<std::size_t>(e)] = poisoned ? poison : mix(sem.add + static_cast<std::uint64_t>(e + 1) * total);
      return;
    }
    for (std::int64_t k = p0; k < p1; ++k) {
      const std::int64_t p = graph_index(n, k);
      std::uint64_t acc = 0;
      bool poisoned = false;
      for (std::int64_t r = 0; r < sem.rnumel; ++r) {
        std::uint64_t v = sem.add;
        for (const auto& rd : sem.reads) {
          int s = storage_of(g_.find_buffer(rd.buffer));
          std::int64_t e = rd.at.element(p * sem.rnumel + r);
          auto& src = storage(s);
          if (e < 0 || e >= static_cast<std::int64_t>(src.size()))
            throw violation("internal: node " + g_.node(n).name + " reads " + rd.buffer + " out of bounds");
          check_read(s, e);
          std::uint64_t x = src[static_cast<std::size_t>(e)];
          poisoned = poisoned || x == poison;
          v += rd.multiplier * x;
        }
        v = mix(v);
        acc = sem.kind == fx::node_kind::reduction && sem.reduce_max ? std::max(acc, v) : (acc + v) & mask32;
      }
      dst[static_cast<std::size_t>(sem.write.element(p))] = poisoned ? poison : acc;
    }
  }

  const node_semantics& semantics(int n) const {
    const std::string& name = g_.node(n).name;
    for (std::size_t i = 0; i < rg_.specs.size(); ++i)
      if (rg_.specs[i].name == name) return rg_.semantics[i];
    throw violation("internal: no semantics for node " + name);
  }

 private:
  const random_graph& rg_;
  const fx::graph& g_;
  std::vector<std::vector<std::uint64_t>> storage_;
  std::vector<std::vector<int>> loop_orders_;
};

inline bool contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace detail

/// Group k as "group k {n3 n5}".
inline std::string describe_group(const fx::graph& g, const fx::plan& p, int k) {
  std::string s = "group " + std::to_string(k) + " {";
  for (int n : p.groups[static_cast<std::size_t>(k)].nodes) s += (s.back() == '{' ? "" : " ") + g.node(n).name;
  return s + "}";
}

/// The plan's groups, one line each ("group 2: n3 n5 | local b3").
inline std::string describe_groups(const fx::graph& g, const fx::plan& p) {
  std::string s;
  for (std::size_t k = 0; k < p.groups.size(); ++k) {
    s += "group " + std::to_string(k) + ":";
    for (int n : p.groups[k].nodes) s += " " + g.node(n).name;
    s += " | local";
    for (int b : p.groups[k].kernel_local) s += " " + g.buffer_name(b);
    s += "\n";
  }
  return s;
}

/// Throws `violation` unless the plan keeps every dependency in group order, groups are
/// legal (one device, no extern or nop fused, within max_fusion_size), every pair fused in
/// the first round passes check_fusion, and kernel-local buffers are exactly the buffers
/// produced in a group that are no graph output and have no (non-weak) user outside it.
inline void check_invariants(const random_graph& rg, const fx::graph& g, const fx::plan& p) {
  std::vector<int> group_of(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t k = 0; k < p.groups.size(); ++k)
    for (int n : p.groups[k].nodes) {
      if (n < 0 || n >= g.size()) throw violation("group " + std::to_string(k) + " names node id " + std::to_string(n));
      if (group_of[static_cast<std::size_t>(n)] >= 0) throw violation("node " + g.node(n).name + " is in two groups");
      group_of[static_cast<std::size_t>(n)] = static_cast<int>(k);
    }
  // Cycles between groups first (they make any order wrong): depth-first search over group edges.
  const std::size_t groups = p.groups.size();
  std::vector<std::vector<int>> edges(groups);  // group -> groups that must run before it
  for (int n = 0; n < g.size(); ++n) {
    int k = group_of[static_cast<std::size_t>(n)];
    if (k < 0) throw violation("node " + g.node(n).name + " is in no group");
    for (int pred : g.node(n).preds)
      if (group_of[static_cast<std::size_t>(pred)] != k)
        edges[static_cast<std::size_t>(k)].push_back(group_of[static_cast<std::size_t>(pred)]);
  }
  std::vector<int> state(groups, 0), path;  // 0 new, 1 on the path, 2 done
  auto visit = [&](auto&& self, int k) -> void {
    state[static_cast<std::size_t>(k)] = 1;
    path.push_back(k);
    for (int q : edges[static_cast<std::size_t>(k)]) {
      if (state[static_cast<std::size_t>(q)] == 1) {
        std::string cycle;
        for (auto it = std::find(path.begin(), path.end(), q); it != path.end(); ++it)
          cycle += describe_group(g, p, *it) + " <- ";
        throw violation("the fused groups form a cycle: " + cycle + describe_group(g, p, q));
      }
      if (state[static_cast<std::size_t>(q)] == 0) self(self, q);
    }
    path.pop_back();
    state[static_cast<std::size_t>(k)] = 2;
  };
  for (std::size_t k = 0; k < groups; ++k)
    if (state[k] == 0) visit(visit, static_cast<int>(k));
  for (int n = 0; n < g.size(); ++n) {
    int k = group_of[static_cast<std::size_t>(n)];
    for (int pred : g.node(n).preds)
      if (group_of[static_cast<std::size_t>(pred)] > k)
        throw violation("node " + g.node(n).name + " (group " + std::to_string(k) + ") runs before its dependency " +
                        g.node(pred).name + " (group " + std::to_string(group_of[static_cast<std::size_t>(pred)]) +
                        ")");
  }
  for (std::size_t k = 0; k < p.groups.size(); ++k) {
    const auto& grp = p.groups[k];
    const std::string where = "group " + std::to_string(k);
    if (static_cast<int>(grp.nodes.size()) > rg.config.max_fusion_size)
      throw violation(where + " has " + std::to_string(grp.nodes.size()) + " nodes, more than max_fusion_size");
    std::vector<int> produced;
    for (int n : grp.nodes) {
      const auto& nd = g.node(n);
      if (grp.nodes.size() > 1 && (nd.kind == fx::node_kind::extern_kernel || nd.kind == fx::node_kind::nop))
        throw violation(where + " fuses " + fx::to_string(nd.kind) + " node " + nd.name);
      if (nd.device != g.node(grp.nodes[0]).device) throw violation(where + " mixes devices");
      produced.insert(produced.end(), nd.buffers.begin(), nd.buffers.end());
    }
    for (int b : produced) {
      const auto& bi = g.buffer(b);
      bool outside = bi.output;
      for (const auto& u : bi.users)
        if (!u.weak && !detail::contains(grp.nodes, u.node)) outside = true;
      bool local = detail::contains(grp.kernel_local, b), materialized = detail::contains(grp.materialized, b);
      if (local == materialized)
        throw violation(where + ": buffer " + g.buffer_name(b) +
                        " must be exactly one of kernel-local and materialized");
      if (local == outside)
        throw violation(where + ": buffer " + g.buffer_name(b) +
                        (outside ? " is used outside the group or an output but kernel-local"
                                 : " has no user outside the group but is materialized"));
    }
    if (grp.kernel_local.size() + grp.materialized.size() != produced.size())
      throw violation(where + ": kernel_local and materialized list buffers the group does not produce");
  }
  // Pairs fused in the first round, both sides single nodes: each must pass every gate on its own.
  if (!p.rounds.empty() && !p.rounds.front().reorder_round) {
    const auto& round = p.rounds.front();
    int checked = 0;
    for (const auto& c : round.candidates) {
      if (c.outcome != fx::why_no_fuse::none || c.remapped || checked >= 16) continue;
      auto a = round.members(c.node1), b = round.members(c.node2);
      if (a.size() != 1 || b.size() != 1) continue;
      ++checked;
      auto r = fx::check_fusion(g, g.node(a[0]).name, g.node(b[0]).name, rg.config);
      if (r != fx::why_no_fuse::none)
        throw violation("round 1 fused " + g.node(a[0]).name + " and " + g.node(b[0]).name +
                        " but check_fusion says: " + fx::to_string(r));
    }
  }
}

/// Runs the graph unfused (node by node, in topological order) and the plan (group by
/// group; a group is one loop over tiles, each tile running the members in topological
/// order on their part of it, kernel-local buffers discarded after the group), and throws
/// `violation` when a fused read sees an element another tile of its group writes, or when
/// any materialized buffer differs.
inline void check_execution(const random_graph& rg, const fx::graph& g, const fx::plan& p) {
  detail::machine unfused(rg, g), fused(rg, g);
  fused.use_loop_orders(p.loop_orders);
  for (int n = 0; n < g.size(); ++n) {
    const auto& sem = unfused.semantics(n);
    std::int64_t count = sem.kind == fx::node_kind::extern_kernel ? rg.size_of(sem.output) : sem.numel;
    unfused.run(n, 0, count, [](int, std::int64_t) {});
  }
  std::vector<int> shares(static_cast<std::size_t>(g.buffer_count()), 0);
  for (int b = 0; b < g.buffer_count(); ++b) ++shares[static_cast<std::size_t>(g.real_name(b))];

  for (std::size_t k = 0; k < p.groups.size(); ++k) {
    std::vector<int> members = p.groups[k].nodes;
    std::sort(members.begin(), members.end());  // ids are a topological order, as backends run them
    const std::string where = "group " + std::to_string(k);
    // The group's iteration space: its reduction's (numel, rnumel), else (numel, 1).
    std::int64_t numel = fused.semantics(members[0]).numel, rnumel = 1;
    for (int n : members) {
      const auto& s = fused.semantics(n);
      if (s.kind == fx::node_kind::reduction) numel = s.numel, rnumel = s.rnumel;
      if (s.kind == fx::node_kind::extern_kernel) numel = rg.size_of(s.output);
    }
    // The C++ backend's outer-loop groups: a tile is one turn of the loops the members share
    // (their shortest loop nest, every member's leading loops).
    if (rg.config.cpp_backend)
      for (int n : members)
        if (fused.semantics(n).kind != fx::node_kind::extern_kernel) numel = std::min(numel, fused.semantics(n).numel);
    // Tile t of node n: pointwise indices [t * per_tile, (t + 1) * per_tile).
    auto per_tile = [&](int n) -> std::int64_t {
      const auto& s = fused.semantics(n);
      if (s.kind == fx::node_kind::extern_kernel) return 1;
      if (s.numel == numel) return 1;
      if (s.rnumel == 1 && s.numel == numel * rnumel) return rnumel;
      if (rg.config.cpp_backend && numel > 0 && s.numel % numel == 0) return s.numel / numel;
      throw violation(where + ": node " + g.node(n).name + " (numel " + std::to_string(s.numel) + ", rnumel " +
                      std::to_string(s.rnumel) + ") does not tile the group's loop (" + std::to_string(numel) + ", " +
                      std::to_string(rnumel) + ")");
    };
    // Which tile writes each element the group writes.
    std::vector<std::vector<int>> writer_tile(static_cast<std::size_t>(g.buffer_count()));
    for (int n : members) {
      const auto& s = fused.semantics(n);
      int st = fused.storage_of(g.find_buffer(s.output));
      auto& w = writer_tile[static_cast<std::size_t>(st)];
      w.resize(fused.storage(st).size(), -1);
      std::int64_t per = per_tile(n);
      for (std::int64_t t = 0; t < numel; ++t)
        for (std::int64_t q = t * per; q < (t + 1) * per; ++q) {
          std::int64_t e = s.kind == fx::node_kind::extern_kernel ? q : s.write.element(fused.graph_index(n, q));
          int& owner = w[static_cast<std::size_t>(e)];
          if (owner >= 0 && owner != t)
            throw violation(where + ": tiles " + std::to_string(owner) + " and " + std::to_string(t) +
                            " both write element " + std::to_string(e) + " of " + s.output);
          owner = static_cast<int>(t);
        }
    }
    for (std::int64_t t = 0; t < numel; ++t)
      for (int n : members) {
        std::int64_t per = per_tile(n);
        fused.run(n, t * per, (t + 1) * per, [&](int st, std::int64_t e) {
          const auto& w = writer_tile[static_cast<std::size_t>(st)];
          if (!w.empty() && w[static_cast<std::size_t>(e)] >= 0 && w[static_cast<std::size_t>(e)] != t)
            throw violation(where + ": node " + g.node(n).name + " in tile " + std::to_string(t) + " reads element " +
                            std::to_string(e) + " of storage " + g.buffer_name(st) + " that tile " +
                            std::to_string(w[static_cast<std::size_t>(e)]) + " of the same group writes");
        });
      }
    for (int b : p.groups[k].kernel_local)
      if (shares[static_cast<std::size_t>(fused.storage_of(b))] == 1)
        std::fill(fused.storage(fused.storage_of(b)).begin(), fused.storage(fused.storage_of(b)).end(), detail::poison);
  }
  // Every storage holding a buffer the plan materializes (inputs and in-place chains included) must agree.
  std::vector<char> local(static_cast<std::size_t>(g.buffer_count()), 0), compared(local);
  for (const auto& grp : p.groups)
    for (int b : grp.kernel_local) local[static_cast<std::size_t>(b)] = 1;
  for (int b = 0; b < g.buffer_count(); ++b) {
    int st = fused.storage_of(b);
    if (local[static_cast<std::size_t>(b)] || compared[static_cast<std::size_t>(st)]) continue;
    compared[static_cast<std::size_t>(st)] = 1;
    const auto &want = unfused.storage(st), &got = fused.storage(st);
    for (std::size_t e = 0; e < want.size(); ++e) {
      if (want[e] == detail::poison)
        throw violation("internal: unfused execution left " + g.buffer_name(b) + " unwritten");
      if (got[e] != want[e])
        throw violation("buffer " + g.buffer_name(b) + " element " + std::to_string(e) + ": fused " +
                        (got[e] == detail::poison ? std::string("unwritten") : std::to_string(got[e])) + ", unfused " +
                        std::to_string(want[e]));
    }
  }
}

}  // namespace fx_fuzz
