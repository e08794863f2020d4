/// @file index_expr.hpp
/// Reading the index formulas of memory deps: canonical variable names, integer
/// evaluation, strides and loop merging. Everything is constexpr so graphs built
/// in constant evaluation get the same analysis as graphs loaded from files.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fusedsl::detail {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

/// True for names of the form d<digits>: the canonical variable spelling.
constexpr bool is_canonical_var(std::string_view id) {
  if (id.size() < 2 || id[0] != 'd') return false;
  for (std::size_t i = 1; i < id.size(); ++i)
    if (!is_digit(id[i])) return false;
  return true;
}

/// Decimal text of a non-negative integer.
constexpr std::string to_decimal(std::int64_t v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  std::uint64_t u = neg ? static_cast<std::uint64_t>(-(v + 1)) + 1 : static_cast<std::uint64_t>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + u % 10));
    u /= 10;
  }
  if (neg) s.insert(s.begin(), '-');
  return s;
}

/// The canonical name of the i-th loop variable: d<i>.
constexpr std::string var_name(std::size_t i) {
  std::string s(1, 'd');
  s += to_decimal(static_cast<std::int64_t>(i));
  return s;
}

/// Canonical text of the affine index offset + sum(strides[i] * d_i), e.g. "4096*d0+d1"
/// (for printing indices that were given as integers).
constexpr std::string affine_text(std::int64_t offset, const std::vector<std::int64_t>& strides) {
  std::string s;
  for (std::size_t i = 0; i < strides.size(); ++i) {
    const std::int64_t st = strides[i];
    if (st == 0) continue;
    if (st < 0) s += '-';
    else if (!s.empty()) s += '+';
    if (st != 1 && st != -1) {
      s += to_decimal(st < 0 ? -st : st);
      s += '*';
    }
    s += var_name(i);
  }
  if (offset != 0 || s.empty()) {
    if (offset > 0 && !s.empty()) s += '+';
    s += to_decimal(offset);
  }
  return s;
}

/// Python floor division and modulo (the index language is sympy's, which floors).
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
constexpr std::int64_t floor_mod(std::int64_t a, std::int64_t b) { return a - floor_div(a, b) * b; }

