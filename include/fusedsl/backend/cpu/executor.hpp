/// @file executor.hpp
/// Runs a program on the CPU, one loop per node: each distinct reduction
/// of a statement is one reduction loop into a buffer (or straight into
/// the target when the statement is just that reduction), then the
/// statement's pointwise value is one loop over the target.
#pragma once
#include <fusedsl/backend/cpu/loops.hpp>               // pointwise_loop, reduction_loop
#include <fusedsl/program/detail/bound_leaves.hpp>     // bind_leaves
#include <fusedsl/program/detail/run_statement.hpp>    // prepare_statement
#include <fusedsl/program/program.hpp>                 // program
#include <fusedsl/program/target.hpp>                  // cpu_target, executor

namespace fusedsl {

namespace cpu_detail {

/// The strides of a reduction's kept-axes output shape when it is written
/// straight into `target`, or an empty optional when the value does not
/// map one-to-one onto the target (then it goes through a buffer).
template <class R, class V>
std::optional<shape> direct_output_strides(const shape& in_space, const V& target) {
  const shape value = detail::reduced_shape<R>(in_space);
  if (detail::fit_rank(value, target.rank()) != target.sizes()) return std::nullopt;
  // Strides of the value's axes: aligned with the target at the innermost axis.
  shape value_strides;
  for (int d = 0; d < value.rank(); ++d) {
    const int t = target.rank() - value.rank() + d;
    value_strides.push_back(t < 0 ? 0 : target.strides()[t]);
  }
  if (R::keep_axes) return value_strides;
  const unsigned mask = detail::reduced_axes_mask<R>(in_space.rank());
  shape keep_strides;
  for (int d = 0, v = 0; d < in_space.rank(); ++d) keep_strides.push_back(mask & (1u << d) ? 0 : value_strides[v++]);
  return keep_strides;
}

template <class P, class S>
void run_statement(const S& s, detail::bound_leaves<P>& leaves) {
  using Value = typename S::value_type;
  detail::statement_context<P, Value> ctx{leaves, device::cpu};
  detail::prepare_statement<P>(s, ctx);
  auto& target = leaves.template slot<typename S::target_type>().view;
  bool value_written = false;
  hana::for_each(ctx.reductions, [&](auto t) {
    using R = typename decltype(t)::type;
    using out_element = element_t<R::value_dtype>;
    const R& r = first_occurrence<R>(s.value);
    const shape in_space = ctx.shape_of(r.arg);
    const unsigned mask = detail::reduced_axes_mask<R>(in_space.rank());
    detail::operand_view views[leaf_slots<decltype(r.arg)>() + 1];
    ctx.template collect_leaves<0>(r.arg, views);
    if constexpr (std::is_same_v<R, Value>) {
      if (const auto strides = direct_output_strides<R>(in_space, target)) {
        reduction_loop(r, in_space, mask, views, target.data(), *strides);
        value_written = true;
        return;
      }
    }
    auto& buffer = ctx.template buffer<R>();
    buffer = tensor<out_element>(detail::reduced_shape<R>(in_space));
    shape keep = in_space;
    for (int d = 0; d < keep.rank(); ++d)
      if (mask & (1u << d)) keep[d] = 1;
    reduction_loop(r, in_space, mask, views, buffer.data(), contiguous_strides(keep));
  });
  if (value_written) return;
  detail::operand_view views[leaf_slots<Value>() + 1];
  ctx.template collect_leaves<0>(s.value, views);
  pointwise_loop(s.value, views, target.data(), target.sizes(), target.strides());
}

}  // namespace cpu_detail

/// Runs programs on the CPU.
template <>
struct executor<cpu_target> {
  template <class... Statements, class... Bindings>
  static void run(const program<Statements...>& prog, cpu_target, const Bindings&... bindings) {
    using P = program<Statements...>;
    auto leaves = detail::bind_leaves(prog, device::cpu, bindings...);
    hana::for_each(prog.statements, [&](const auto& s) { cpu_detail::run_statement<P>(s, leaves); });
  }
};

}  // namespace fusedsl
