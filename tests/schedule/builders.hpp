// Short-hands for hand-built graphs in the scheduler and graph tests.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <fusedsl/graph/graph.hpp>

namespace fx_test {

using fusedsl::dep_spec;
using fusedsl::node_kind;
using fusedsl::node_spec;

// prefix followed by a number ("n" + 3 -> "n3"); GCC 12 warns wrongly on "lit" + std::string&&.
inline std::string name(std::string prefix, long i) {
  prefix += std::to_string(i);
  return prefix;
}

// A contiguous 1-D access of n float32 elements.
constexpr dep_spec flat(const std::string& buf, std::int64_t n) { return fusedsl::memory_dep(buf, "d0", {n}, 4 * n); }

// A node; fields are assigned one by one (nvcc 13 mishandles aggregate-initialized
// structs holding short strings in constant evaluation).
constexpr node_spec make_node(const std::string& name, node_kind kind, std::int64_t numel, std::int64_t rnumel,
                              const std::vector<dep_spec>& reads, const std::vector<dep_spec>& writes,
                              const std::string& device = "cuda:0") {
  node_spec s;
  s.name = name;
  s.kind = kind;
  s.device = device;
  s.numel = numel;
  s.rnumel = rnumel;
  s.reads = reads;
  s.writes = writes;
  return s;
}

// A pointwise node over n elements.
constexpr node_spec pointwise(const std::string& name, const std::vector<dep_spec>& reads,
                              const std::vector<dep_spec>& writes, std::int64_t n,
                              const std::string& device = "cuda:0") {
  return make_node(name, node_kind::pointwise, n, 1, reads, writes, device);
}

// A reduction node: numel outputs, each reducing rnumel elements.
constexpr node_spec reduction(const std::string& name, const std::vector<dep_spec>& reads,
                              const std::vector<dep_spec>& writes, std::int64_t numel, std::int64_t rnumel) {
  return make_node(name, node_kind::reduction, numel, rnumel, reads, writes);
}

// A node of another kind (extern, nop, template).
constexpr node_spec other(const std::string& name, node_kind k, const std::vector<dep_spec>& reads,
                          const std::vector<dep_spec>& writes, std::int64_t n = 1) {
  return make_node(name, k, n, 1, reads, writes);
}

// A row-wise reduction of an rows x cols input into rows values.
constexpr node_spec row_reduce(const std::string& name, const std::string& in, const std::string& out,
                               std::int64_t rows, std::int64_t cols) {
  std::string index = fusedsl::detail::to_decimal(cols);
  index += "*d0 + d1";
  return reduction(name, {fusedsl::memory_dep(in, index, {rows, cols}, 4 * rows * cols)},
                   {fusedsl::memory_dep(out, "d0", {rows}, 4 * rows)}, rows, cols);
}

}  // namespace fx_test
