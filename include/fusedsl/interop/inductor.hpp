/// @file inductor.hpp
/// Loading PyTorch Inductor scheduler-node dumps (what Scheduler.fuse_nodes received and
/// returned) into a fusedsl::graph and the settings it ran with, ready for fuse_nodes with
/// the default inductor_policy.
#pragma once
#include <algorithm>  // std::stable_sort
#include <climits>    // INT_MAX
#include <cstdint>
#include <cstdlib>   // std::strtod
#include <optional>  // std::optional
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>  // std::remove_reference_t
#include <unordered_set>
#include <vector>

#include <fusedsl/core/error.hpp>
#include <fusedsl/graph/graph.hpp>
#include <fusedsl/interop/detail/json.hpp>
#include <fusedsl/interop/torch_dtype.hpp>  // element_type_from_torch
#include <fusedsl/schedule/config.hpp>      // fuse_config, torch_version

namespace fusedsl {

/// A loaded dump: the graph, and Inductor's own answer for comparison.
struct inductor_dump {
  std::string workload;      ///< what was compiled
  std::string torch;         ///< PyTorch version
  double fuse_nodes_ms = 0;  ///< Inductor's own fuse_nodes time
  graph g;                   ///< finalized; a foreach node's members are its nodes
  fuse_config config;        ///< the release (torch_version; 2.11 when absent) and fusion options it ran with
  std::vector<std::vector<std::string>> fused_groups;  ///< Inductor's groups (empty if absent)
};

namespace detail::inductor {

using json::value;

struct reader {
  std::string source;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw error(source + ": " + where + ": " + what);
  }
  const value& need(const value& obj, std::string_view key, const std::string& where) const {
    const value* v = obj.find(key);
    if (!v) fail(where, "missing field \"" + std::string(key) + "\"");
    return *v;
  }
  std::string str(const value& v, const std::string& where, std::string_view field) const {
    if (!v.is_string()) fail(where, "field \"" + std::string(field) + "\" must be a string");
    return v.text;
  }
  bool boolean(const value& obj, std::string_view key, const std::string& where) const {
    const value& v = need(obj, key, where);
    if (!v.is_bool()) fail(where, "field \"" + std::string(key) + "\" must be true or false");
    return v.b;
  }
  // A non-negative integer given as a JSON number or as a decimal string (sizes are static).
  std::int64_t integer(const value& v, const std::string& where, std::string_view field) const {
    std::string_view t = v.text;
    if (!(v.is_string() || v.is_number()) || t.empty())
      fail(where, "field \"" + std::string(field) + "\": expected an integer");
    std::int64_t r = 0;
    for (char c : t) {
      if (c < '0' || c > '9')
        fail(where, "field \"" + std::string(field) + "\": bad number \"" + std::string(t) +
                        "\" (expected a non-negative integer)");
      if (r > (INT64_MAX - (c - '0')) / 10) fail(where, "field \"" + std::string(field) + "\": number too large");
      r = r * 10 + (c - '0');
    }
    return r;
  }
  // True when `v` lists member nodes (objects), as a foreach node does; not a list of names.
  static bool groups_nodes(const value& v) {
    const value* m = v.find("members");
    return m && m->is_array() && !m->items.empty() && m->items[0].is_object();
  }
  // A group's numel or rnumel: a number, or (the C++ backend's groups) the list of loop
  // sizes whose product it is, kept in `sizes`.
  std::int64_t size_product(const value& v, const std::string& where, std::vector<std::int64_t>& sizes) const {
    if (!v.is_array()) return integer(v, where, "group");
    std::int64_t r = 1;
    for (const auto& it : v.items) {
      std::int64_t k = integer(it, where, "group");
      if (k != 0 && r > INT64_MAX / k) fail(where, "field \"group\": number too large");
      r *= k;
      sizes.push_back(k);
    }
    return r;
  }
  std::vector<std::string> names(const value& obj, std::string_view key, const std::string& where) const {
    const value& v = need(obj, key, where);
    if (!v.is_array()) fail(where, "field \"" + std::string(key) + "\" must be a list");
    std::vector<std::string> out;
    for (const auto& it : v.items) out.push_back(str(it, where, key));
    return out;
  }

