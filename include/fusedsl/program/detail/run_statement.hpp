/// @file run_statement.hpp
/// The steps of one statement that every executor shares (the CPU backend
/// and the reference interpreter): shapes, the target's memory, the checks.
#pragma once
#include <string>  // std::string

#include <fusedsl/program/detail/statement_context.hpp>  // shape_context, assignable

namespace fusedsl::detail {

/// `shape` with size-1 axes added in front or removed from the front to
/// reach `rank` (the shape a local of that rank takes for the value).
inline shape fit_rank(shape s, int rank) {
  while (s.rank() > rank && s[0] == 1) {
    shape rest;
    for (int i = 1; i < s.rank(); ++i) rest.push_back(s[i]);
    s = rest;
  }
  while (s.rank() < rank) {
    shape longer{1};
    for (std::int64_t e : s) longer.push_back(e);
    s = longer;
  }
  return s;
}

/// Throws when two occurrences of one reduction type differ in their
/// constants: the program computes a repeated subexpression once.
template <class Value>
void check_repeated_reductions(const Value& value) {
  hana::for_each(distinct_nodes<Value>(), [&](auto t) {
    using R = typename decltype(t)::type;
    const R& first = first_occurrence<R>(value);
    for_each_occurrence<R>(value, [&](const R& other) {
      if (!same_value(other, first))
        throw error("fusedsl: two reductions " + to_string(first) + " and " + to_string(other) +
                    " have the same structure but different constants; fusedsl computes a repeated "
                    "subexpression once, so assign one of them to an fx::local first");
    });
  });
}

/// Prepares statement `s` of program `P`: computes the value's shape,
/// allocates a local target on its first assignment, and checks that the
/// value fits the target. Returns the value's shape.
template <class P, class S>
shape prepare_statement(const S& s, bound_leaves<P>& leaves, device where) {
  using Target = typename S::target_type;
  const shape value_shape = shape_context<P>{leaves}.shape_of(s.value);
  auto& slot = leaves.template slot<Target>();
  if constexpr (is_local<Target>) {
    if (slot.storage.data() == nullptr || slot.storage.numel() == 0) {
      const shape sizes = fit_rank(value_shape, Target::rank);
      if (sizes.rank() != Target::rank)
        throw error("fusedsl: " + describe_leaf<Target>() + " has rank " + std::to_string(Target::rank) +
                    " but is assigned a value of shape " + to_string(value_shape));
      slot.storage = tensor<typename Target::element_type>(sizes, where);
      slot.view = slot.storage.view();
    }
  }
  if (!assignable(value_shape, slot.view.sizes()))
    throw error("fusedsl: the statement " + to_string(s.target) + " = " + to_string(s.value) +
                " assigns a value of shape " + to_string(value_shape) + " to " + describe_leaf<Target>() +
                " of shape " + to_string(slot.view.sizes()));
  // A statement's value is computed over its target's shape: its index leaves need their axes there.
  if (index_rank<typename S::value_type>() > slot.view.rank())
    throw error("fusedsl: the statement " + to_string(s.target) + " = " + to_string(s.value) +
                " reads fx::index of an axis that " + describe_leaf<Target>() + " of rank " +
                std::to_string(slot.view.rank()) + " does not have: use an axis in [-rank, rank) of the target");
  check_repeated_reductions(s.value);
  return value_shape;
}

}  // namespace fusedsl::detail
