/// @file bound_leaves.hpp
/// The run-time side of a call: each named leaf of a program resolved to the
/// view or value bound to it, checked for rank, device and aliasing.
#pragma once
#include <tuple>     // std::forward_as_tuple
#include <utility>   // std::swap
#include <vector>    // std::vector
#include <optional>  // std::optional
#include <string>    // std::string

#include <fusedsl/core/error.hpp>       // error
#include <fusedsl/expr/traverse.hpp>    // type_index, unique_types
#include <fusedsl/program/program.hpp>  // program, named leaves
#include <fusedsl/tensor/tensor.hpp>    // tensor: storage of locals

namespace fusedsl::detail {

/// The kinds of named leaves a call holds.
enum class slot_kind { input, output, local, value };
/// The slot kind of named leaf `L` (a plain enum to specialize on: nvcc
/// cannot match partial specializations on a placeholder's name).
template <class L>
constexpr slot_kind slot_kind_of() {
  if constexpr (requires { L::role_of; })
    return L::role_of == role::in ? slot_kind::input : L::role_of == role::local ? slot_kind::local : slot_kind::output;
  else return slot_kind::value;
}

/// What a call holds for one named leaf.
template <class L, slot_kind = slot_kind_of<L>()>
struct leaf_slot;
template <class L>
struct leaf_slot<L, slot_kind::input> {
  tensor_view<const typename L::element_type> view;
};
template <class L>
struct leaf_slot<L, slot_kind::output> {
  tensor_view<typename L::element_type> view;
};
template <class L>
struct leaf_slot<L, slot_kind::local> {
  tensor<typename L::element_type> storage;  // allocated by the statement that first assigns the local
  tensor_view<typename L::element_type> view;
};
template <class L>
struct leaf_slot<L, slot_kind::value> {
  typename L::element_type value;
};

/// "placeholder \"x\"" for error messages.
template <class L>
std::string describe_leaf() {
  return std::string(is_named_leaf<L> && requires { L::role_of; } ? "placeholder \"" : "param \"") +
         std::string(L::name.view()) + "\"";
}

/// A bound view as plain data, for the aliasing checks (which compare every
/// pair of bindings at run time rather than instantiating a check per pair).
struct view_extent {
  std::string description;  ///< "placeholder \"x\"" or "a tensor of shape [..]"
  role written;             ///< role::in for views that are only read
  const char* data;
  shape sizes, strides;
  std::int64_t element_size;
  leaf_usage usage{};  ///< where the program reads and writes it
};

template <class T>
view_extent extent_of(std::string description, role r, const tensor_view<T>& v) {
  return {std::move(description),
          r,
          reinterpret_cast<const char*>(v.data()),
          v.sizes(),
          v.strides(),
          static_cast<std::int64_t>(sizeof(T)),
          {}};
}

/// True when two views may touch the same bytes (their address ranges overlap).
inline bool may_overlap(const view_extent& a, const view_extent& b) {
  if (a.sizes.numel() == 0 || b.sizes.numel() == 0) return false;
  const auto end = [](const view_extent& v) {
    std::int64_t last = 0;
    for (int i = 0; i < v.sizes.rank(); ++i) last += (v.sizes[i] - 1) * v.strides[i];
    return v.data + (last + 1) * v.element_size;
  };
  return a.data < end(b) && b.data < end(a);
}

/// True when two views are the same elements in the same order.
inline bool same_view(const view_extent& a, const view_extent& b) {
  return a.data == b.data && a.sizes == b.sizes && a.strides == b.strides;
}

/// True when no two indices of `v` address the same element: sorted by
/// stride, each axis must step over everything the inner axes span.
inline bool elements_distinct(const view_extent& v) {
  if (v.sizes.numel() <= 1) return true;
  int order[max_rank];
  int n = 0;
  for (int i = 0; i < v.sizes.rank(); ++i)
    if (v.sizes[i] > 1) order[n++] = i;
  for (int i = 1; i < n; ++i)  // insertion sort by stride: at most max_rank axes
    for (int j = i; j > 0 && v.strides[order[j]] < v.strides[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  std::int64_t reach = 1;  // elements the inner axes span
  for (int k = 0; k < n; ++k) {
    if (v.strides[order[k]] < reach) return false;
    reach = v.strides[order[k]] * (v.sizes[order[k]] - 1) + reach;
  }
  return true;
}

/// Outputs must not repeat elements, and may share memory with another view
/// only as the very same view (an in-place update through two names), and
/// then the read-only one must not be read after the write.
inline void check_aliasing(const std::vector<view_extent>& views) {
  for (const view_extent& a : views) {
    if (a.written == role::in) continue;
    if (!elements_distinct(a))
      throw error("fusedsl: " + a.description + " is written but its view repeats elements (sizes " +
                  to_string(a.sizes) + ", strides " + to_string(a.strides) +
                  "): an output cannot be an expanded or overlapping view");
    for (const view_extent& b : views) {
      if (&a == &b || !may_overlap(a, b)) continue;
      if (!same_view(a, b))
        throw error("fusedsl: " + a.description + " is written and shares memory with " + b.description +
                    " through a different view (sizes " + to_string(a.sizes) + ", strides " + to_string(a.strides) +
                    " vs sizes " + to_string(b.sizes) + ", strides " + to_string(b.strides) +
                    "): the result would depend on the order of the writes; bind the same view to both or copy one "
                    "of them");
      if (b.written != role::in)
        throw error("fusedsl: " + a.description + " and " + b.description +
                    " are both written and bound to the same memory");
      if (b.usage.last_read > static_cast<std::ptrdiff_t>(a.usage.first_write))
        throw error("fusedsl: " + b.description + " is bound to the same memory as " + a.description +
                    " and is read after a statement writes " + a.description +
                    ": that read would see the new values; bind a copy of the input");
    }
  }
}

/// The named leaves of program `P` bound for one call.
template <class P>
struct bound_leaves {
  static constexpr auto leaves = P::named_leaves;
  using slots_type =
      decltype(hana::unpack(leaves, [](auto... t) { return hana::tuple<leaf_slot<typename decltype(t)::type>...>{}; }));
  slots_type slots;

  /// The slot of named leaf `L`.
  template <class L>
  auto& slot() {
    return hana::at_c<type_index<L>(leaves)>(slots);
  }
  template <class L>
  const auto& slot() const {
    return hana::at_c<type_index<L>(leaves)>(slots);
  }
};

/// A binding must name a placeholder or param of program `P`.
template <class P, class B>
constexpr void check_binding_is_known() {
  constexpr bool known = hana::any_of(P::named_leaves, [](auto t) {
    return hana::bool_c<(decltype(t)::type::name == B::placeholder_type::name)>;
  });
  static_assert(known, "fusedsl: a binding names a placeholder or param that the program does not use");
}

/// Position of the binding of named leaf `L` among `Bindings` (checked:
/// exactly one).
template <class L, class... Bindings>
constexpr std::size_t binding_index() {
  constexpr bool matches[] = {(Bindings::placeholder_type::name == L::name)..., false};
  std::size_t count = 0, index = 0;
  for (std::size_t i = 0; i < sizeof...(Bindings); ++i)
    if (matches[i]) ++count, index = i;
  return count == 1 ? index : sizeof...(Bindings);
}

/// Stops the compile of a call that leaves placeholder or param `Name`
/// unbound: the compiler's "required from" line names it (a
/// `static_assert` message cannot hold it before C++26).
template <fixed_string Name>
struct placeholder_not_bound {
  static_assert(Name.view().empty(),
                "fusedsl: a placeholder or param of the program is not bound in this call (its name is the "
                "template argument of placeholder_not_bound): pass it as name(tensor) or name(value)");
};

/// Resolves `bindings` against program `P`'s named leaves. Compile-time
/// checks: every bound leaf bound exactly once, nothing unknown bound.
/// Run-time checks: ranks, devices, aliasing between outputs and the rest.
template <class P, class... Bindings>
bound_leaves<P> bind_leaves(const P& prog, device where, const Bindings&... bindings) {
  bound_leaves<P> bound;
  std::vector<view_extent> views;
  hana::for_each(P::named_leaves, [&](auto t) {
    using L = typename decltype(t)::type;
    constexpr std::size_t matches = ((Bindings::placeholder_type::name == L::name ? 1 : 0) + ... + 0);
    if constexpr (!is_local<L> && matches == 0) {
      [[maybe_unused]] placeholder_not_bound<L::name> report;  // fails to compile, naming it
    } else if constexpr (!is_local<L>) {
      static_assert(matches < 2, "fusedsl: a placeholder or param is bound twice in one call");
      const auto& b = std::get<binding_index<L, Bindings...>()>(std::forward_as_tuple(bindings...));
      static_assert(std::is_same_v<typename std::remove_cvref_t<decltype(b)>::placeholder_type, L>,
                    "fusedsl: a binding names a placeholder of the program but was made from a different "
                    "declaration (element type, rank or role differ)");
      if constexpr (requires { b.view; }) {
        if (L::rank != dynamic_rank && b.view.rank() != L::rank)
          throw error("fusedsl: " + describe_leaf<L>() + " expects a rank-" + std::to_string(L::rank) +
                      " tensor, the bound one has rank " + std::to_string(b.view.rank()) + " (sizes " +
                      to_string(b.view.sizes()) + ")");
        if (b.view.where() != where)
          throw error("fusedsl: " + describe_leaf<L>() + " is bound to a tensor on " + name(b.view.where()) +
                      " but the program runs on " + name(where));
        bound.template slot<L>().view = b.view;
        views.push_back(extent_of(describe_leaf<L>(), L::role_of, b.view));
        views.back().usage = program_usage<P>(L::name.view());
      } else {
        bound.template slot<L>().value = b.value;
      }
    }
  });
  (check_binding_is_known<P, Bindings>(), ...);
  add_tensor_leaves(prog, views);
  check_aliasing(views);
  return bound;
}

/// Tensors used directly in expressions (`fx::eval`) follow the rule of
/// bound inputs: read-only views, read by the statement they appear in.
template <class P>
void add_tensor_leaves(const P& prog, std::vector<view_extent>& views) {
  std::size_t statement = 0;
  hana::for_each(prog.statements, [&](const auto& s) {
    hana::for_each(unique_types(subexpressions<typename std::remove_cvref_t<decltype(s)>::value_type>()), [&](auto t) {
      using L = typename decltype(t)::type;
      if constexpr (
          requires { std::declval<L>().view; } && !requires { L::role_of; }) {
        for_each_occurrence<L>(s.value, [&](const L& leaf) {
          views.push_back(extent_of("a tensor of shape " + to_string(leaf.view.sizes()), role::in, leaf.view));
          views.back().usage = {statement, statement, static_cast<std::ptrdiff_t>(statement)};
        });
      }
    });
    ++statement;
  });
}

}  // namespace fusedsl::detail