  dep_spec parse_dep(const value& v, const std::string& where) const {
    if (!v.is_object()) fail(where, "a dep must be an object");
    dep_spec d;
    std::string kind = str(need(v, "kind", where), where, "kind");
    d.buffer = str(need(v, "buffer", where), where, "buffer");
    std::string at = where + " (" + kind + " on " + d.buffer + ")";
    if (const value* b = v.find("bytes")) d.bytes = integer(*b, at, "bytes");
    if (kind == "MemoryDep") {
      d.kind = dep_kind::memory;
      d.index = str(need(v, "index", at), at, "index");
      const value& size = need(v, "size", at);
      if (!size.is_array()) fail(at, "field \"size\" must be a list");
      for (const auto& s : size.items) d.sizes.push_back(integer(s, at, "size"));
      if (v.find("var_names")) d.var_names = names(v, "var_names", at);
      if (!d.var_names.empty() && d.var_names.size() != d.sizes.size())
        fail(at, "fields \"var_names\" and \"size\" differ in length");
      if (!v.find("bytes")) fail(at, "missing field \"bytes\"");
    } else if (kind == "StarDep") {
      d.kind = dep_kind::star;
    } else if (kind == "WeakDep") {
      d.kind = dep_kind::weak;
      d.mutating_buf = str(need(v, "mutating_buf", at), at, "mutating_buf");
      if (!v.find("bytes")) d.bytes = 1;
    } else {
      fail(at, "field \"kind\": unknown dep kind \"" + kind + "\"");
    }
    return d;
  }

  node_spec parse_node(const value& v, std::string where) const {
    if (!v.is_object()) fail(where, "a node must be an object");
    node_spec n;
    n.name = str(need(v, "name", where), where, "name");
    where = "node " + n.name;
    std::string type = str(need(v, "type", where), where, "type");
    bool reduction = boolean(v, "reduction", where);
    bool is_template = boolean(v, "template", where);
    bool is_extern = boolean(v, "extern", where);
    bool foreach = boolean(v, "foreach", where);
    if (type.find("Nop") != std::string::npos && !is_template) n.kind = node_kind::nop;
    else if (is_template) n.kind = node_kind::template_kernel;
    else if (is_extern || type.find("Extern") != std::string::npos) n.kind = node_kind::extern_kernel;
    else if (foreach || type.find("Foreach") != std::string::npos) n.kind = node_kind::foreach;
    else if (reduction) n.kind = node_kind::reduction;
    else n.kind = node_kind::pointwise;
    if (const value* dev = v.find("device"); dev && dev->is_string()) n.device = dev->text;
    const value* group = v.find("group");
    bool needs_group = n.kind != node_kind::extern_kernel && n.kind != node_kind::nop && n.kind != node_kind::foreach;
    if (group && group->kind != value::type::null) {
      // Foreach (combo) kernels have a symbolic group; only kernels that need one are strict.
      bool well_formed = group->is_array() && group->items.size() == 2 && group->items[0].is_string() &&
                         group->items[1].is_array() && group->items[1].items.size() == 2;
      if (well_formed) {
        n.device = group->items[0].text;
        n.numel = size_product(group->items[1].items[0], where, n.loop_sizes);
        n.rnumel = size_product(group->items[1].items[1], where, n.reduction_loop_sizes);
        if (!group->items[1].items[0].is_array() || !group->items[1].items[1].is_array()) {
          n.loop_sizes.clear();  // loop sizes only where both parts are lists
          n.reduction_loop_sizes.clear();
        }
      } else if (needs_group) {
        fail(where,
             "field \"group\" must be [device, [numel, rnumel]] or, on the CPU, [device, [sizes, reduction_sizes]]");
      }
    } else if (needs_group) {
      fail(where, "missing field \"group\"");
    }
    if (n.kind == node_kind::reduction && n.rnumel <= 1 && needs_group)
      fail(where, "field \"group\": a reduction needs rnumel > 1");
    for (const char* key : {"reads", "writes"}) {
      const value& list = need(v, key, where);
      if (!list.is_array()) fail(where, "field \"" + std::string(key) + "\" must be a list");
      for (std::size_t i = 0; i < list.items.size(); ++i) {
        dep_spec d = parse_dep(list.items[i], where + ": " + key + "[" + std::to_string(i) + "]");
        (std::string_view(key) == "reads" ? n.reads : n.writes).push_back(std::move(d));
      }
    }
    n.buffers = names(v, "buffers", where);
    if (!groups_nodes(v) && v.find("members")) n.members = names(v, "members", where);
    if (const value* t = v.find("dtype"); t && t->is_string()) {
      const std::optional<element_type> type = element_type_from_torch(t->text);
      if (!type)
        fail(where, "field \"dtype\": \"" + t->text + "\" is not a PyTorch dtype (expected e.g. \"torch.float32\")");
      n.dtype = *type;
    }
    return n;
  }

