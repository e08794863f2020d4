// Loading Inductor dumps: the samples give Inductor's groups; bad input is refused
// with the node and the field named.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>
#include <string>

#include <fusedsl/interop/inductor.hpp>
#include <fusedsl/schedule/fuse_nodes.hpp>

namespace fx = fusedsl;

namespace {
using groups = std::vector<std::vector<std::string>>;
groups canonical(groups g) {
  for (auto& x : g) std::sort(x.begin(), x.end());
  std::sort(g.begin(), g.end());
  return g;
}

// The text of a sample dump of data/ (empty if missing).
std::string sample(const std::string& file) {
  std::ifstream in(FUSEDSL_DUMP_DIR "/" + file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A minimal valid dump with two pointwise nodes; `patch` edits the text.
std::string dump(const std::string& node_b_extra = "", const std::string& users_b = "[\"OUTPUT\"]",
                 const std::string& numel = "\"64\"") {
  return R"({"workload": "t", "outputs": ["b_out"], "nodes": [
    {"name": "a", "type": "SchedulerNode", "reduction": false, "template": false, "extern": false, "foreach": false,
     "device": "cuda:0", "group": ["cuda:0", [)" +
         numel + R"(, "1"]],
     "reads": [{"kind": "MemoryDep", "buffer": "x", "index": "d0", "size": ["64"], "var_names": ["d0"], "bytes": 256}],
     "writes": [{"kind": "MemoryDep", "buffer": "a_out", "index": "d0", "size": ["64"], "var_names": ["d0"], "bytes": 256}],
     "unmet": [], "users": ["b"], "buffers": ["a_out"], "ancestors": [], "min_order": 0, "max_order": 0, "members": ["a"]},
    {"name": "b", "type": "SchedulerNode", "reduction": false, "template": false, "extern": false, "foreach": false,
     "device": "cuda:0", "group": ["cuda:0", ["64", "1"]], )" +
         node_b_extra + R"(
     "reads": [{"kind": "MemoryDep", "buffer": "a_out", "index": "d0", "size": ["64"], "var_names": ["d0"], "bytes": 256}],
     "writes": [{"kind": "MemoryDep", "buffer": "b_out", "index": "d0", "size": ["64"], "var_names": ["d0"], "bytes": 256}],
     "unmet": ["a_out"], "users": )" +
         users_b + R"(, "buffers": ["b_out"], "ancestors": ["a"], "min_order": 1, "max_order": 1,
     "members": ["b"]}],
  "fused_groups": [["a", "b"]]})";
}
}  // namespace

TEST_CASE("every sample dump schedules to Inductor's fused_groups") {
  // The project's samples and data/torch-2.11/, recorded by tools/inductor-dump.
  int files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(FUSEDSL_DUMP_DIR)) {
    if (e.path().extension() != ".json") continue;
    ++files;
    CAPTURE(e.path().string());
    auto d = fx::load_inductor_file(e.path().string());
    auto p = fx::fuse_nodes(d.g, d.config);
    groups ours;
    for (const auto& g : p.groups) ours.push_back(g.names);
    CHECK(canonical(ours) == canonical(d.fused_groups));
  }
  CHECK(files >= 65);
}

TEST_CASE("a minimal dump loads and fuses") {
  auto d = fx::load_inductor_dump(dump(), "mini");
  CHECK(d.g.size() == 2);
  CHECK(fx::fuse_nodes(d.g).group_count() == 1);
}

TEST_CASE("bad dumps are refused with the node and the field named") {
  auto refused = [](const std::string& text, const char* expected) {
    CHECK_THROWS_WITH_AS(fx::load_inductor_dump(text, "bad.json"), doctest::Contains(expected), fx::error);
  };
  refused(dump().substr(0, 300), "bad.json: JSON: unexpected end of input");
  refused(dump("", "[\"OUTPUT\", \"nobody\"]"), "node b: field \"users\": unknown node \"nobody\"");
  refused(dump("", "[\"OUTPUT\"]", "\"6x4\""), "node a: field \"group\": bad number \"6x4\"");
  refused(dump("", "[\"OUTPUT\"]", "-3"), "node a: field \"group\": bad number \"-3\"");
  std::string no_reads = dump();
  no_reads.replace(no_reads.find("\"reads\""), 5, "\"rXds");
  refused(no_reads, "node a: missing field \"reads\"");
  std::string no_kind = dump();
  no_kind.replace(no_kind.find("\"kind\": \"MemoryDep\""), 6, "\"kond\"");
  refused(no_kind, "node a: reads[0]: missing field \"kind\"");
  std::string bad_kind = dump();
  bad_kind.replace(bad_kind.find("MemoryDep"), 9, "MemoryDop");
  refused(bad_kind, "unknown dep kind \"MemoryDop\"");
  // a reads b's output and b reads a's: a cycle.
  std::string cyc = dump();
  cyc.replace(cyc.find("\"buffer\": \"x\""), 13, "\"buffer\": \"b_out\"");
  refused(cyc, "cycle");
  std::string no_group = dump();
  no_group.replace(no_group.find("\"group\""), 7, "\"grXup\"");
  refused(no_group, "node a: missing field \"group\"");
}

