// fusedsl-fuzz-programs: writes random fusedsl programs as doctest C++ (kernel fuzzing),
// and shrinks a failing one.
//
//   fusedsl-fuzz-programs --seed S --first I --count N --out FILE
//       writes programs I .. I+N-1 of seed S as TEST_CASEs; each runs the program fused on
//       the CPU (prog.run(fx::cpu, ...)) and compares every target with fx::run_reference.
//   fusedsl-fuzz-programs --seed S --first I --shrink
//       regenerates program I of seed S, then removes statements and replaces operations by
//       one of their operands while the program still fails (each candidate compiled with the
//       compiler and flags of this build, then run), and prints the smallest failing program
//       as a ready-to-paste regression TEST_CASE.
//   fusedsl-fuzz-programs --seed S --first I --count N --out FILE --large
//       programs with axes up to 65537 elements (at most 2^18 in all), the tolerances of
//       floating-point outputs widened with the longest axis.
//   fusedsl-fuzz-programs --seed S --first I --count N --out FILE --cuda
//       large programs run on the GPU (prog.run(fx::cuda(), ...) on device copies of the
//       inputs, outputs preset to a value they must overwrite), compared with the oracle on the
//       CPU: a .cu file, linked with tests/cuda's main (skipped without a GPU).
//   fusedsl-fuzz-programs --seed S --first I --count N --out FILE --explain
//       writes the same programs as TEST_CASEs that only print their plans (fx::explain):
//       a refactor that must not change plans diffs this output before and after it
//       (docs/testing.md).
//
// A program: one element type (f32, f64, i32, i64 or bf16), a main shape of rank 1-3 with odd
// sizes, inputs of that shape or broadcastable to it, index leaves (fx::index<k>), random
// numbers (fx::rand, fx::randn), 1-5 statements writing outputs, inouts (updated in place),
// locals (read only after written), kept- or dropped-axis reductions and scans along an
// axis (fx::cumsum, ...), some of them accumulating in double.
#include <algorithm>   // std::max
#include <cstdint>     // std::uint64_t
#include <cstdio>      // std::printf, std::snprintf
#include <cstdlib>     // std::system, std::strtoull
#include <fstream>     // std::ofstream
#include <functional>  // std::function
#include <iostream>    // std::cerr
#include <random>      // std::mt19937_64
#include <set>         // std::set
#include <string>      // std::string
#include <vector>      // std::vector

namespace {

enum class element { f32, f64, i32, i64, bf16 };

const char* cpp_type(element e) {
  switch (e) {
    case element::f32: return "float";
    case element::f64: return "double";
    case element::i32: return "std::int32_t";
    case element::i64: return "std::int64_t";
    case element::bf16: return "fx::bfloat16";
  }
  return "?";
}
bool is_float(element e) { return e == element::f32 || e == element::f64 || e == element::bf16; }

/// An expression tree: a leaf (placeholder or constant), an operation, a reduction or a scan.
struct expr {
  enum class kind { leaf, constant, unary, binary, reduce, scan } k = kind::leaf;
  std::string name;   ///< leaf: placeholder; unary/binary/reduce/scan: operation
  std::string value;  ///< constant: its C++ spelling; gathers: the indices
  int axis = 0;       ///< reduce, scan, gathers: the axis
  bool full = false;  ///< value has the program's main shape (not only broadcastable to it)
  std::vector<expr> args;
  bool in_double = false;  ///< reduce, scan: with fx::accumulate<double>

  /// A reduction's call with its axis and options (`drop`: fx::drop_axes).
  std::string reduction_cpp(bool drop) const {
    return "fx::" + name + "(" + args[0].cpp() + ", fx::axis<" + std::to_string(axis) + ">" +
           (drop ? ", fx::drop_axes" : "") + (in_double ? ", fx::accumulate<double>" : "") + ")";
  }