  // "2.11.0+cu130" -> {2, 11}.
  torch_version version(const value& v, std::string_view field) const {
    const std::string where = "top level";
    std::string t = str(v, where, field);
    auto bad = [&] {
      fail(where, "field \"" + std::string(field) + "\": \"" + t +
                      "\" is not a PyTorch version (expected e.g. \"2.11.0+cu130\")");
    };
    torch_version r;
    std::size_t p = 0;
    for (int* part : {&r.major, &r.minor}) {
      if (part == &r.minor) {
        if (p >= t.size() || t[p] != '.') bad();
        ++p;
      }
      std::size_t start = p;
      for (*part = 0; p < t.size() && t[p] >= '0' && t[p] <= '9' && p - start < 6; ++p)
        *part = *part * 10 + (t[p] - '0');
      if (p == start) bad();
    }
    return r;
  }

  // The options of Inductor's config that fusedsl models, by dotted name; others are ignored.
  void parse_config(const value& cfg, fuse_config& c) const {
    const std::string where = "config";
    if (!cfg.is_object()) fail("top level", "field \"config\" must be an object");
    auto flag = [&](const value& v, const std::string& key, bool& out) {
      if (!v.is_bool()) fail(where, "option \"" + key + "\" must be true or false");
      out = v.b;
    };
    auto count = [&](const value& v, const std::string& key, auto& out) {
      std::int64_t k = integer(v, where, key);
      if (k > INT_MAX) fail(where, "option \"" + key + "\": number too large");
      out = static_cast<std::remove_reference_t<decltype(out)>>(k);
    };
    // Mix-order reductions are Triton's, and C++ wrapper code turns them off.
    bool triton = true, cpp_wrapper = false;
    for (const auto& [key, v] : cfg.fields) {
      if (key == "aggressive_fusion") flag(v, key, c.aggressive_fusion);
      else if (key == "triton.mix_order_reduction") {
        if (v.is_number()) c.mix_order_reduction = integer(v, where, key) != 0;  // Inductor also takes 0 and 1
        else flag(v, key, c.mix_order_reduction);
      } else if (key == "cpp_wrapper") flag(v, key, cpp_wrapper);
      else if (key == "cpu_backend") c.cpp_backend = str(v, where, key) == "cpp";
      else if (key == "cpp.max_horizontal_fusion_size") count(v, key, c.cpp_max_horizontal_fusion_size);
      else if (key == "cuda_backend") triton = str(v, where, key) == "triton";
      else if (key == "epilogue_fusion") flag(v, key, c.epilogue_fusion);
      else if (key == "epilogue_fusion_first") flag(v, key, c.epilogue_fusion_first);
      else if (key == "prologue_fusion") flag(v, key, c.prologue_fusion);
      else if (key == "loop_ordering_after_fusion") flag(v, key, c.loop_ordering_after_fusion);
      else if (key == "triton.tiling_prevents_pointwise_fusion") flag(v, key, c.tiling_prevents_pointwise_fusion);
      else if (key == "triton.tiling_prevents_reduction_fusion") flag(v, key, c.tiling_prevents_reduction_fusion);
      else if (key == "max_fusion_size") count(v, key, c.max_fusion_size);
      else if (key == "max_fusion_buffer_group_pairwise_attempts")
        count(v, key, c.max_fusion_buffer_group_pairwise_attempts);
      else if (key == "score_fusion_memory_threshold") count(v, key, c.score_fusion_memory_threshold);
      else if (key == "max_fusion_unique_io_buffers") {
        if (v.kind == value::type::null) c.max_fusion_unique_io_buffers = 0;  // None: no limit
        else count(v, key, c.max_fusion_unique_io_buffers);
      } else if (key == "min_overlap_ratio") {
        if (!v.is_number() || v.text.starts_with('-'))
          fail(where, "option \"min_overlap_ratio\" must be a number of at least 0");
        c.min_overlap_ratio = std::strtod(v.text.c_str(), nullptr);
      }
    }
    if (!triton || cpp_wrapper) c.mix_order_reduction = false;
  }