TEST_CASE("dtypes: PyTorch's spellings become typed element types with their sizes; others are refused") {
  auto b_type = [](const std::string& dtype) {
    const auto d = fx::load_inductor_dump(dump("\"dtype\": \"" + dtype + "\","), "mini");
    const int b = d.g.find_node("b");
    REQUIRE(b >= 0);
    return d.g.node(b).dtype;
  };
  CHECK(b_type("torch.float32") == fx::element_type::f32);
  CHECK(b_type("torch.bfloat16") == fx::element_type::bf16);
  CHECK(b_type("torch.complex128") == fx::element_type::c128);
  CHECK(b_type("torch.float8_e5m2") == fx::element_type::f8_e5m2);
  CHECK(b_type("torch.long") == fx::element_type::i64);
  CHECK(fx::itemsize(fx::element_type::bf16) == 2);
  CHECK(fx::itemsize(fx::element_type::c128) == 16);
  CHECK(fx::itemsize(fx::element_type::unknown) == 4);
  CHECK(fx::load_inductor_dump(dump(), "mini").g.node(1).dtype == fx::element_type::unknown);
  CHECK_THROWS_WITH_AS(fx::load_inductor_dump(dump("\"dtype\": \"torch.float33\","), "bad.json"),
                       doctest::Contains("node b: field \"dtype\": \"torch.float33\" is not a PyTorch dtype"),
                       fx::error);
  // A program's element types reach its graph typed (the lowering).
  for (fx::dtype d : fx::all_dtypes)
    CHECK(fx::itemsize(fx::element_type_of(d)) == static_cast<std::int64_t>(fx::size_of(d)));
}

namespace {
// A node of the newer dumps: CPU groups list loop sizes; `extra` adds fields.
std::string cpu_node(const std::string& name, const std::string& in, const std::string& out, int order,
                     const std::string& extra = "") {
  auto dep = [](const std::string& buf) {
    return R"({"kind": "MemoryDep", "buffer": ")" + buf + R"(", "index": "d0", "size": ["64"], "bytes": 256})";
  };
  return R"({"name": ")" + name + R"(", "type": "SchedulerNode", "reduction": false, "template": false,
    "extern": false, "foreach": false, "device": "cpu", "group": ["cpu", [["8", "8"], []]], )" +
         extra + R"("reads": [)" + dep(in) + R"(], "writes": [)" + dep(out) + R"(], "unmet": [], "users": ["OUTPUT"],
    "buffers": [")" +
         out + R"("], "ancestors": [], "min_order": )" + std::to_string(order) + "}";
}
// A dump of the newer form: a foreach node {a, b} listed after c, which reads b's output.
std::string foreach_dump(
    const std::string& top = R"("torch_version": "2.15.0+cpu", "config": {"max_fusion_size": 32},)",
    const std::string& member_type = "SchedulerNode") {
  std::string b = cpu_node("b", "y", "b_out", 1);
  b.replace(b.find("SchedulerNode"), 13, member_type);
  return "{" + top + R"( "outputs": ["a_out", "c_out"], "nodes": [)" +
         cpu_node("c", "b_out", "c_out", 2, R"("unmet": ["b_out"], "ancestors": ["b"],)") +
         R"j(, {"name": "a_b", "type": "ForeachKernelSchedulerNode", "reduction": false, "template": false,
    "extern": false, "foreach": true, "device": "cpu", "group": ["cpu", [["Expr(combo_kernel)"]]],
    "reads": [], "writes": [], "unmet": [], "users": ["c"], "buffers": ["a_out", "b_out"], "ancestors": [],
    "members": [)j" +
         cpu_node("a", "x", "a_out", 0) + ", " + b + "]}]}";
}
}  // namespace

TEST_CASE("newer dumps: torch_version, config, foreach members and CPU groups") {
  auto d = fx::load_inductor_dump(foreach_dump(), "v2");
  CHECK(d.config.torch == fx::torch_version{2, 15});
  CHECK(d.config.max_fusion_size == 32);
  // The members are the graph's nodes, in their original order, in the foreach group.
  REQUIRE(d.g.size() == 3);
  CHECK(d.g.node(0).name == "a");
  CHECK(d.g.node(2).name == "c");
  CHECK(d.g.node(0).numel == 64);
  REQUIRE(d.g.foreach_groups().size() == 1);
  CHECK(d.g.foreach_groups()[0].name == "a_b");
  CHECK(d.g.foreach_groups()[0].members == std::vector<int>{0, 1});
  // Without torch_version (nor torch): 2.11, and its config defaults.
  auto old = fx::load_inductor_dump(dump(), "old");
  CHECK(old.config.torch == fx::torch_version{2, 11});
  CHECK(old.config.max_fusion_size == 64);
}