  std::string cpp() const {
    switch (k) {
      case kind::leaf: return name;
      case kind::constant: return value;
      case kind::unary:
        if (name == "exp" || name == "expm1" || name == "exp2")
          return "fx::" + name + "(fx::tanh(" + args[0].cpp() + "))";
        if (name == "sqrt" || name == "log1p") return "fx::" + name + "(fx::abs(" + args[0].cpp() + "))";
        // Away from 0, where float and double values of the operand could give -Inf and a finite value.
        if (name == "log2" || name == "log10") return "fx::" + name + "(fx::abs(" + args[0].cpp() + ") + 1)";
        if (name == "-" || name == "~") return name + "(" + args[0].cpp() + ")";
        if (name == "take_along_axis" || name == "index_select")
          return "fx::" + name + "(" + args[0].cpp() + ", " + value + ", fx::axis<" + std::to_string(axis) + ">)";
        return "fx::" + name + "(" + args[0].cpp() + ")";
      case kind::binary:
        // Divisors of at least 1 (never 0, also for integers: abs wraps only at the lowest value);
        // atan2 with x > 0, away from its cut.
        if (name == "/" || name == "%")
          return "(" + args[0].cpp() + " " + name + " (fx::abs(" + args[1].cpp() + ") + 1))";
        if (name == "fmod" || name == "atan2")
          return "fx::" + name + "(" + args[0].cpp() + ", fx::abs(" + args[1].cpp() + ") + 1)";
        if (name == "fma") return "fx::fma(" + args[0].cpp() + ", " + args[1].cpp() + ", " + args[0].cpp() + ")";
        if (name == "+" || name == "-" || name == "*" || name == "&" || name == "|" || name == "^" || name == "<<" ||
            name == ">>")
          return "(" + args[0].cpp() + " " + name + " " + args[1].cpp() + ")";
        return "fx::" + name + "(" + args[0].cpp() + ", " + args[1].cpp() + ")";
      case kind::reduce: return reduction_cpp(false);
      case kind::scan: {
        // A floating cumprod of factors in [0.5, 1.5]: no overflow, where the kernels' float
        // and the oracle's double would reach infinity at different elements.
        const bool factors = name == "cumprod" && value == "float";
        const std::string operand = factors ? "fx::tanh(" + args[0].cpp() + ") * 0.5 + 1.0" : args[0].cpp();
        return "fx::" + name + "(" + operand + ", fx::axis<" + std::to_string(axis) + ">" +
               (in_double ? ", fx::accumulate<double>" : "") + ")";
      }
    }
    return "?";
  }
  void leaves(std::set<std::string>& out) const {
    if (k == kind::leaf) out.insert(name);
    for (const auto& a : args) a.leaves(out);
  }
  /// True when cpp() is a C++ number, not a DSL expression: numbers under C++ operators.
  bool plain_number() const {
    if (k == kind::constant) return true;
    const bool cpp_operator = (k == kind::unary && (name == "-" || name == "~")) ||
                              (k == kind::binary && (name == "+" || name == "-" || name == "*"));
    for (const auto& a : args) {
      if (!a.plain_number()) return false;
    }
    return cpp_operator;
  }
  int size() const {
    int n = k == kind::leaf || k == kind::constant ? 0 : 1;
    for (const auto& a : args) n += a.size();
    return n;
  }
};

/// One statement: target op= value; `reduced` targets take a bare reduction (with drop_axes when `dropped`).
struct statement {
  std::string target, op = "=";
  expr value;
};

enum class role { input, output, inout, local, reduced };

struct placeholder {
  std::string name;
  role r = role::input;
  std::vector<std::int64_t> shape;  ///< inputs: broadcastable to the main shape; reduced: the reduction's shape
  int rank = 0;
};

struct program {
  std::uint64_t seed = 0;
  int index = 0;
  element type = element::f32;
  std::vector<std::int64_t> shape;
  std::vector<placeholder> vars;
  std::vector<statement> statements;

  const placeholder* find(const std::string& n) const {
    for (const auto& v : vars)
      if (v.name == n) return &v;
    return nullptr;
  }
};

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "{";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "}";
}

/// The element type of program `index`: runs of 2 programs share one, so that a file of
/// generated programs instantiates each type's math a few times only (compile time) and CI's
/// 10 programs cover every type.
element type_of(int index) {
  static const element types[] = {element::f32, element::f64, element::i32, element::bf16, element::i64, element::f32};
  return types[(index / 2) % 6];
}

