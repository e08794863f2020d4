/// @file program.hpp
/// A program: statements executed in order, with sequential semantics.
#pragma once

#include <fusedsl/core/hana.hpp>          // hana: statements, leaf lists
#include <fusedsl/expr/traverse.hpp>      // subexpressions, unique_types
#include <fusedsl/program/placeholder.hpp>  // placeholder, param, access
#include <fusedsl/program/statement.hpp>  // assign
#include <fusedsl/program/target.hpp>     // executor

namespace fusedsl {

namespace detail {
template <class T> inline constexpr bool is_statement = false;
template <class Target, class Value> inline constexpr bool is_statement<assign<Target, Value>> = true;

template <class T> inline constexpr bool is_named_leaf = false;
template <fixed_string N, class T, int R, role A> inline constexpr bool is_named_leaf<placeholder<N, T, R, A>> = true;
template <fixed_string N, class T> inline constexpr bool is_named_leaf<param<N, T>> = true;

template <class T> inline constexpr bool is_local = false;
template <fixed_string N, class T, int R> inline constexpr bool is_local<placeholder<N, T, R, role::local>> = true;

/// Every named leaf (placeholders and params) a statement mentions, target first.
template <class S>
constexpr auto named_leaves_of_statement() {
  return hana::prepend(hana::filter(subexpressions<typename S::value_type>(),
                                    [](auto t) { return hana::bool_c<is_named_leaf<typename decltype(t)::type>>; }),
                       hana::type_c<typename S::target_type>);
}

/// Position of the first statement whose value reads named leaf `Name` (or
/// `Count` if none), and of the first statement that assigns it.
template <fixed_string Name, class... Statements>
struct first_uses {
  template <class S>
  static constexpr bool reads() {
    return hana::any_of(subexpressions<typename S::value_type>(), [](auto t) {
      using L = typename decltype(t)::type;
      if constexpr (is_named_leaf<L>) return hana::bool_c<L::name == Name>;
      else return hana::false_c;
    });
  }
  static constexpr std::size_t first_read = [] {
    constexpr bool flags[] = {reads<Statements>()..., false};
    std::size_t i = 0;
    while (i < sizeof...(Statements) && !flags[i]) ++i;
    return i;
  }();
  /// Position of the last statement that reads `Name`, or -1.
  static constexpr std::ptrdiff_t last_read = [] {
    constexpr bool flags[] = {reads<Statements>()..., false};
    std::ptrdiff_t i = sizeof...(Statements) - 1;
    while (i >= 0 && !flags[i]) --i;
    return i;
  }();
  static constexpr std::size_t first_write = [] {
    constexpr bool flags[] = {(Statements::target_type::name == Name)..., false};
    std::size_t i = 0;
    while (i < sizeof...(Statements) && !flags[i]) ++i;
    return i;
  }();
};

/// True when named leaves with equal names are the same declaration.
template <class Leaves>
constexpr bool consistent_names(Leaves leaves) {
  bool consistent = true;
  hana::for_each(leaves, [&](auto a) {
    hana::for_each(leaves, [&](auto b) {
      using A = typename decltype(a)::type;
      using B = typename decltype(b)::type;
      if (A::name == B::name && !std::is_same_v<A, B>) consistent = false;
    });
  });
  return consistent;
}

/// True when every local is assigned by a statement before any statement reads it.
template <class... Statements, class Leaves>
constexpr bool locals_written_first(Leaves leaves) {
  bool written_first = true;
  hana::for_each(leaves, [&](auto t) {
    using L = typename decltype(t)::type;
    if constexpr (is_local<L>) {
      using uses = first_uses<L::name, Statements...>;
      if (!(uses::first_write < sizeof...(Statements) && uses::first_write < uses::first_read)) written_first = false;
    }
  });
  return written_first;
}

template <class P, fixed_string Name> struct program_uses_impl;

/// `first_uses` for the statements of program `P`.
template <class P, fixed_string Name>
using program_uses = typename program_uses_impl<P, Name>::type;
}  // namespace detail

/// Statements run in order; each reads the values that earlier statements
/// wrote (`m = 0.9f * m + 0.1f * g` then `p -= lr * m` reads the new m).
/// Build one with `fx::program prog{y = ..., z = ...};`.
template <class... Statements>
struct program {
  static_assert(sizeof...(Statements) > 0, "fusedsl: a program needs at least one statement");
  static_assert((detail::is_statement<Statements> && ...),
                "fusedsl: a program is made of statements `target = expression` (or +=, -=, *=, /=)");

  /// The distinct named leaves (placeholders and params), in order of first mention.
  static constexpr auto named_leaves =
      unique_types(hana::flatten(hana::make_tuple(detail::named_leaves_of_statement<Statements>()...)));

  hana::tuple<Statements...> statements;

  static_assert(detail::consistent_names(named_leaves),
                "fusedsl: two different placeholders of a program share one name: give each its own name");
  static_assert(detail::locals_written_first<Statements...>(named_leaves),
                "fusedsl: a local placeholder is read before any statement assigns it");

  constexpr program(Statements... s) : statements(s...) {}

  /// Runs the program on `target` (`fx::cpu`) with one binding per
  /// placeholder and param: `prog.run(fx::cpu, x(tx), y(ty), lr(0.1f))`.
  template <class Target, class... Bindings>
  void run(const Target& target, const Bindings&... bindings) const {
    executor<Target>::run(*this, target, bindings...);
  }
};

namespace detail {
template <class... Statements, fixed_string Name>
struct program_uses_impl<program<Statements...>, Name> {
  using type = first_uses<Name, Statements...>;
};
}  // namespace detail

}  // namespace fusedsl