TEST_CASE("mix-order reductions: the setting by release and config, split reductions recognised") {
  const std::string text = sample("mixorder_layernorm_bwd_1.json");
  REQUIRE(!text.empty());
  auto d = fx::load_inductor_dump(text, "mixorder");
  CHECK(d.config.mix_order_reduction);
  // op3 and op5 are the first stages of column sums split 128 ways (group 131072 x 128),
  // each read only by a second stage (op4, op6) that adds 128 partial sums for 1024 columns.
  auto unsplit = [&](const fx::inductor_dump& x, const char* name) {
    const auto& n = x.g.node(x.g.find_node(name));
    return std::pair{n.unsplit_numel, n.unsplit_rnumel};
  };
  CHECK(unsplit(d, "op3") == std::pair<std::int64_t, std::int64_t>{1024, 16384});
  CHECK(unsplit(d, "op5") == std::pair<std::int64_t, std::int64_t>{1024, 16384});
  CHECK(unsplit(d, "op0") == std::pair<std::int64_t, std::int64_t>{0, 0});
  CHECK(unsplit(d, "op4") == std::pair<std::int64_t, std::int64_t>{0, 0});
  // The sample with each (from, to) replaced once.
  auto edited = [&](std::vector<std::pair<std::string, std::string>> edits) {
    std::string t = text;
    for (const auto& [from, to] : edits) {
      auto at = t.find(from);
      REQUIRE(at != std::string::npos);
      t.replace(at, from.size(), to);
    }
    return fx::load_inductor_dump(t, "edited");
  };
  const std::string on = R"("triton.mix_order_reduction": true)";
  auto off = edited({{on, R"("triton.mix_order_reduction": false)"}});
  CHECK(!off.config.mix_order_reduction);
  CHECK(unsplit(off, "op3") == std::pair<std::int64_t, std::int64_t>{0, 0});
  CHECK(fx::fuse_nodes(off.g, off.config).group_count() == 4);
  CHECK(!edited({{R"("cuda_backend": "triton")", R"("cuda_backend": "halide")"}}).config.mix_order_reduction);
  CHECK(edited({{on, R"("triton.mix_order_reduction": 1)"}}).config.mix_order_reduction);
  // Without the option: Inductor's default, on from 2.10.
  CHECK(edited({{on + ",", ""}}).config.mix_order_reduction);
  CHECK(!edited({{on + ",", ""}, {R"("torch_version": "2.11.0+cu130")", R"("torch_version": "2.9.1")"}})
             .config.mix_order_reduction);
}

TEST_CASE("CPU dumps: the C++ backend's groups and settings") {
  std::string text = sample("cpu_mlp_train_1.json");
  REQUIRE(!text.empty());
  auto d = fx::load_inductor_dump(text, "cpu");
  CHECK(d.config.cpp_backend);
  CHECK(d.config.cpp_max_horizontal_fusion_size == 16);
  const auto& reduction = d.g.node(d.g.find_node("op3"));
  CHECK(reduction.loop_sizes == std::vector<std::int64_t>{64});
  CHECK(reduction.reduction_loop_sizes == std::vector<std::int64_t>{256});
  const auto& pointwise = d.g.node(d.g.find_node("op7"));
  CHECK(pointwise.loop_sizes == std::vector<std::int64_t>{64, 256});
  CHECK(pointwise.reduction_loop_sizes.empty());
  // Another CPU backend: the SIMD backend's rules, which give the same groups here.
  auto at = text.find(R"("cpu_backend": "cpp")");
  REQUIRE(at != std::string::npos);
  auto triton = fx::load_inductor_dump(text.replace(at, 20, R"("cpu_backend": "triton")"), "cpu-triton");
  CHECK(!triton.config.cpp_backend);
  groups ours, simd;
  for (const auto& g : fx::fuse_nodes(d.g, d.config).groups) ours.push_back(g.names);
  for (const auto& g : fx::fuse_nodes(triton.g, triton.config).groups) simd.push_back(g.names);
  CHECK(canonical(ours) == canonical(d.fused_groups));
  CHECK(canonical(simd) == canonical(d.fused_groups));
}

TEST_CASE("newer dumps: bad versions, options and members are refused") {
  auto refused = [](const std::string& text, const char* expected) {
    CHECK_THROWS_WITH_AS(fx::load_inductor_dump(text, "bad.json"), doctest::Contains(expected), fx::error);
  };
  refused(foreach_dump(R"("torch_version": "two",)"),
          "top level: field \"torch_version\": \"two\" is not a PyTorch version");
  refused(foreach_dump(R"("config": {"aggressive_fusion": 1},)"),
          "config: option \"aggressive_fusion\" must be true or false");
  refused(foreach_dump(R"("config": {"min_overlap_ratio": -1},)"), "config: option \"min_overlap_ratio\" must be");
  refused(foreach_dump(R"("config": [],)"), "top level: field \"config\" must be an object");
  refused(foreach_dump("", "ExternKernelSchedulerNode"),
          "node a_b: members[1]: a foreach node's members must be pointwise or reduction nodes");
}

TEST_CASE("missing files are reported") {
  CHECK_THROWS_WITH_AS(fx::load_inductor_file("/nonexistent/x.json"), doctest::Contains("cannot open"), fx::error);
}
