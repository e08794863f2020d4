/// @file workloads.hpp
/// The performance matrix's workload list (workloads.txt), parsed: a family,
/// an element type and a shape per line. The same file drives fusedsl's CPU
/// and CUDA benchmarks and the torch peers (peers.py), so that every side
/// measures the same work.
#pragma once
#include <algorithm>  // std::min
#include <cstdint>    // std::int64_t
#include <sstream>    // std::istringstream
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string, std::stoll
#include <vector>     // std::vector

namespace matrix {

/// The column counts a `cols(T)` sweep covers (README.md).
inline constexpr std::int64_t sweep_columns[] = {3, 10, 64, 256, 1024, 4096, 32768, 262144};

/// One cell of the list: a family, an element type and one shape.
struct workload {
  std::string family;               ///< the program (families.hpp, peers.py)
  std::string dtype;                ///< f64, f32, bf16, f16, i64, i32
  std::vector<std::int64_t> shape;  ///< 1 or 2 sizes
  bool quick = false;               ///< in the development subset
  std::string backend;              ///< "" (every backend), "cpu" or "gpu"
  int line = 0;                     ///< where it is in the file, for messages

  /// The shape as the list's cells name it (ROWSxCOLUMNS or N).
  std::string shape_text() const {
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
    return s;
  }
  /// Whether the cell is measured on `target` ("cpu" or "gpu").
  bool runs_on(const std::string& target) const { return backend.empty() || backend == target; }
};

namespace detail {

/// A size as the list spells it: decimal digits or 2^K; throws `what` when malformed.
inline std::int64_t parse_size(const std::string& text, const std::string& what) {
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 12 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  std::int64_t v = 0;
  if (text.rfind("2^", 0) == 0 && digits(text.substr(2)) && std::stoll(text.substr(2)) <= 40)
    v = std::int64_t{1} << std::stoll(text.substr(2));
  else if (digits(text)) v = std::stoll(text);
  if (v <= 0) throw std::runtime_error(what);
  return v;
}

/// The shapes one shape word stands for: N, ROWSxCOLUMNS, or cols(T), which is T
/// elements as T/C rows of C for every C of `sweep_columns` that gives at least one row.
inline std::vector<std::vector<std::int64_t>> expand_shape(const std::string& word, const std::string& where) {
  const std::string what = where + "shape \"" + word +
                           "\": expected N, ROWSxCOLUMNS or cols(TOTAL), positive sizes written as digits or 2^K";
  std::vector<std::vector<std::int64_t>> shapes;
  if (word.rfind("cols(", 0) == 0 && word.back() == ')') {
    const std::int64_t total = parse_size(word.substr(5, word.size() - 6), what);
    for (const std::int64_t c : sweep_columns)
      if (total / c >= 1) shapes.push_back({total / c, c});
    return shapes;
  }
  std::vector<std::int64_t> sizes;
  for (std::size_t at = 0; at <= word.size();) {
    const std::size_t x = std::min(word.find('x', at), word.size());
    sizes.push_back(parse_size(word.substr(at, x - at), what));
    at = x + 1;
  }
  if (sizes.size() > 2) throw std::runtime_error(where + "shape \"" + word + "\": at most two sizes");
  shapes.push_back(sizes);
  return shapes;
}

}  // namespace detail

/// The cells of `text` (the contents of `file`, named in messages). A line is
/// `family dtype shape... [quick] [cpu|gpu]`: one cell per shape. Blank lines and `#`
/// comments are skipped; a malformed line throws, naming the file, the line and what
/// was expected.
inline std::vector<workload> parse_workloads(const std::string& text, const std::string& file) {
  static const char* const dtypes[] = {"f64", "f32", "bf16", "f16", "i64", "i32"};
  std::vector<workload> result;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string where = file + ":" + std::to_string(line) + ": ";
    if (const auto hash = raw.find('#'); hash != std::string::npos) raw.erase(hash);
    std::istringstream words(raw);
    workload w;
    w.line = line;
    if (!(words >> w.family)) continue;  // blank
    if (!(words >> w.dtype))
      throw std::runtime_error(where + "expected `family dtype shape... [quick] [cpu|gpu]`, got \"" + raw + "\"");
    bool known = false;
    for (const char* d : dtypes) known = known || w.dtype == d;
    if (!known) throw std::runtime_error(where + "dtype \"" + w.dtype + "\": expected f64, f32, bf16, f16, i64 or i32");
    std::vector<std::vector<std::int64_t>> shapes;
    for (std::string word; words >> word;) {
      if (word == "quick") w.quick = true;
      else if (word == "cpu" || word == "gpu") w.backend = word;
      else if (w.quick || !w.backend.empty())
        throw std::runtime_error(where + "\"" + word +
                                 "\" after the tags: shapes come first, then `quick`, `cpu` or `gpu`");
      else
        for (auto& s : detail::expand_shape(word, where)) shapes.push_back(std::move(s));
    }
    if (shapes.empty())
      throw std::runtime_error(where + "no shape: expected `family dtype shape... [quick] [cpu|gpu]`");
    for (auto& s : shapes) {
      workload cell = w;
      cell.shape = std::move(s);
      result.push_back(std::move(cell));
    }
  }
  return result;
}

}  // namespace matrix
