/// @file workloads.hpp
/// The performance matrix's workload list (workloads.txt), parsed: a family,
/// an element type and a shape per line. The same file drives fusedsl's CPU
/// and CUDA benchmarks and the torch peers (peers.py), so that every side
/// measures the same work.
#pragma once
#include <cstdint>    // std::int64_t
#include <sstream>    // std::istringstream
#include <stdexcept>  // std::runtime_error
#include <string>     // std::string, std::stoll
#include <vector>     // std::vector

namespace matrix {

/// One line of the list.
struct workload {
  std::string family;               ///< the program (families.hpp, peers.py)
  std::string dtype;                ///< f64, f32, bf16, f16, i64, i32
  std::vector<std::int64_t> shape;  ///< 1 or 2 sizes
  bool quick = false;               ///< in the development subset
  int line = 0;                     ///< where it is in the file, for messages

  /// The shape as the list spells it (ROWSxCOLUMNS or N).
  std::string shape_text() const {
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
    return s;
  }
};

/// The workloads of `text` (the contents of `file`, named in messages). Blank lines and
/// `#` comments are skipped; a malformed line throws, naming the file, the line and what
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
    std::string shape, tag;
    if (!(words >> w.family)) continue;  // blank
    if (!(words >> w.dtype >> shape))
      throw std::runtime_error(where + "expected `family dtype shape [quick]`, got \"" + raw + "\"");
    bool known = false;
    for (const char* d : dtypes) known = known || w.dtype == d;
    if (!known) throw std::runtime_error(where + "dtype \"" + w.dtype + "\": expected f64, f32, bf16, f16, i64 or i32");
    for (std::size_t at = 0; at <= shape.size();) {
      const std::size_t x = std::min(shape.find('x', at), shape.size());
      const std::string part = shape.substr(at, x - at);
      if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12)
        throw std::runtime_error(where + "shape \"" + shape + "\": expected N or ROWSxCOLUMNS, positive integers");
      w.shape.push_back(std::stoll(part));
      if (w.shape.back() == 0) throw std::runtime_error(where + "shape \"" + shape + "\": sizes must be positive");
      at = x + 1;
    }
    if (w.shape.size() > 2) throw std::runtime_error(where + "shape \"" + shape + "\": at most two sizes");
    while (words >> tag) {
      if (tag != "quick") throw std::runtime_error(where + "tag \"" + tag + "\": the only tag is `quick`");
      w.quick = true;
    }
    result.push_back(std::move(w));
  }
  return result;
}

}  // namespace matrix
