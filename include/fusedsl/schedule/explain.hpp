/// @file explain.hpp
/// Run-time views of a plan: the decision log as text, as data, as Graphviz DOT and as JSON.
#pragma once
#include <cstdio>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <fusedsl/graph/graph.hpp>
#include <fusedsl/schedule/fuse_nodes.hpp>
#include <fusedsl/schedule/plan.hpp>

namespace fusedsl {

/// One candidate of one round, with names resolved.
struct fusion_decision {
  int round = 0;               ///< 0-based round
  bool reorder_round = false;  ///< the extra loop-reordering round
  std::string node1, node2;    ///< the pair as collected ("op0_op1" for a fused node)
  std::string tried1, tried2;  ///< the pair as tried (differs when a side was fused earlier)
  fusion_score score;
  why_no_fuse outcome = why_no_fuse::none;  ///< none: fused
};

namespace detail {
inline std::string joined_names(const plan& p, std::span<const int> nodes) {
  std::string s;
  for (int n : nodes) s += (s.empty() ? "" : "_") + p.node_names[static_cast<std::size_t>(n)];
  return s;
}
inline std::string score_text(const fusion_score& s) {
  std::ostringstream o;
  o << "(template=" << s.template_score << ", type=" << (s.type_score ? 1 : 0) << ", memory=" << s.memory_score
    << ", overlap=" << s.buffer_overlap_score << ", proximity=" << s.proximity_score << ")";
  return o.str();
}
inline std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else o += c;
  }
  return o + "\"";
}
}  // namespace detail

/// Every candidate pair of every round, in score order, with its outcome.
inline std::vector<fusion_decision> possible_fusions(const plan& p) {
  std::vector<fusion_decision> out;
  for (std::size_t r = 0; r < p.rounds.size(); ++r) {
    const round_log& log = p.rounds[r];
    for (const auto& c : log.candidates) {
      fusion_decision d;
      d.round = static_cast<int>(r);
      d.reorder_round = log.reorder_round;
      d.node1 = detail::joined_names(p, log.members(c.node1));
      d.node2 = detail::joined_names(p, log.members(c.node2));
      d.tried1 = c.remapped ? detail::joined_names(p, c.tried1) : d.node1;
      d.tried2 = c.remapped ? detail::joined_names(p, c.tried2) : d.node2;
      d.score = c.score;
      d.outcome = c.outcome;
      out.push_back(std::move(d));
    }
  }
  return out;
}

/// Schedules `g` with the log on and returns possible_fusions of the plan.
template <class Policy = inductor_policy>
std::vector<fusion_decision> possible_fusions(const graph& g, fuse_config cfg = {}, Policy policy = {}) {
  cfg.record_log = true;
  return possible_fusions(fuse_nodes(g, cfg, std::move(policy)));
}

/// Writes the decision log: per round, every candidate in score order with its score and
/// "fused" or the reason it was not; refused pairs when recorded; then the final groups.
inline void explain(const plan& p, std::ostream& os) {
  for (std::size_t r = 0; r < p.rounds.size(); ++r) {
    const round_log& log = p.rounds[r];
    os << "round " << (r + 1) << (log.reorder_round ? " (loop reordering)" : "") << ": " << log.node_count()
       << " nodes, " << log.pairs_examined << " pairs examined, " << log.candidates.size() << " candidates\n";
    for (const auto& c : log.candidates) {
      os << "  " << detail::joined_names(p, log.members(c.node1)) << " + "
         << detail::joined_names(p, log.members(c.node2)) << "  score " << detail::score_text(c.score) << "  -> ";
      if (c.remapped)
        os << "as " << detail::joined_names(p, c.tried1) << " + " << detail::joined_names(p, c.tried2) << ": ";
      os << to_string(c.outcome) << "\n";
    }
    for (const auto& x : log.rejected)
      os << "  not a candidate: " << detail::joined_names(p, log.members(x.node1)) << " + "
         << detail::joined_names(p, log.members(x.node2)) << ": " << to_string(x.reason) << "\n";
    os << "  -> " << log.nodes_after << " nodes\n";
  }
  os << p.groups.size() << " kernels:\n";
  for (std::size_t i = 0; i < p.groups.size(); ++i) {
    const fused_group& g = p.groups[i];
    os << "  kernel " << i << ": [";
    for (std::size_t k = 0; k < g.names.size(); ++k) os << (k ? ", " : "") << g.names[k];
    os << "]  writes {";
    for (std::size_t k = 0; k < g.materialized.size(); ++k)
      os << (k ? ", " : "") << p.buffer_names[static_cast<std::size_t>(g.materialized[k])];
    os << "}  kernel-local {";
    for (std::size_t k = 0; k < g.kernel_local.size(); ++k)
      os << (k ? ", " : "") << p.buffer_names[static_cast<std::size_t>(g.kernel_local[k])];
    os << "}\n";
  }
}

/// explain() into a string.
inline std::string explain(const plan& p) {
  std::ostringstream os;
  explain(p, os);
  return os.str();
}

/// Graphviz DOT of the scheduled graph with one cluster per kernel of the plan.
inline std::string to_dot(const plan& p) {
  std::ostringstream o;
  o << "digraph fusedsl {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t i = 0; i < p.groups.size(); ++i) {
    o << "  subgraph cluster_" << i << " {\n    label=\"kernel " << i << "\";\n    style=rounded;\n";
    for (int n : p.groups[i].nodes) {
      auto k = static_cast<std::size_t>(n);
      // Label "name\nkind": a quoted DOT string with a line break between the two.
      std::string name = detail::json_string(p.node_names[k]);
      name.pop_back();
      o << "    n" << n << " [label=" << name << "\\n" << to_string(p.node_kinds[k]) << "\"];\n";
    }
    o << "  }\n";
  }
  for (std::size_t i = 0; i + 1 < p.pred_start.size(); ++i)
    for (int k = p.pred_start[i]; k < p.pred_start[i + 1]; ++k)
      o << "  n" << p.preds[static_cast<std::size_t>(k)] << " -> n" << i << ";\n";
  o << "}\n";
  return o.str();
}

/// JSON for tools: {"fused_groups": [[names...]...], "kernels": n, "rounds": [...]}.
inline std::string to_json(const plan& p) {
  std::ostringstream o;
  o << "{\"fused_groups\": [";
  for (std::size_t i = 0; i < p.groups.size(); ++i) {
    o << (i ? ", " : "") << "[";
    for (std::size_t k = 0; k < p.groups[i].names.size(); ++k)
      o << (k ? ", " : "") << detail::json_string(p.groups[i].names[k]);
    o << "]";
  }
  o << "], \"kernels\": " << p.groups.size() << ", \"pairs_examined\": " << p.pairs_examined << ", \"materialized\": [";
  for (std::size_t i = 0; i < p.groups.size(); ++i) {
    o << (i ? ", " : "") << "[";
    for (std::size_t k = 0; k < p.groups[i].materialized.size(); ++k)
      o << (k ? ", " : "")
        << detail::json_string(p.buffer_names[static_cast<std::size_t>(p.groups[i].materialized[k])]);
    o << "]";
  }
  o << "], \"decisions\": [";
  auto ds = possible_fusions(p);
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const auto& d = ds[i];
    o << (i ? ", " : "") << "{\"round\": " << d.round << ", \"node1\": " << detail::json_string(d.node1)
      << ", \"node2\": " << detail::json_string(d.node2) << ", \"memory_score\": " << d.score.memory_score
      << ", \"outcome\": " << detail::json_string(to_string(d.outcome)) << "}";
  }
  o << "]}";
  return o.str();
}

}  // namespace fusedsl