  // Inductor marks the first stage of a reduction it splits in two (`_split_size`) for mix
  // orders to see the reduction before the split; a dump does not say which it split, so
  // they are recognised by their shape: a reduction whose one buffer only a second
  // reduction reads, that reduction reading nothing else and reducing the first one's
  // outputs in groups (numel x rnumel of the second = numel of the first).
  static void mark_split_reductions(std::vector<node_spec>& specs, const std::vector<std::string>& outputs) {
    auto is_output = [&](const std::string& b) {
      return std::find(outputs.begin(), outputs.end(), b) != outputs.end();
    };
    for (node_spec& first : specs) {
      if (first.kind != node_kind::reduction || first.writes.size() != 1) continue;
      const std::string& buf = first.writes.front().buffer;
      if (is_output(buf)) continue;
      const node_spec* second = nullptr;
      bool only = true;
      for (const node_spec& n : specs)
        for (const dep_spec& r : n.reads) {
          if (r.buffer != buf || r.kind == dep_kind::weak) continue;
          if (second && second != &n) only = false;
          second = &n;
        }
      if (!second || !only || second->kind != node_kind::reduction) continue;
      bool reads_only_buf = true;
      for (const dep_spec& r : second->reads) reads_only_buf = reads_only_buf && r.buffer == buf;
      // In divisions: the sizes of a dump may be near INT64_MAX.
      if (!reads_only_buf || second->rnumel < 1 || first.numel % second->rnumel != 0 ||
          first.numel / second->rnumel != second->numel || first.rnumel > INT64_MAX / second->rnumel)
        continue;
      first.unsplit_numel = second->numel;
      first.unsplit_rnumel = first.rnumel * second->rnumel;
    }
  }
};

}  // namespace detail::inductor

