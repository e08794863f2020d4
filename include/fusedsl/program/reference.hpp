/// @file reference.hpp
/// The oracle: a reference interpreter that runs any program unfused on the
/// CPU, one op at a time, each op's whole result materialized, computing in
/// double (int64 for integers) and rounding only when storing to the
/// target's dtype or at an explicit cast; integers wrap in their dtype at
/// every op. Every kernel is checked against it.
/// It shares with the kernels only the op definitions and the argument
/// checks; indexing, broadcasting and reduction order are its own.
#pragma once
#include <algorithm>    // std::min
#include <atomic>       // std::atomic
#include <bit>          // std::countr_zero
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

#include <fusedsl/core/fault.hpp>                    // detail::run_checking_faults, detail::fault_scope
#include <fusedsl/core/numerics.hpp>                 // wide_numerics, compute_t
#include <fusedsl/program/detail/bound_leaves.hpp>   // bind_leaves
#include <fusedsl/program/detail/run_statement.hpp>  // prepare_statement
#include <fusedsl/program/program.hpp>               // program

namespace fusedsl {

namespace reference_detail {

/// A materialized value: row-major, in wide compute type `W`.
template <class W>
struct dense {
  shape sizes;
  std::vector<W> values;
};

/// Calls `f(index)` for every multi-index of `sizes` in row-major order.
template <class F>
void for_each_index(const shape& sizes, F&& f) {
  const std::int64_t n = sizes.numel();
  shape index = sizes;
  for (auto& i : index) i = 0;
  for (std::int64_t flat = 0; flat < n; ++flat) {
    f(index);
    for (int d = sizes.rank() - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

/// `f(index)` for every multi-index of `sizes`, as a row-major vector; large
/// values in blocks over OpenMP threads (each element is computed alone, so
/// the split changes no result). A GPU benchmark checks 2^28 elements.
template <class W, class F>
std::vector<W> map_each_index(const shape& sizes, F&& f) {
  const std::int64_t n = sizes.numel();
  std::vector<W> values(static_cast<std::size_t>(n));
  constexpr std::int64_t block = 4096;
  const std::int64_t blocks = (n + block - 1) / block;
  detail::run_faults* const faults = detail::current_faults;
  // std::vector<bool> packs bits: no concurrent writes there.
#pragma omp parallel for schedule(static) if (!std::is_same_v <W, bool> && blocks >= 16)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const detail::fault_scope fault_word(faults);
    shape index = sizes;
    std::int64_t rest = b * block;
    for (int d = sizes.rank() - 1; d >= 0; --d) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    const std::int64_t end = std::min(n, (b + 1) * block);
    for (std::int64_t flat = b * block; flat < end; ++flat) {
      values[static_cast<std::size_t>(flat)] = f(static_cast<const shape&>(index));
      for (int d = sizes.rank() - 1; d >= 0; --d) {
        if (++index[d] < sizes[d]) break;
        index[d] = 0;
      }
    }
  }
  return values;
}

/// Row-major position in `sizes` of `index` taken over a larger broadcast
/// space (aligned at the innermost axis; size-1 axes read position 0).
inline std::int64_t broadcast_position(const shape& sizes, const shape& index) {
  std::int64_t position = 0;
  for (int d = 0; d < sizes.rank(); ++d) {
    const std::int64_t i = index[index.rank() - sizes.rank() + d];
    position = position * sizes[d] + (sizes[d] == 1 ? 0 : i);
  }
  return position;
}

template <class E>
using wide_t = compute_t<wide_numerics, E::value_dtype>;

/// Reads a strided view into a dense value.
template <class W, class T>
dense<W> read_view(const tensor_view<T>& v) {
  return {v.sizes(), map_each_index<W>(v.sizes(), [&](const shape& index) {
            std::int64_t offset = 0;
            for (int k = 0; k < index.rank(); ++k) offset += index[k] * v.strides()[k];
            return static_cast<W>(v.data()[offset]);
          })};
}

/// The whole value of `e`, part of a node computed over `space` (a
/// statement's target, a reduction's, scan's or realized value's operand): index
/// leaves are positions in it.
template <class P, class E>
dense<wide_t<E>> evaluate(detail::bound_leaves<P>& leaves, const E& e, const shape& space) {
  using W = wide_t<E>;
  if constexpr (is_constant_node<E>) {
    return {shape{}, {static_cast<W>(e.value)}};
  } else if constexpr (is_index_node<E>) {
    const shape strides = index_strides(E::axis, space);
    return {space, map_each_index<W>(space, [&](const shape& index) {
              std::int64_t position = 0;
              for (int d = 0; d < space.rank(); ++d) position += index[d] * strides[d];
              return static_cast<W>(position);
            })};
  } else if constexpr (is_gather_node<E>) {
    using Op = typename E::op;
    using L = std::remove_cvref_t<decltype(hana::at_c<0>(e.args))>;
    const auto& x = leaves.template slot<typename L::source_type>().view;
    const auto indices = evaluate(leaves, hana::at_c<1>(e.args), leading_axes(space, index_trailing_axes<E>));
    shape aligned = indices.sizes;
    for (int d = 0; d < index_trailing_axes<E>; ++d) aligned.push_back(1);
    const shape own = L::own(x.sizes(), 1);
    const shape sizes = broadcast_shapes(own, aligned);
    return {sizes, map_each_index<W>(sizes, [&](const shape& index) {
              const auto i = static_cast<std::int64_t>(indices.values[broadcast_position(aligned, index)]);
              if (!detail::gather_index_valid<Op>(i, x.sizes()[Op::axis])) return W{};
              std::int64_t offset = i * x.strides()[Op::axis];
              for (int d = 0; d < x.rank(); ++d)
                if (d != Op::axis && x.sizes()[d] != 1)
                  offset += index[index.rank() - own.rank() + L::own_axis(d)] * x.strides()[d];
              return static_cast<W>(x.data()[offset]);
            })};
  } else if constexpr (is_pointwise_node<E>) {
    const shape operand_space = [&] {
      if constexpr (is_realize_node<E>) return detail::shape_context<P>{leaves}.shape_of(hana::at_c<0>(e.args));
      else return space;
    }();
    const auto operands = hana::transform(e.args, [&](const auto& a) { return evaluate(leaves, a, operand_space); });
    shape sizes;
    hana::for_each(operands, [&](const auto& o) { sizes = broadcast_shapes(sizes, o.sizes); });
    return {sizes, map_each_index<W>(sizes, [&](const shape& index) {
              const W value = [&]<std::size_t... I>(std::index_sequence<I...>) {
                return static_cast<W>(E::op::apply(static_cast<compute_t<wide_numerics, E::template operand_dtype<I>>>(
                    hana::at_c<I>(operands).values[broadcast_position(hana::at_c<I>(operands).sizes, index)])...));
              }
              (std::make_index_sequence<E::op::arity>{});
              // Integers wrap around in their own dtype at every op (docs/testing.md), not
              // only when stored: an i32 intermediate of i64 width would hide an overflow.
              if constexpr (is_integral(E::value_dtype))
                return static_cast<W>(static_cast<element_t<E::value_dtype>>(value));
              else return value;
            })};
  } else if constexpr (is_reduction_node<E>) {
    using acc_type = compute_t<wide_numerics, E::input_dtype>;
    const auto in = evaluate(leaves, e.arg, detail::shape_context<P>{leaves}.shape_of(e.arg));
    const unsigned mask = detail::reduced_axes_mask<E>(in.sizes.rank());
    shape kept = in.sizes, reduced = in.sizes;
    for (int d = 0; d < in.sizes.rank(); ++d) (mask & (1u << d) ? kept : reduced)[d] = 1;
    return {detail::reduced_shape<E>(in.sizes), map_each_index<W>(kept, [&](const shape& out_index) {
              typename E::op_type::template state<acc_type> state{};
              std::int64_t position = 0;
              for_each_index(reduced, [&](const shape& r) {
                shape index = out_index;
                for (int d = 0; d < index.rank(); ++d) index[d] += r[d];
                e.op.add(state, static_cast<acc_type>(in.values[broadcast_position(in.sizes, index)]), position++);
              });
              return static_cast<W>(e.op.finish(state, reduced.numel()));
            })};
  } else if constexpr (is_scan_node<E>) {
    // Each line along the axis from its first element, one combine after the other.
    using acc_type = compute_t<wide_numerics, E::input_dtype>;
    const auto in = evaluate(leaves, e.arg, detail::shape_context<P>{leaves}.shape_of(e.arg));
    const int axis = std::countr_zero(detail::reduced_axes_mask<E>(in.sizes.rank()));
    shape lines = in.sizes;
    lines[axis] = 1;
    const std::int64_t length = in.sizes[axis], step = contiguous_strides(in.sizes)[axis];
    dense<W> out{in.sizes, std::vector<W>(in.values.size())};
    for_each_index(lines, [&](const shape& index) {
      const std::int64_t first = broadcast_position(in.sizes, index);
      acc_type acc = E::op_type::template identity<acc_type>();
      for (std::int64_t i = 0; i < length; ++i) {
        const auto at = static_cast<std::size_t>(first + i * step);
        acc = e.op.combine(acc, static_cast<acc_type>(in.values[at]));
        out.values[at] = static_cast<W>(acc);
      }
    });
    return out;
  } else if constexpr (requires { e.view; }) {
    return read_view<W>(e.view);
  } else if constexpr (requires { E::role_of; }) {
    return read_view<W>(leaves.template slot<E>().view);
  } else {
    return {shape{}, {static_cast<W>(leaves.template slot<E>().value)}};
  }
}

template <class P, class S>
void run_statement(const S& s, detail::bound_leaves<P>& leaves) {
  detail::prepare_statement<P>(s, leaves, device::cpu);
  auto& target = leaves.template slot<typename S::target_type>().view;
  const auto value = evaluate(leaves, s.value, target.sizes());
  using T = typename S::target_type::element_type;
  for_each_index(target.sizes(), [&](const shape& index) {
    std::int64_t offset = 0;
    for (int k = 0; k < index.rank(); ++k) offset += index[k] * target.strides()[k];
    const std::int64_t position = value.sizes.rank() > index.rank()
                                      ? broadcast_position(detail::fit_rank(value.sizes, index.rank()), index)
                                      : broadcast_position(value.sizes, index);
    target.data()[offset] = static_cast<T>(value.values[position]);
  });
}

}  // namespace reference_detail

/// Runs `prog` with the reference interpreter on CPU tensors: the same
/// bindings and checks as `prog.run(fx::cpu, ...)`, results in double
/// precision rounded to the targets' dtypes.
template <class... Statements, class... Bindings>
void run_reference(const program<Statements...>& prog, const Bindings&... bindings) {
  using P = program<Statements...>;
  auto leaves = detail::bind_leaves(prog, device::cpu, bindings...);
  detail::run_checking_faults("run_reference", [&] {
    hana::for_each(prog.statements, [&](const auto& s) { reference_detail::run_statement<P>(s, leaves); });
  });
}

}  // namespace fusedsl