/// Renames the i-th variable of `vars` to d<i> so that two deps that differ only
/// in how their loop variables are spelled compare equal; identifiers that merely
/// look canonical but are not variables get a '?' prefix so they cannot collide.
constexpr std::string canonical_index(std::string_view text, const std::vector<std::string>& vars) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (is_ident_start(c)) {
      std::size_t j = i;
      while (j < text.size() && is_ident_char(text[j])) ++j;
      std::string_view id = text.substr(i, j - i);
      int pos = -1;
      for (std::size_t k = 0; k < vars.size(); ++k)
        if (vars[k] == id) {
          pos = static_cast<int>(k);
          break;
        }
      if (pos >= 0) {
        out += var_name(static_cast<std::size_t>(pos));
      } else {
        if (is_canonical_var(id)) out += '?';
        out.append(id.begin(), id.end());
      }
      i = j;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      // Spacing is not part of the formula.
      ++i;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

/// Evaluates a canonical index text for given values of d0, d1, ...
/// Supports integers, + - * // / % **, parentheses and the integer functions
/// sympy prints in Inductor indices (FloorDiv, ModularIndexing, Mod, Min, Max, ...).
/// Anything else (size symbols, tmp loads) makes the evaluation fail.
class index_evaluator {
 public:
  constexpr index_evaluator(std::string_view text, const std::vector<std::int64_t>& vals) : s_(text), vals_(vals) {}
  /// The value, with ok() telling whether the text was understood.
  constexpr std::int64_t run() {
    std::int64_t v = expr();
    if (p_ != s_.size()) ok_ = false;
    return ok_ ? v : 0;
  }
  constexpr bool ok() const { return ok_; }

 private:
  constexpr bool eat(char c) {
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  constexpr bool peek2(char a, char b) const { return p_ + 1 < s_.size() && s_[p_] == a && s_[p_ + 1] == b; }
  constexpr std::int64_t expr() {
    std::int64_t v = term();
    while (ok_ && p_ < s_.size()) {
      if (eat('+')) v = add(v, term());
      else if (eat('-')) v = add(v, negate(term()));
      else break;
    }
    return v;
  }
  constexpr std::int64_t term() {
    std::int64_t v = power();
    while (ok_ && p_ < s_.size()) {
      if (peek2('/', '/')) {
        p_ += 2;
        v = checked_div(v, power());
      } else if (peek2('*', '*')) break;
      else if (eat('*')) v = mul(v, power());
      else if (eat('/')) v = checked_div(v, power());
      else if (eat('%')) {
        std::int64_t d = power();
        if (d == 0 || (d == -1 && v == min_)) {
          ok_ = false;
          return 0;
        }
        v = floor_mod(v, d);
      } else break;
    }
    return v;
  }
  constexpr std::int64_t power() {
    std::int64_t b = unary();
    if (ok_ && peek2('*', '*')) {
      p_ += 2;
      std::int64_t e = unary();
      if (e < 0 || e > 62) {
        ok_ = false;
        return 0;
      }
      std::int64_t r = 1;
      for (std::int64_t i = 0; i < e; ++i) r = mul(r, b);
      return r;
    }
    return b;
  }
  constexpr std::int64_t unary() {
    if (eat('-')) return negate(unary());
    if (eat('+')) return unary();
    return primary();
  }
  // Arithmetic that marks the formula unevaluable instead of overflowing (malformed dumps
  // can hold any numbers; found by the loader fuzzer under UBSan).
  static constexpr std::int64_t max_ = 0x7fffffffffffffff, min_ = -max_ - 1;
  constexpr std::int64_t add(std::int64_t a, std::int64_t b) {
    if ((b > 0 && a > max_ - b) || (b < 0 && a < min_ - b)) {
      ok_ = false;
      return 0;
    }
    return a + b;
  }
  constexpr std::int64_t negate(std::int64_t a) {
    if (a == min_) {
      ok_ = false;
      return 0;
    }
    return -a;
  }
  constexpr std::int64_t mul(std::int64_t a, std::int64_t b) {
    if (a == 0 || b == 0) return 0;
    bool overflow = a > 0 ? (b > 0 ? a > max_ / b : b < min_ / a) : (b > 0 ? a < min_ / b : a < max_ / b);
    if (overflow) {
      ok_ = false;
      return 0;
    }
    return a * b;
  }
  constexpr std::int64_t checked_div(std::int64_t a, std::int64_t b) {
    if (b == 0 || (b == -1 && a == min_)) {
      ok_ = false;
      return 0;
    }
    return floor_div(a, b);
  }
  constexpr std::int64_t primary() {
    if (p_ >= s_.size()) {
      ok_ = false;
      return 0;
    }
    char c = s_[p_];
    if (is_digit(c)) {
      std::int64_t v = 0;
      while (p_ < s_.size() && is_digit(s_[p_])) v = add(mul(v, 10), s_[p_++] - '0');
      return v;
    }
    if (eat('(')) {
      std::int64_t v = expr();
      if (!eat(')')) ok_ = false;
      return v;
    }
    if (is_ident_start(c)) {
      std::size_t j = p_;
      while (j < s_.size() && is_ident_char(s_[j])) ++j;
      std::string_view id = s_.substr(p_, j - p_);
      p_ = j;
      if (eat('(')) return call(id);
      if (is_canonical_var(id)) {
        std::size_t k = 0;
        for (std::size_t i = 1; i < id.size(); ++i) k = k * 10 + static_cast<std::size_t>(id[i] - '0');
        if (k < vals_.size()) return vals_[k];
      }
      ok_ = false;
      return 0;
    }
    ok_ = false;
    return 0;
  }
  constexpr std::int64_t call(std::string_view fn) {
    std::vector<std::int64_t> args;
    if (!eat(')')) {
      do {
        args.push_back(expr());
      } while (ok_ && eat(','));
      if (!eat(')')) ok_ = false;
    }
    if (!ok_) return 0;
    auto n = args.size();
    if ((fn == "FloorDiv" || fn == "CleanDiv" || fn == "IntTrueDiv") && n == 2) return checked_div(args[0], args[1]);
    if (fn == "ModularIndexing" && n == 3) {
      std::int64_t q = checked_div(args[0], args[1]);
      if (args[2] == 0 || (args[2] == -1 && q == min_)) {
        ok_ = false;
        return 0;
      }
      return floor_mod(q, args[2]);
    }
    if ((fn == "Mod" || fn == "PythonMod") && n == 2) {
      if (args[1] == 0 || (args[1] == -1 && args[0] == min_)) {
        ok_ = false;
        return 0;
      }
      return floor_mod(args[0], args[1]);
    }
    if ((fn == "Min" || fn == "Max") && n >= 1) {
      std::int64_t r = args[0];
      for (auto a : args) r = (fn == "Min") ? (a < r ? a : r) : (a > r ? a : r);
      return r;
    }
    if (fn == "Abs" && n == 1) return args[0] < 0 ? negate(args[0]) : args[0];
    if (fn == "Identity" && n == 1) return args[0];
    ok_ = false;
    return 0;
  }

  std::string_view s_;
  const std::vector<std::int64_t>& vals_;
  std::size_t p_ = 0;
  bool ok_ = true;
};

/// What the scheduler needs to know about one index formula.
struct index_info {
  bool indirect = false;   ///< reads through a loaded value (tmpN): never matched
  bool evaluable = false;  ///< strides and offset below are meaningful
  bool affine = false;     ///< the formula is exactly offset + sum(strides[i] * d_i)
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;  ///< one per variable (Inductor's stride hints)
};

/// Analyses a canonical index over `nvars` variables.
constexpr index_info analyse_index(std::string_view canon, std::size_t nvars) {
  index_info r;
  for (std::size_t i = 0; i < canon.size(); ++i)
    if (canon.substr(i, 3) == "tmp" && (i == 0 || !is_ident_char(canon[i - 1]))) r.indirect = true;
  std::vector<std::int64_t> vals(nvars, 0);
  index_evaluator base_eval(canon, vals);
  std::int64_t base = base_eval.run();
  if (!base_eval.ok()) return r;
  r.evaluable = true;
  r.offset = base;
  r.strides.assign(nvars, 0);
  for (std::size_t i = 0; i < nvars; ++i) {
    vals.assign(nvars, 0);
    vals[i] = 1;
    index_evaluator e(canon, vals);
    // Modular differences (defined in C++20): huge formulas from malformed dumps must not overflow.
    r.strides[i] = static_cast<std::int64_t>(static_cast<std::uint64_t>(e.run()) - static_cast<std::uint64_t>(base));
    if (!e.ok()) {
      r.evaluable = false;
      return r;
    }
  }
  // Affine: only + - * on integers and variables, and no product of two variables
  // (checked numerically: the value at d_i + d_j is the sum of the two strides).
  bool plain = true;
  for (std::size_t i = 0; i < canon.size(); ++i) {
    char c = canon[i];
    if (c == '/' || c == '%' || (c == '(' && i > 0 && is_ident_char(canon[i - 1]))) plain = false;
    if (c == '*' && i + 1 < canon.size() && canon[i + 1] == '*') plain = false;
  }
  if (plain) {
    for (std::size_t i = 0; i < nvars && plain; ++i)
      for (std::size_t j = i; j < nvars && plain; ++j) {
        vals.assign(nvars, 0);
        vals[i] += 1;
        vals[j] += 1;
        index_evaluator e(canon, vals);
        const std::uint64_t expected = static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(r.strides[i]) +
                                       static_cast<std::uint64_t>(r.strides[j]);
        if (static_cast<std::uint64_t>(e.run()) != expected || !e.ok()) plain = false;
      }
  }
  r.affine = plain;
  return r;
}

/// A loop nest after Inductor's loop simplification: size-1 loops removed and
/// neighbouring loops merged where the outer stride equals inner stride * inner size.
struct merged_loops {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;
  constexpr bool operator==(const merged_loops&) const = default;
};

/// Merges loops given in the order listed (outermost first).
constexpr merged_loops merge_loops(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                                   std::int64_t offset) {
  merged_loops m;
  m.offset = offset;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1) continue;
    std::int64_t st = i < strides.size() ? strides[i] : 0;
    if (!m.sizes.empty() && m.strides.back() == st * sizes[i]) {
      m.sizes.back() *= sizes[i];
      m.strides.back() = st;
    } else {
      m.sizes.push_back(sizes[i]);
      m.strides.push_back(st);
    }
  }
  return m;
}

}  // namespace fusedsl::detail
