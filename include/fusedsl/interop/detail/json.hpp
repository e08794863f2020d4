/// @file json.hpp
/// A small strict JSON reader (RFC 8259) for dump files: a DOM of values with
/// line/column positions so error messages can point at the problem.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fusedsl/core/error.hpp>

namespace fusedsl::detail::json {

/// A JSON value. Numbers keep their text so integers too large for double stay exact.
struct value {
  enum class type : unsigned char { null, boolean, number, string, array, object };
  type kind = type::null;
  bool b = false;
  std::string text;                                   ///< number text or string contents
  std::vector<value> items;                           ///< array elements
  std::vector<std::pair<std::string, value>> fields;  ///< object members, in file order
  int line = 0, column = 0;                           ///< where the value starts

  /// Member `key` of an object, or nullptr.
  const value* find(std::string_view key) const {
    for (const auto& f : fields)
      if (f.first == key) return &f.second;
    return nullptr;
  }
  bool is_array() const { return kind == type::array; }
  bool is_object() const { return kind == type::object; }
  bool is_string() const { return kind == type::string; }
  bool is_number() const { return kind == type::number; }
  bool is_bool() const { return kind == type::boolean; }
};

/// Parses `text`; throws fusedsl::error("<source>: JSON: <what> at line L, column C").
class parser {
 public:
  parser(std::string_view text, std::string source) : s_(text), source_(std::move(source)) {}

  value parse() {
    ws();
    value v = parse_value(0);
    ws();
    if (p_ != s_.size()) fail("unexpected text after the top-level value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw error(source_ + ": JSON: " + what + " at line " + std::to_string(line_) + ", column " +
                std::to_string(col()));
  }
  int col() const { return static_cast<int>(p_ - line_start_) + 1; }
  void ws() {
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '\n') {
        ++line_;
        line_start_ = ++p_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++p_;
      } else {
        break;
      }
    }
  }
  bool literal(std::string_view word) {
    if (s_.substr(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }
  value parse_value(int depth) {
    if (depth > 256) fail("nesting too deep");
    if (p_ >= s_.size()) fail("unexpected end of input (truncated file?)");
    value v;
    v.line = line_;
    v.column = col();
    char c = s_[p_];
    if (c == '{') {
      v.kind = value::type::object;
      ++p_;
      ws();
      if (p_ < s_.size() && s_[p_] == '}') {
        ++p_;
        return v;
      }
      for (;;) {
        ws();
        if (p_ >= s_.size()) fail("unexpected end of input in an object (truncated file?)");
        if (s_[p_] != '"') fail("expected a member name in quotes");
        std::string key = parse_string();
        ws();
        if (p_ >= s_.size()) fail("unexpected end of input in an object (truncated file?)");
        if (s_[p_] != ':') fail("expected ':' after member name \"" + key + "\"");
        ++p_;
        ws();
        value item = parse_value(depth + 1);
        v.fields.emplace_back(std::move(key), std::move(item));
        ws();
        if (p_ >= s_.size()) fail("unexpected end of input in an object (truncated file?)");
        if (s_[p_] == ',') {
          ++p_;
          continue;
        }
        if (s_[p_] == '}') {
          ++p_;
          return v;
        }
        fail("expected ',' or '}' in an object");
      }
    }
    if (c == '[') {
      v.kind = value::type::array;
      ++p_;
      ws();
      if (p_ < s_.size() && s_[p_] == ']') {
        ++p_;
        return v;
      }
      for (;;) {
        ws();
        v.items.push_back(parse_value(depth + 1));
        ws();
        if (p_ >= s_.size()) fail("unexpected end of input in an array (truncated file?)");
        if (s_[p_] == ',') {
          ++p_;
          continue;
        }
        if (s_[p_] == ']') {
          ++p_;
          return v;
        }
        fail("expected ',' or ']' in an array");
      }
    }
    if (c == '"') {
      v.kind = value::type::string;
      v.text = parse_string();
      return v;
    }
    if (literal("true")) {
      v.kind = value::type::boolean;
      v.b = true;
      return v;
    }
    if (literal("false")) {
      v.kind = value::type::boolean;
      return v;
    }
    if (literal("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = value::type::number;
      std::size_t start = p_;
      if (s_[p_] == '-') ++p_;
      auto digits = [&] {
        std::size_t d = p_;
        while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') ++p_;
        return p_ - d;
      };
      if (digits() == 0) fail("bad number");
      if (p_ < s_.size() && s_[p_] == '.') {
        ++p_;
        if (digits() == 0) fail("bad number");
      }
      if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
        ++p_;
        if (p_ < s_.size() && (s_[p_] == '+' || s_[p_] == '-')) ++p_;
        if (digits() == 0) fail("bad number");
      }
      v.text = std::string(s_.substr(start, p_ - start));
      return v;
    }
    fail(std::string("unexpected character '") + c + "'");
  }
  static void put_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::uint32_t hex4() {
    if (p_ + 4 > s_.size()) fail("truncated \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[p_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }
  std::string parse_string() {
    ++p_;  // opening quote
    std::string out;
    for (;;) {
      if (p_ >= s_.size()) fail("unterminated string (truncated file?)");
      char c = s_[p_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p_ >= s_.size()) fail("unterminated string (truncated file?)");
      char e = s_[p_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(p_, 2) == "\\u") {
            p_ += 2;
            std::uint32_t lo = hex4();
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          put_utf8(out, cp);
          break;
        }
        default: fail(std::string("bad escape \\") + e);
      }
    }
  }

  std::string_view s_;
  std::string source_;
  std::size_t p_ = 0, line_start_ = 0;
  int line_ = 1;
};

/// Parses a whole JSON document.
inline value parse(std::string_view text, const std::string& source) { return parser(text, source).parse(); }

}  // namespace fusedsl::detail::json
