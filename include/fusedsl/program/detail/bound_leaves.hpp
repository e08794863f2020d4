/// @file bound_leaves.hpp
/// The run-time side of a call: each named leaf of a program resolved to the
/// view or value bound to it, checked for rank, device and aliasing.
#pragma once
#include <utility>    // std::swap
#include <optional>   // std::optional
#include <string>     // std::string


#include <fusedsl/core/error.hpp>          // error
#include <fusedsl/program/program.hpp>     // program, named leaves
#include <fusedsl/tensor/tensor.hpp>       // tensor: storage of locals

namespace fusedsl::detail {

/// What a call holds for one named leaf.
template <class L> struct leaf_slot;
template <fixed_string N, class T, int R>
struct leaf_slot<placeholder<N, T, R, role::in>> { tensor_view<const T> view; };
template <fixed_string N, class T, int R>
struct leaf_slot<placeholder<N, T, R, role::out>> { tensor_view<T> view; };
template <fixed_string N, class T, int R>
struct leaf_slot<placeholder<N, T, R, role::inout>> { tensor_view<T> view; };
template <fixed_string N, class T, int R>
struct leaf_slot<placeholder<N, T, R, role::local>> {
  tensor<T> storage;  // allocated by the statement that first assigns the local
  tensor_view<T> view;
};
template <fixed_string N, class T>
struct leaf_slot<param<N, T>> { T value; };

/// "placeholder \"x\"" for error messages.
template <class L>
std::string describe_leaf() {
  return std::string(is_named_leaf<L> && requires { L::role_of; } ? "placeholder \"" : "param \"") +
         std::string(L::name.view()) + "\"";
}

/// True when two views may touch the same bytes (their address ranges overlap).
template <class A, class B>
bool may_overlap(const tensor_view<A>& a, const tensor_view<B>& b) {
  if (a.numel() == 0 || b.numel() == 0) return false;
  const auto span = [](const auto& v) {
    std::int64_t last = 0;
    for (int i = 0; i < v.rank(); ++i) last += (v.sizes()[i] - 1) * v.strides()[i];
    const auto* begin = reinterpret_cast<const char*>(v.data());
    return std::pair{begin, begin + (last + 1) * static_cast<std::int64_t>(sizeof(*v.data()))};
  };
  const auto [a0, a1] = span(a);
  const auto [b0, b1] = span(b);
  return a0 < b1 && b0 < a1;
}

/// True when two views are the same elements in the same order.
template <class A, class B>
bool same_view(const tensor_view<A>& a, const tensor_view<B>& b) {
  return static_cast<const void*>(a.data()) == static_cast<const void*>(b.data()) && a.sizes() == b.sizes() &&
         a.strides() == b.strides();
}

/// True when no two indices of `v` address the same element: sorted by
/// stride, each axis must step over everything the inner axes span.
template <class T>
bool elements_distinct(const tensor_view<T>& v) {
  if (v.numel() <= 1) return true;
  int order[max_rank];
  int n = 0;
  for (int i = 0; i < v.rank(); ++i)
    if (v.sizes()[i] > 1) order[n++] = i;
  for (int i = 1; i < n; ++i)  // insertion sort by stride: at most max_rank axes
    for (int j = i; j > 0 && v.strides()[order[j]] < v.strides()[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  std::int64_t reach = 1;  // elements the inner axes span
  for (int k = 0; k < n; ++k) {
    if (v.strides()[order[k]] < reach) return false;
    reach = v.strides()[order[k]] * (v.sizes()[order[k]] - 1) + reach;
  }
  return true;
}

/// The named leaves of program `P` bound for one call.
template <class P>
struct bound_leaves {
  static constexpr auto leaves = P::named_leaves;
  using slots_type = decltype(hana::unpack(leaves, [](auto... t) {
    return hana::tuple<leaf_slot<typename decltype(t)::type>...>{};
  }));
  slots_type slots;

  /// The slot of named leaf `L`.
  template <class L>
  auto& slot() {
    constexpr auto index = hana::index_if(leaves, hana::equal.to(hana::type_c<L>));
    return hana::at(slots, index.value());
  }
  template <class L>
  const auto& slot() const {
    constexpr auto index = hana::index_if(leaves, hana::equal.to(hana::type_c<L>));
    return hana::at(slots, index.value());
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

/// Resolves `bindings` against program `P`'s named leaves. Compile-time
/// checks: every bound leaf bound exactly once, nothing unknown bound.
/// Run-time checks: ranks, devices, aliasing between outputs and the rest.
template <class P, class... Bindings>
bound_leaves<P> bind_leaves(const P& prog, device where, const Bindings&... bindings) {
  bound_leaves<P> bound;
  const auto all = hana::make_tuple(std::cref(bindings)...);
  hana::for_each(P::named_leaves, [&](auto t) {
    using L = typename decltype(t)::type;
    if constexpr (!is_local<L>) {
      constexpr std::size_t matches = ((Bindings::placeholder_type::name == L::name ? 1 : 0) + ... + 0);
      static_assert(matches > 0,
                    "fusedsl: a placeholder or param of the program is not bound in this call: pass it as name(tensor) "
                    "or name(value)");
      static_assert(matches < 2, "fusedsl: a placeholder or param is bound twice in one call");
      hana::for_each(all, [&](auto ref) {
        const auto& b = ref.get();
        using B = std::remove_cvref_t<decltype(b)>;
        if constexpr (B::placeholder_type::name == L::name) {
          static_assert(std::is_same_v<typename B::placeholder_type, L>,
                        "fusedsl: a binding names a placeholder of the program but was made from a different "
                        "declaration (element type, rank or access differ)");
          if constexpr (requires { b.view; }) {
            if (L::rank != dynamic_rank && b.view.rank() != L::rank)
              throw error("fusedsl: " + describe_leaf<L>() + " expects a rank-" + std::to_string(L::rank) +
                          " tensor, the bound one has rank " + std::to_string(b.view.rank()) + " (sizes " +
                          to_string(b.view.sizes()) + ")");
            if (b.view.where() != where)
              throw error("fusedsl: " + describe_leaf<L>() + " is bound to a tensor on " + name(b.view.where()) +
                          " but the program runs on " + name(where));
            bound.template slot<L>().view = b.view;
          } else {
            bound.template slot<L>().value = b.value;
          }
        }
      });
    }
  });
  (check_binding_is_known<P, Bindings>(), ...);
  check_aliasing(bound);
  check_tensor_leaves(prog, bound);
  return bound;
}

/// Tensors used directly in expressions (`fx::eval`) follow the rule of
/// bound inputs: they may share memory with a written placeholder only as
/// the very same view.
template <class P>
void check_tensor_leaves(const P& prog, const bound_leaves<P>& bound) {
  hana::for_each(prog.statements, [&](const auto& s) {
    using Target = typename std::remove_cvref_t<decltype(s)>::target_type;
    if constexpr (!is_local<Target>) {
      const auto& written = bound.template slot<Target>().view;
      hana::for_each(subexpressions<typename std::remove_cvref_t<decltype(s)>::value_type>(), [&](auto t) {
        using L = typename decltype(t)::type;
        if constexpr (requires { std::declval<L>().view; } && !requires { L::role_of; }) {
          for_each_occurrence<L>(s.value, [&](const L& leaf) {
            if (may_overlap(leaf.view, written) && !same_view(leaf.view, written))
              throw error("fusedsl: " + describe_leaf<Target>() + " is written and shares memory with a tensor of "
                          "shape " + to_string(leaf.view.sizes()) + " read through a different view: the result "
                          "would depend on the order of the writes; copy the operand first");
          });
        }
      });
    }
  });
}

/// Outputs must not repeat elements, and may share memory with another
/// binding only as the very same view (an in-place update through two names).
template <class P>
void check_aliasing(const bound_leaves<P>& bound) {
  hana::for_each(P::named_leaves, [&](auto ta) {
    using A = typename decltype(ta)::type;
    if constexpr (requires { A::role_of; } && !is_local<A>) {
      if constexpr (A::role_of != role::in) {
        const auto& a = bound.template slot<A>().view;
        if (!elements_distinct(a))
          throw error("fusedsl: " + describe_leaf<A>() + " is written but its view repeats elements (sizes " +
                      to_string(a.sizes()) + ", strides " + to_string(a.strides()) +
                      "): an output cannot be an expanded or overlapping view");
        hana::for_each(P::named_leaves, [&](auto tb) {
          using B = typename decltype(tb)::type;
          if constexpr (requires { B::role_of; } && !is_local<B> && !std::is_same_v<A, B>) {
            const auto& b = bound.template slot<B>().view;
            if (may_overlap(a, b) && !same_view(a, b))
              throw error("fusedsl: " + describe_leaf<A>() + " is written and shares memory with " + describe_leaf<B>() +
                          " through a different view (sizes " + to_string(a.sizes()) + ", strides " +
                          to_string(a.strides()) + " vs sizes " + to_string(b.sizes()) + ", strides " +
                          to_string(b.strides()) + "): the result would depend on the order of the writes; "
                          "bind the same view to both or copy one of them");
            if (same_view(a, b) && B::role_of != role::in)
              throw error("fusedsl: " + describe_leaf<A>() + " and " + describe_leaf<B>() +
                          " are both written and bound to the same memory");
            if constexpr (B::role_of == role::in) {
              using a_uses = program_uses<P, A::name>;
              using b_uses = program_uses<P, B::name>;
              if (same_view(a, b) && b_uses::last_read > a_uses::first_write)
                throw error("fusedsl: " + describe_leaf<B>() + " is bound to the same memory as " + describe_leaf<A>() +
                            " and is read after a statement writes " + describe_leaf<A>() +
                            ": that read would see the new values; bind a copy of the input");
            }
          }
        });
      }
    }
  });
}

}  // namespace fusedsl::detail
