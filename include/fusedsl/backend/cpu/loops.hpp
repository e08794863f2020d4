/// @file loops.hpp
/// The CPU loops that run one node each: a pointwise loop over an output
/// space, and a reduction loop. OpenMP splits the outer iterations; the
/// innermost axis is a plain loop for the compiler to vectorize.
#pragma once
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t

#include <fusedsl/core/numerics.hpp>  // compute_t, kernel_numerics
#include <fusedsl/core/shape.hpp>     // shape, max_rank
#include <fusedsl/expr/evaluate.hpp>  // evaluate
#include <fusedsl/program/detail/statement_context.hpp>  // operand_view

namespace fusedsl::cpu_detail {

/// The strides of an operand of `sizes` and `strides` read over an iteration
/// `space`: aligned at the innermost axis, 0 where the operand broadcasts
/// (size 1 or a missing axis). Extra leading axes of the operand have size 1.
inline shape broadcast_strides(const shape& sizes, const shape& strides, const shape& space) {
  shape result;
  for (int d = 0; d < space.rank(); ++d) {
    const int a = sizes.rank() - space.rank() + d;
    result.push_back(a < 0 || sizes[a] == 1 ? 0 : strides[a]);
  }
  return result;
}

/// Offsets of `streams` operands at the multi-index of `outer` (a flat index
/// over all axes of `space` but the innermost), row-major.
template <std::size_t Streams>
inline void outer_offsets(std::int64_t outer, const shape& space, const shape (&strides)[Streams],
                          std::int64_t (&offsets)[Streams]) {
  for (std::size_t k = 0; k < Streams; ++k) offsets[k] = 0;
  for (int d = space.rank() - 2; d >= 0; --d) {
    const std::int64_t i = outer % space[d];
    outer /= space[d];
    for (std::size_t k = 0; k < Streams; ++k) offsets[k] += i * strides[k][d];
  }
}

/// out[i] = e(i) for every index i of `out`'s space. `leaves` are the loop
/// leaves of `e` (see `statement_context::collect_leaves`).
template <class E, class T>
void pointwise_loop(const E& e, const detail::operand_view* leaves, T* out_data, const shape& out_sizes,
                    const shape& out_strides) {
  constexpr std::size_t n = leaf_slots<E>();
  constexpr std::size_t streams = n + 1;  // the leaves, then the output
  const shape& space = out_sizes;
  shape strides[streams];
  const void* data[n + 1] = {};
  for (std::size_t k = 0; k < n; ++k) {
    strides[k] = broadcast_strides(leaves[k].sizes, leaves[k].strides, space);
    data[k] = leaves[k].data;
  }
  strides[n] = out_strides;
  const int r = space.rank();
  const std::int64_t inner = r == 0 ? 1 : space[r - 1];
  const std::int64_t outer_count = inner == 0 ? 0 : space.numel() / inner;
  std::int64_t inner_step[streams];
  for (std::size_t k = 0; k < streams; ++k) inner_step[k] = r == 0 ? 0 : strides[k][r - 1];

#pragma omp parallel for schedule(static) if (space.numel() > 32768)
  for (std::int64_t outer = 0; outer < outer_count; ++outer) {
    std::int64_t offsets[streams];
    outer_offsets(outer, space, strides, offsets);
    for (std::int64_t i = 0; i < inner; ++i) {
      out_data[offsets[n]] = static_cast<T>(evaluate<kernel_numerics, 0>(e, data, offsets));
      for (std::size_t k = 0; k < streams; ++k) offsets[k] += inner_step[k];
    }
  }
}

/// out = reduction r over its operand's space `in_space`; `out` has the
/// shape of `r` with the reduced axes kept (size 1) and any strides.
template <class R, class T>
void reduction_loop(const R& r, const shape& in_space, unsigned reduced_mask, const detail::operand_view* leaves,
                    T* out_data, const shape& out_strides_keep) {
  using Arg = decltype(r.arg);
  using acc_type = compute_t<kernel_numerics, R::input_dtype>;
  constexpr std::size_t n = leaf_slots<Arg>();
  const void* data[n + 1] = {};
  shape strides[n + 1];
  for (std::size_t k = 0; k < n; ++k) {
    strides[k] = broadcast_strides(leaves[k].sizes, leaves[k].strides, in_space);
    data[k] = leaves[k].data;
  }
  // Kept and reduced axes, each in row-major order.
  int kept[max_rank], reduced[max_rank], n_kept = 0, n_reduced = 0;
  std::int64_t out_count = 1, reduce_count = 1;
  for (int d = 0; d < in_space.rank(); ++d) {
    if (reduced_mask & (1u << d)) reduced[n_reduced++] = d, reduce_count *= in_space[d];
    else kept[n_kept++] = d, out_count *= in_space[d];
  }

#pragma omp parallel for schedule(static) if (out_count * reduce_count > 32768 && out_count > 1)
  for (std::int64_t o = 0; o < out_count; ++o) {
    std::int64_t base[n + 1] = {};
    std::int64_t out_offset = 0;
    for (std::int64_t rest = o, j = n_kept - 1; j >= 0; --j) {
      const int d = kept[j];
      const std::int64_t i = rest % in_space[d];
      rest /= in_space[d];
      for (std::size_t k = 0; k < n; ++k) base[k] += i * strides[k][d];
      out_offset += i * out_strides_keep[d];
    }
    typename R::op_type::template state<acc_type> state{};
    for (std::int64_t j = 0; j < reduce_count; ++j) {
      std::int64_t offsets[n + 1];
      for (std::size_t k = 0; k < n; ++k) offsets[k] = base[k];
      for (std::int64_t rest = j, m = n_reduced - 1; m >= 0; --m) {
        const int d = reduced[m];
        const std::int64_t i = rest % in_space[d];
        rest /= in_space[d];
        for (std::size_t k = 0; k < n; ++k) offsets[k] += i * strides[k][d];
      }
      r.op.add(state, static_cast<acc_type>(evaluate<kernel_numerics, 0>(r.arg, data, offsets)), j);
    }
    out_data[out_offset] = static_cast<T>(r.op.finish(state, reduce_count));
  }
}

}  // namespace fusedsl::cpu_detail
