/// @file fixed_string.hpp
/// A string usable as a template argument: the compile-time names of placeholders.
#pragma once
#include <algorithm>    // std::copy_n
#include <cstddef>      // std::size_t
#include <string_view>  // std::string_view

namespace fusedsl {

/// `fx::in<"x", float, 2>` keeps "x" in the type through this class.
template <std::size_t N>
struct fixed_string {
  char chars[N]{};

  constexpr fixed_string(const char (&text)[N]) { std::copy_n(text, N, chars); }
  /// The text without its terminating zero.
  constexpr std::string_view view() const { return {chars, N - 1}; }
  constexpr const char* c_str() const { return chars; }

  template <std::size_t M>
  constexpr bool operator==(const fixed_string<M>& other) const {
    return view() == other.view();
  }
};

}  // namespace fusedsl