/// Loads a dump from JSON text. `source` names it in error messages. Malformed or
/// inconsistent input (bad JSON, missing fields, bad numbers, unknown node names in
/// users/ancestors, cycles, buffers written twice) throws fusedsl::error naming the
/// node and the field.
inline inductor_dump load_inductor_dump(std::string_view text, const std::string& source = "<memory>") {
  using detail::json::value;
  detail::inductor::reader rd{source};
  value root = detail::json::parse(text, source);
  if (!root.is_object()) rd.fail("top level", "expected an object");
  inductor_dump out;
  if (const value* w = root.find("workload"); w && w->is_string()) out.workload = w->text;
  if (const value* t = root.find("torch"); t && t->is_string()) out.torch = t->text;
  // strtod, not stod: an out-of-range time (1e999) is informational, not a reason to throw std::out_of_range.
  if (const value* ms = root.find("fuse_nodes_ms"); ms && ms->is_number())
    out.fuse_nodes_ms = std::strtod(ms->text.c_str(), nullptr);
  if (const value* t = root.find("torch_version")) out.config.torch = rd.version(*t, "torch_version");
  else if (const value* t2 = root.find("torch")) out.config.torch = rd.version(*t2, "torch");
  else out.config.torch = torch_version{2, 11};
  out.config.mix_order_reduction = out.config.torch >= torch_version{2, 10};  // Inductor's default since 2.10
  out.config.cpp_backend = true;                                              // Inductor's default cpu_backend, "cpp"
  if (const value* c = root.find("config")) rd.parse_config(*c, out.config);
  const value& nodes = rd.need(root, "nodes", "top level");
  if (!nodes.is_array()) rd.fail("top level", "field \"nodes\" must be a list");
  // The nodes Inductor scheduled: a foreach node's members stand for it, each in the
  // foreach group of that name. `given` holds every node object, foreach nodes included,
  // for the checks of users and ancestors.
  std::vector<node_spec> specs;
  std::vector<std::int64_t> order;  // each spec's min_order: its position before foreach nodes formed
  std::vector<const value*> given;
  bool ordered = true;
  auto add = [&](node_spec n, const value& v, const std::string& where) {
    const value* mo = v.find("min_order");
    ordered = ordered && mo;
    order.push_back(mo ? rd.integer(*mo, where, "min_order") : 0);
    specs.push_back(std::move(n));
  };
  for (std::size_t i = 0; i < nodes.items.size(); ++i) {
    const value& v = nodes.items[i];
    node_spec n = rd.parse_node(v, "nodes[" + std::to_string(i) + "]");
    const std::string where = "node " + n.name;
    given.push_back(&v);
    if (!rd.groups_nodes(v)) {
      add(std::move(n), v, where);
      continue;
    }
    if (n.kind != node_kind::foreach)
      rd.fail(where, "field \"members\": only foreach nodes (ForeachKernelSchedulerNode) may group nodes here");
    const value& members = *v.find("members");
    for (std::size_t k = 0; k < members.items.size(); ++k) {
      const value& mv = members.items[k];
      const std::string at = where + ": members[" + std::to_string(k) + "]";
      node_spec m = rd.parse_node(mv, at);
      if (rd.groups_nodes(mv) || (m.kind != node_kind::pointwise && m.kind != node_kind::reduction))
        rd.fail(at, "a foreach node's members must be pointwise or reduction nodes");
      m.foreach_group = n.name;
      given.push_back(&mv);
      add(std::move(m), mv, at);
    }
  }
  // In the original order when every node gives it (Inductor's min_order, which proximity
  // scores count), so that foreach members sit where they were computed.
  std::vector<std::size_t> by_order(specs.size());
  for (std::size_t i = 0; i < by_order.size(); ++i) by_order[i] = i;
  if (ordered) std::stable_sort(by_order.begin(), by_order.end(), [&](auto x, auto y) { return order[x] < order[y]; });
  // Hashed: users and ancestors name O(nodes^2) nodes in all on large graphs.
  std::unordered_set<std::string_view> names;
  for (const auto& x : specs) names.insert(x.name);
  auto known = [&](const std::string& nm) { return names.count(nm) > 0; };
  for (const value* v : given) {
    const std::string where = "node " + rd.str(rd.need(*v, "name", "nodes"), "nodes", "name");
    for (const char* key : {"users", "ancestors"}) {
      if (!v->find(key)) continue;
      for (const auto& u : rd.names(*v, key, where))
        if (u != "OUTPUT" && !known(u))
          rd.fail(where, "field \"" + std::string(key) + "\": unknown node \"" + u + "\"");
    }
  }
  const std::vector<std::string> outputs = rd.names(root, "outputs", "top level");
  if (out.config.mix_order_reduction) rd.mark_split_reductions(specs, outputs);
  for (std::size_t i : by_order) out.g.add_node(std::move(specs[i]));
  for (const auto& o : outputs) out.g.add_output(o);
  if (const value* fg = root.find("fused_groups")) {
    if (!fg->is_array()) rd.fail("top level", "field \"fused_groups\" must be a list of lists");
    for (const auto& grp : fg->items) {
      if (!grp.is_array()) rd.fail("top level", "field \"fused_groups\" must be a list of lists");
      std::vector<std::string> g;
      for (const auto& nm : grp.items) g.push_back(rd.str(nm, "top level", "fused_groups"));
      out.fused_groups.push_back(std::move(g));
    }
  }
  try {
    out.g.finalize();
  } catch (const error& e) {
    throw error(source + ": " + e.what());
  }
  return out;
}

/// Loads a dump from a file.
inline inductor_dump load_inductor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_inductor_dump(ss.str(), path);
}

}  // namespace fusedsl
