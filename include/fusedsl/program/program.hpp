/// @file program.hpp
/// A program: statements executed in order, with sequential semantics.
#pragma once

#include <array>        // std::array
#include <string_view>  // std::string_view

#include <fusedsl/core/hana.hpp>            // hana: statements, leaf lists
#include <fusedsl/expr/traverse.hpp>        // subexpressions, unique_types
#include <fusedsl/program/placeholder.hpp>  // placeholder, param, access
#include <fusedsl/program/statement.hpp>    // assign
#include <fusedsl/program/executor.hpp>     // executor

namespace fusedsl {

namespace detail {
template <class T>
inline constexpr bool is_statement = false;
template <class Target, class Value>
inline constexpr bool is_statement<assign<Target, Value>> = true;

// Detected by members, not by partial specialization: nvcc's front end does
// not match specializations on a placeholder's name (a class-type argument).
template <class T>
inline constexpr bool is_named_leaf = requires {
  T::name.view();
  typename T::element_type;
};

template <class T>
constexpr bool has_local_role() {
  if constexpr (requires { T::role_of; }) return T::role_of == role::local;
  else return false;
}
template <class T>
inline constexpr bool is_local = has_local_role<T>();

/// `is_named_leaf` as a type, for filter_list.
template <class T>
struct named_leaf_pred : std::bool_constant<is_named_leaf<T>> {};

/// The named leaves a statement's value reads, in post-order (repeats included), as a type list.
template <class S>
using named_reads = typename filter_list<named_leaf_pred, typename post_order<typename S::value_type>::type>::type;

/// Every named leaf (placeholders and params) a statement mentions, target first, as a type list.
template <class S>
using named_leaves_of_statement = typename concat<type_list<typename S::target_type>, named_reads<S>>::type;

/// What the checks need to know of a named leaf, as a value.
struct named_leaf_info {
  std::string_view name;
  bool local;
};

/// The names of the named leaves a statement's value reads (repeats included),
/// computed once per statement type.
template <class List>
struct leaf_names;
template <class... T>
struct leaf_names<type_list<T...>> {
  static constexpr std::array<std::string_view, sizeof...(T)> value{T::name.view()...};
};

/// Where a program first reads, last reads and first writes a named leaf
/// (statement positions; the statement count, or -1, when it does not).
struct leaf_usage {
  std::size_t first_read, first_write;
  std::ptrdiff_t last_read;
};

template <class... Statements>
constexpr leaf_usage usage_of(std::string_view name) {
  constexpr std::size_t count = sizeof...(Statements);
  const bool reads[] = {[&] {
                          for (std::string_view n : leaf_names<named_reads<Statements>>::value)
                            if (n == name) return true;
                          return false;
                        }()...,
                        false};
  const bool writes[] = {(Statements::target_type::name.view() == name)..., false};
  leaf_usage u{count, count, -1};
  for (std::size_t i = 0; i < count; ++i) {
    if (reads[i] && u.first_read == count) u.first_read = i;
    if (reads[i]) u.last_read = static_cast<std::ptrdiff_t>(i);
    if (writes[i] && u.first_write == count) u.first_write = i;
  }
  return u;
}

/// The named leaves of a type list as values.
template <class... L>
constexpr std::array<named_leaf_info, sizeof...(L)> leaf_infos(type_list<L...>) {
  return {named_leaf_info{L::name.view(), is_local<L>}...};
}

/// True when the distinct named leaves `Leaves` (a list of different
/// types) have different names: two declarations do not share a name.
template <class Leaves>
constexpr bool consistent_names(Leaves leaves) {
  const auto infos = leaf_infos(leaves);
  for (std::size_t i = 0; i < infos.size(); ++i)
    for (std::size_t j = i + 1; j < infos.size(); ++j)
      if (infos[i].name == infos[j].name) return false;
  return true;
}

/// True when every local is assigned by a statement before any statement reads it.
template <class... Statements, class Leaves>
constexpr bool locals_written_first(Leaves leaves) {
  for (const named_leaf_info& l : leaf_infos(leaves)) {
    if (!l.local) continue;
    const leaf_usage u = usage_of<Statements...>(l.name);
    if (!(u.first_write < sizeof...(Statements) && u.first_write < u.first_read)) return false;
  }
  return true;
}

template <class P>
struct program_usage_impl;
}  // namespace detail

/// Statements run in order; each reads the values that earlier statements
/// wrote (`m = 0.9f * m + 0.1f * g` then `p -= lr * m` reads the new m).
/// Build one with `fx::program prog{y = ..., z = ...};`.
template <class... Statements>
struct program {
  static_assert(sizeof...(Statements) > 0, "fusedsl: a program needs at least one statement");
  static_assert((detail::is_statement<Statements> && ...),
                "fusedsl: a program is made of statements `target = expression` (or +=, -=, *=, /=)");

  /// The statement types, as a type list.
  using statement_list = detail::type_list<Statements...>;
  /// The distinct named leaves (placeholders and params), in order of first mention, as a type list.
  using named_leaf_list = typename detail::unique_list<
      typename detail::concat<detail::named_leaves_of_statement<Statements>...>::type>::type;
  /// The distinct named leaves as a tuple of `hana::type`s.
  static constexpr auto named_leaves = detail::as_type_tuple(named_leaf_list{});

  hana::tuple<Statements...> statements;

  static_assert(detail::consistent_names(named_leaf_list{}),
                "fusedsl: two different placeholders of a program share one name: give each its own name");
  static_assert(detail::locals_written_first<Statements...>(named_leaf_list{}),
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
template <class... Statements>
struct program_usage_impl<program<Statements...>> {
  static constexpr leaf_usage of(std::string_view name) { return usage_of<Statements...>(name); }
};
/// Where program `P` reads and writes the named leaf `name`.
template <class P>
constexpr leaf_usage program_usage(std::string_view name) {
  return program_usage_impl<P>::of(name);
}
}  // namespace detail

}  // namespace fusedsl