class generator {
 public:
  /// Program `index` of `seed`; all programs of one index share an element type (see type_of).
  /// With `large`, axes run up to 65537 elements (at most 2^18 in all): rows and columns long
  /// enough for the GPU's row, split-row and column kernels in several chunks.
  generator(std::uint64_t seed, int index, bool large = false)
      : rng_(seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(index) * 7919 + 1), large_(large) {
    p_.seed = seed;
    p_.index = index;
  }

  program run() {
    p_.type = type_of(p_.index);
    int rank = 1 + pick(3);
    if (large_) {
      static const std::int64_t sizes[] = {1, 3, 7, 33, 65, 257, 1025, 4099, 16411, 65537};
      std::int64_t elements = 1;
      for (int d = 0; d < rank; ++d) {
        int i = pick(10);
        while (elements * sizes[i] > (std::int64_t{1} << 18)) i = pick(i);  // smaller until it fits (1 does)
        p_.shape.push_back(sizes[i]);
        elements *= sizes[i];
      }
    } else {
      static const std::int64_t sizes[] = {1, 2, 3, 5, 7, 13, 17, 33, 65};
      for (int d = 0; d < rank; ++d) p_.shape.push_back(sizes[pick(rank == 1 ? 9 : rank == 2 ? 8 : 6)]);
    }
    int inputs = 1 + pick(3);
    for (int i = 0; i < inputs; ++i) {
      placeholder ph{"x" + std::to_string(i), role::input, p_.shape, rank};
      if (i > 0 && chance(40))  // broadcast: some axes of size 1
        for (auto& s : ph.shape)
          if (chance(50)) s = 1;
      p_.vars.push_back(ph);
      readable_.push_back(ph.name);
    }
    if (chance(40)) {
      placeholder ph{"z0", role::inout, p_.shape, rank};
      p_.vars.push_back(ph);
      readable_.push_back(ph.name);
    }
    // 1 to 5 statements, mostly few: each statement costs about a second of compile time.
    static const int statement_counts[] = {1, 1, 1, 2, 2, 2, 3, 3, 4, 5};
    int statements = statement_counts[pick(10)];
    for (int s = 0; s < statements; ++s) add_statement(s, statements);
    return p_;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
  bool chance(int percent) { return pick(100) < percent; }

  std::string constant() {
    if (is_float(p_.type)) {
      static const char* f[] = {"0.5", "2.0", "-1.5", "0.25", "3.0"};
      std::string c = f[pick(5)];
      return p_.type == element::f64 ? c : c + "f";
    }
    static const char* i[] = {"2", "-3", "7", "1", "5"};
    return i[pick(5)];
  }

  // `fx::index<k>` along an axis of the main shape (k < 0 counts from the end): int64, which
  // promotes to the program's type where a tensor of it meets the index, or makes an integer
  // program's value i64 (stored into its i32 targets). In f64 programs it is cast first: an
  // index-only subexpression under a function would otherwise compute in f32 (the dtype of
  // `exp(int64)`), far outside the f64 tolerance.
  std::string index_leaf() {
    const int rank = static_cast<int>(p_.shape.size());
    const std::string leaf = "fx::index<" + std::to_string(pick(2 * rank) - rank) + ">";
    return p_.type == element::f64 ? "fx::cast<double>(" + leaf + ")" : leaf;
  }

  // fx::rand or fx::randn (f32, drawn at each element's position: the kernels' values are
  // the oracle's exactly), cast to the program's type; integers draw in [0, 8).
  std::string random_leaf() {
    const std::string stream = std::to_string(pick(100)) + ", " + std::to_string(pick(1000));
    if (!is_float(p_.type)) return "fx::cast<" + std::string(cpp_type(p_.type)) + ">(fx::rand(" + stream + ") * 8)";
    return "fx::cast<" + std::string(cpp_type(p_.type)) + ">(fx::" + (chance(50) ? "rand(" : "randn(") + stream + "))";
  }

  // A gather of x0 (an input of the main shape) along one of its axes, at indices in
  // range by construction: positions along the axis (and, for take_along_axis, along
  // axis 0), scaled and offset modulo the axis's size. Its value varies along every axis
  // although its shape has size 1 along the gathered one (the index leaves'), so it is
  // not `full`.
  expr gather() {
    const int rank = static_cast<int>(p_.shape.size()), a = pick(rank);
    const std::string n = std::to_string(p_.shape[static_cast<std::size_t>(a)]);
    const std::string scale = std::to_string(1 + pick(5)), offset = std::to_string(pick(7));
    const bool select = chance(50);
    // index_select's indices are one-dimensional, along the axis; take_along_axis's have x0's rank.
    const std::string positions = select ? "fx::index<0>"
                                         : "fx::index<" + std::to_string(a) + "> + fx::index<" + std::to_string(-rank) +
                                               "> * " + std::to_string(pick(3));
    const std::string indices = "(" + positions + " * " + scale + " + " + offset + ") % " + n;
    return expr{expr::kind::unary,
                select ? "index_select" : "take_along_axis",
                indices,
                a,
                false,
                {expr{expr::kind::leaf, "x0", "", 0, true, {}}}};
  }

  // A random expression over readable placeholders (and index and random leaves); with
  // need_full its value has the main shape.
  expr make(int depth, bool need_full) {
    if (depth == 0 || chance(25)) {
      if (!need_full && chance(20)) return expr{expr::kind::constant, "", constant(), 0, false, {}};
      if (!need_full && chance(15)) return expr{expr::kind::leaf, index_leaf(), "", 0, false, {}};
      if (!need_full && chance(8)) return expr{expr::kind::leaf, random_leaf(), "", 0, false, {}};
      if (!need_full && chance(10)) return gather();
      std::vector<std::string> candidates;
      for (const auto& n : readable_) {
        const placeholder* ph = p_.find(n);
        if (!need_full || ph->shape == p_.shape) candidates.push_back(n);
      }
      const std::string& n = candidates[static_cast<std::size_t>(pick(static_cast<int>(candidates.size())))];
      return expr{expr::kind::leaf, n, "", 0, p_.find(n)->shape == p_.shape, {}};
    }
    int roll = pick(100);
    if (roll < 30) {
      static const char* fu[] = {"-",   "abs",  "relu",  "exp",  "expm1", "exp2", "tanh", "sigmoid", "sin",
                                 "cos", "sqrt", "log1p", "log2", "log10", "erf",  "erfc", "gelu",    "silu"};
      static const char* iu[] = {"-", "abs", "relu", "~", "sign", "floor"};
      std::string op = is_float(p_.type) ? fu[pick(18)] : iu[pick(6)];
      expr a = make(depth - 1, need_full);
      return expr{expr::kind::unary, op, "", 0, a.full, {a}};
    }
    if (roll < 80 || p_.shape.empty()) {
      static const char* fb[] = {"+", "-", "*", "/", "maximum", "minimum", "atan2", "hypot", "fmod", "%", "fma"};
      static const char* ib[] = {"+", "-", "*", "maximum", "minimum", "&", "|", "^", "<<", ">>", "%", "fmod", "fma"};
      std::string op = is_float(p_.type) ? fb[pick(11)] : ib[pick(13)];
      // Floating remainders jump by the divisor where the quotient crosses an integer, which
      // the kernels' float and the oracle's double reach at different dividends; with large
      // axes dividends grow (index leaves, long sums), so those programs take another operation.
      if (large_ && is_float(p_.type) && (op == "fmod" || op == "%")) op = fb[pick(8)];
      bool left_full = need_full && chance(50);
      expr a = make(depth - 1, left_full), b = make(depth - 1, need_full && !left_full);
      // Two numbers under a C++ bitwise operator are C++ arithmetic, not the DSL's (`2 << -3`
      // does not compile): take a DSL function instead.
      const bool bitwise = op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>";
      if (bitwise && a.plain_number() && b.plain_number()) op = "maximum";
      return expr{expr::kind::binary, op, "", 0, a.full || b.full, {a, b}};
    }
    if (roll < 90) {  // a scan along an axis of the main shape (negative: from the end)
      static const char* fs[] = {"cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"};
      static const char* is[] = {"cumsum", "cumprod", "cummax", "cummin"};
      const int rank = static_cast<int>(p_.shape.size());
      expr c{expr::kind::scan,
             is_float(p_.type) ? fs[pick(5)] : is[pick(4)],
             is_float(p_.type) ? "float" : "",
             pick(2 * rank) - rank,
             true,
             {make(depth - 1, true)}};
      c.in_double = c.name != "cummax" && c.name != "cummin" && accumulates_in_double(c.name);
      return c;
    }
    // A reduction with kept axes (broadcasts back), combined with a full operand when needed.
    static const char* fr[] = {"sum", "mean", "max", "min", "logsumexp", "var", "std", "prod"};
    static const char* ir[] = {"sum", "max", "min", "prod"};
    std::string op = is_float(p_.type) ? fr[pick(8)] : ir[pick(4)];
    expr r{expr::kind::reduce, op, "", pick(static_cast<int>(p_.shape.size())), false, {make(depth - 1, true)}};
    r.in_double = accumulates_in_double(op);
    if (!need_full) return r;
    expr other = make(depth - 1, true);
    return expr{expr::kind::binary, chance(50) ? "-" : "*", "", 0, true, {other, r}};
  }

  void add_statement(int s, int total) {
    int roll = pick(100);
    statement st;
    std::string fresh;
    if (roll < 20 && !p_.shape.empty() && s + 1 < total) {  // a local, read by later statements
      fresh = "t" + std::to_string(s);
      p_.vars.push_back({fresh, role::local, p_.shape, static_cast<int>(p_.shape.size())});
    } else if (roll < 35 && !p_.shape.empty()) {  // a bare reduction into its own target
      static const char* fr[] = {"sum", "mean", "max", "min", "logsumexp", "var", "std"};
      static const char* ir[] = {"sum", "max", "min", "prod"};
      int axis = pick(static_cast<int>(p_.shape.size()));
      bool drop = p_.shape.size() > 1 && chance(50);
      std::vector<std::int64_t> shape;
      for (std::size_t d = 0; d < p_.shape.size(); ++d)
        if (static_cast<int>(d) != axis) shape.push_back(p_.shape[d]);
        else if (!drop) shape.push_back(1);
      placeholder ph{"r" + std::to_string(s), role::reduced, shape, static_cast<int>(shape.size())};
      p_.vars.push_back(ph);
      st.target = ph.name;
      st.value =
          expr{expr::kind::reduce, is_float(p_.type) ? fr[pick(7)] : ir[pick(4)], "", axis, false, {make(2, true)}};
      st.value.in_double = accumulates_in_double(st.value.name);
      if (drop) st.value.value = "drop";
      p_.statements.push_back(st);
      return;
    } else if (roll < 55 && has("z0")) {  // update the inout in place
      st.target = "z0";
      if (chance(40)) st.op = is_float(p_.type) ? (chance(50) ? "+=" : "*=") : "+=";
    } else {
      fresh = "y" + std::to_string(s);
      p_.vars.push_back({fresh, role::output, p_.shape, static_cast<int>(p_.shape.size())});
    }
    if (st.target.empty()) st.target = fresh;
    st.value = make(1 + pick(3), true);
    p_.statements.push_back(st);
    if (!fresh.empty()) readable_.push_back(fresh);  // sequential semantics: later statements see it
  }
  bool has(const std::string& n) const { return p_.find(n) != nullptr; }
  /// Whether a reduction `op` accumulates in double (fx::accumulate<double>): a quarter of
  /// the floating-point reductions that add up.
  bool accumulates_in_double(const std::string& op) {
    return is_float(p_.type) && op != "max" && op != "min" && chance(25);
  }

  std::mt19937_64 rng_;
  bool large_ = false;
  program p_;
  std::vector<std::string> readable_;
};

/// The comparison's tolerance (relative, absolute) for a program's outputs: floating-point
/// values computed in float (bf16 programs too) or double against the oracle's double,
/// whose rounding errors grow with the elements a reduction or scan adds up (the absolute
/// part grows by its base per 65 elements of the longest axis); integers exactly.
std::string tolerance_text(const program& p) {
  std::int64_t longest = 1;
  for (std::int64_t s : p.shape) longest = std::max(longest, s);
  const double growth = std::max(0.0, static_cast<double>(longest) / 65.0 - 1);
  auto text = [&](const char* tol, double accumulation) {
    if (growth == 0) return std::string("(tolerance{") + tol + ", " + tol + "})";
    char atol[32];
    std::snprintf(atol, sizeof atol, "%.3g", std::stod(tol) + accumulation * growth);
    return std::string("(tolerance{") + tol + ", " + atol + "})";
  };
  switch (p.type) {
    case element::f64: return text("1e-9", 1e-9);
    case element::f32: return text("2e-4", 2e-4);
    case element::bf16: return text("6e-2", 2e-4);  // computed in float, rounded to bf16 once
    default: return "(tolerance{0, 0})";
  }
}

/// Where emit's TEST_CASE runs the fused program (the oracle always runs on the CPU).
enum class backend { cpu, cuda };

/// The program as a doctest TEST_CASE named `title`; with `explain_only`, the case prints
/// the program's plan instead of running it. On CUDA every tensor the program touches has a
/// device copy `d_NAME`, read back to the CPU for the comparisons.
std::string emit(const program& p, const std::string& title, bool explain_only = false, backend on = backend::cpu) {
  std::set<std::string> used;
  for (const auto& s : p.statements) {
    used.insert(s.target);
    s.value.leaves(used);
  }
  const std::string T = cpp_type(p.type);
  std::string o = "TEST_CASE(\"" + title + "\") {\n";
  auto role_name = [](role r) {
    switch (r) {
      case role::input: return "in";
      case role::output:
      case role::reduced: return "out";
      case role::inout: return "inout";
      case role::local: return "local";
    }
    return "?";
  };
  for (const auto& v : p.vars)
    if (used.count(v.name))
      o += "  constexpr fx::" + std::string(role_name(v.r)) + "<\"" + v.name + "\", " + T + ", " +
           std::to_string(v.rank) + "> " + v.name + ";\n";
  o += "  constexpr fx::program prog{\n";
  for (const auto& s : p.statements) {
    std::string value = s.value.cpp();
    if (s.value.k == expr::kind::reduce && s.value.value == "drop") value = s.value.reduction_cpp(true);
    o += "      " + s.target + " " + s.op + " " + value + ",\n";
  }
  o += "  };\n";
  if (explain_only) return o + "  std::cout << \"== " + title + "\\n\" << fx::explain(prog) << \"\\n\";\n}\n";
  std::string bindings_run, bindings_ref;
  int seed_offset = 0;
  const char* range = is_float(p.type) ? "-2.0, 2.0" : "-20, 20";
  const bool cuda = on == backend::cuda;
  // The tensor the fused run writes for placeholder `n` (a device copy on CUDA), and its values on the CPU.
  auto run_tensor = [&](const std::string& n) { return (cuda ? "d_" : "a_") + n; };
  auto on_cpu = [&](const std::string& n) {
    return run_tensor(n) + (cuda ? ".to(fx::device::cpu).view()" : ".view()");
  };
  for (const auto& v : p.vars) {
    if (!used.count(v.name) || v.r == role::local) continue;
    const std::string shape = shape_text(v.shape);
    const std::string tensor_seed = std::to_string(p.seed * 1000 + static_cast<std::uint64_t>(p.index) * 10 +
                                                   static_cast<std::uint64_t>(seed_offset++));
    if (v.r == role::input) {
      o += "  const auto a_" + v.name + " = random_tensor<" + T + ">(" + shape + ", " + tensor_seed + ", " + range +
           ");\n";
      o += "  const auto before_" + v.name + " = a_" + v.name + ".clone();\n";
      bindings_ref += ", " + v.name + "(a_" + v.name + ")";
    } else if (v.r == role::inout) {
      o += "  auto a_" + v.name + " = random_tensor<" + T + ">(" + shape + ", " + tensor_seed + ", " + range + ");\n";
      o += "  auto b_" + v.name + " = a_" + v.name + ".clone();\n";
      bindings_ref += ", " + v.name + "(b_" + v.name + ")";
    } else {
      o += "  fx::tensor<" + T + "> " + (cuda ? "" : "a_" + v.name + "(" + shape + "), ") + "b_" + v.name + "(" +
           shape + ");\n";
      bindings_ref += ", " + v.name + "(b_" + v.name + ")";
    }
    if (cuda) {
      if (v.r == role::input || v.r == role::inout)
        o += "  auto d_" + v.name + " = a_" + v.name + ".to(fx::device::cuda);\n";
      else  // a value the kernels must overwrite
        o += "  auto d_" + v.name + " = fx::tensor<" + T + ">::full(" + shape + ", " + T + "(77), fx::device::cuda);\n";
    }
    bindings_run += ", " + v.name + "(" + run_tensor(v.name) + ")";
  }
  o += std::string("  prog.run(") + (cuda ? "fx::cuda()" : "fx::cpu") + bindings_run + ");\n";
  o += "  fx::run_reference(prog" + bindings_ref + ");\n";
  for (const auto& v : p.vars) {
    if (!used.count(v.name) || v.r == role::local) continue;
    if (v.r == role::input)
      o += "  FUSEDSL_CHECK_CLOSE(" + on_cpu(v.name) + ", before_" + v.name +
           ".view(), (tolerance{0, 0}));  // unchanged\n";
    else o += "  FUSEDSL_CHECK_CLOSE(" + on_cpu(v.name) + ", b_" + v.name + ".view(), " + tolerance_text(p) + ");\n";
  }
  o += "}\n";
  return o;
}

const char* file_header =
    "// Generated by fusedsl-fuzz-programs (tests/fuzz/generate_programs.cpp); do not edit.\n"
    "#include <cstdint>\n"
    "#include <iostream>\n\n"
    "#include <doctest/doctest.h>\n\n"
    "#include <fusedsl/fusedsl.hpp>\n"
    "#include <support/compare.hpp>\n"
    "#include <support/random.hpp>\n\n"
    "namespace fx = fusedsl;\n"
    "using fx::testing::random_tensor;\n"
    "using fx::testing::tolerance;\n\n";

std::string title_of(const program& p, bool large) {
  return std::string(large ? "large " : "") + "fuzz program " + std::to_string(p.index) + " of seed " +
         std::to_string(p.seed);
}

// ------------------------------------------------------------------ shrinking

#ifndef FUSEDSL_FUZZ_COMPILE
#  define FUSEDSL_FUZZ_COMPILE ""
#endif
// nvcc with the flags of the CUDA fuzz files (empty where the build has no CUDA compiler).
#ifndef FUSEDSL_FUZZ_CUDA_COMPILE
#  define FUSEDSL_FUZZ_CUDA_COMPILE ""
#endif

/// True when the program, compiled alone with this build's compiler and flags (nvcc's on CUDA), fails.
bool still_fails(const program& p, const std::string& dir, backend on) {
  const std::string src = dir + (on == backend::cuda ? "/shrink_candidate.cu" : "/shrink_candidate.cpp"),
                    exe = dir + "/shrink_candidate";
  {
    std::ofstream f(src);
    f << "#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN\n" << file_header << emit(p, "candidate", false, on);
  }
  const std::string compile = std::string(on == backend::cuda ? FUSEDSL_FUZZ_CUDA_COMPILE : FUSEDSL_FUZZ_COMPILE) +
                              " " + src + " -o " + exe + " > " + dir + "/shrink_compile.log 2>&1";
  if (std::system(compile.c_str()) != 0) return false;  // a candidate that does not compile is not a smaller failure
  return std::system((exe + " > " + dir + "/shrink_run.log 2>&1").c_str()) != 0;
}

/// Every program one step smaller: a statement removed, or an operation replaced by an operand.
std::vector<program> smaller(const program& p) {
  std::vector<program> out;
  for (std::size_t i = 0; i < p.statements.size() && p.statements.size() > 1; ++i) {
    program q = p;
    q.statements.erase(q.statements.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(q);
  }
  for (std::size_t i = 0; i < p.statements.size(); ++i) {
    // Visit every operation node of statement i by its position in pre-order.
    int count = p.statements[i].value.size();
    for (int target = 0; target < count; ++target)
      for (int arg = 0; arg < 2; ++arg) {
        program q = p;
        int seen = 0;
        bool done = false;
        std::function<void(expr&, bool)> walk = [&](expr& e, bool top) {
          if (done || e.k == expr::kind::leaf || e.k == expr::kind::constant) return;
          if (seen++ == target) {
            if (static_cast<std::size_t>(arg) < e.args.size() && !(top && e.k == expr::kind::reduce)) {
              expr keep = e.args[static_cast<std::size_t>(arg)];
              if (!e.full || keep.full) e = keep;  // keep the statement's shape
            }
            done = true;
            return;
          }
          for (auto& a : e.args) walk(a, false);
        };
        walk(q.statements[i].value, true);
        if (q.statements[i].value.cpp() != p.statements[i].value.cpp()) out.push_back(q);
      }
  }
  return out;
}

int shrink(program p, const std::string& dir, backend on) {
  if (on == backend::cuda && std::string(FUSEDSL_FUZZ_CUDA_COMPILE).empty()) {
    std::cerr << "fusedsl-fuzz-programs: --cuda --shrink needs a build configured with a CUDA compiler\n";
    return 2;
  }
  if (!still_fails(p, dir, on)) {
    std::cerr << "program " << p.index << " of seed " << p.seed << " passes: nothing to shrink\n";
    return 1;
  }
  for (bool progress = true; progress;) {
    progress = false;
    for (const program& q : smaller(p))
      if (still_fails(q, dir, on)) {
        p = q;
        progress = true;
        break;
      }
  }
  std::printf("// Regression test (shrunk from program %d of seed %llu by fusedsl-fuzz-programs --shrink):\n%s",
              p.index, static_cast<unsigned long long>(p.seed),
              emit(p, "regression: fuzz program " + std::to_string(p.index) + " of seed " + std::to_string(p.seed),
                   false, on)
                  .c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  int first = 0, count = 1;
  std::string out, dir = ".";
  bool do_shrink = false, explain_only = false;
  backend on = backend::cpu;
  bool large = false;  // --large, and --cuda: axes up to 65537 (generator)
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "fusedsl-fuzz-programs: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seed") seed = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--first") first = std::stoi(next());
    else if (a == "--count") count = std::stoi(next());
    else if (a == "--out") out = next();
    else if (a == "--dir") dir = next();
    else if (a == "--shrink") do_shrink = true;
    else if (a == "--explain") explain_only = true;
    else if (a == "--cuda") on = backend::cuda, large = true;
    else if (a == "--large") large = true;
    else {
      std::cerr
          << "fusedsl-fuzz-programs: unknown argument " << a
          << "\nusage: fusedsl-fuzz-programs --seed S --first I [--cuda] [--large] (--count N --out FILE [--explain] | "
             "--shrink [--dir D])\n";
      return 2;
    }
  }
  if (do_shrink) return shrink(generator(seed, first, large).run(), dir, on);
  if (out.empty()) {
    std::cerr << "fusedsl-fuzz-programs: --out FILE (or --shrink) is required\n";
    return 2;
  }
  std::string text = file_header;
  for (int i = first; i < first + count; ++i) {
    const program p = generator(seed, i, large).run();
    text += "// If this fails: fusedsl-fuzz-programs --seed " + std::to_string(seed) + " --first " + std::to_string(i) +
            (on == backend::cuda ? " --cuda"
             : large             ? " --large"
                                 : "") +
            " --shrink\n" + emit(p, title_of(p, large), explain_only, on) + "\n";
  }
  std::ofstream f(out);
  f << text;
  return f ? 0 : 1;
}
