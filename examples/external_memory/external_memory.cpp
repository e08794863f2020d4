// External memory: a program runs on memory that fusedsl does not own, without
// copies: a raw pointer, a std::vector (through std::span) and an Eigen matrix
// (column-major: a strided view). docs/interop.md explains each.
#include <algorithm>    // std::copy, std::copy_n
#include <cstdint>      // std::int64_t
#include <cstdio>       // std::printf
#include <memory>       // std::unique_ptr
#include <span>         // std::span
#include <type_traits>  // std::remove_pointer_t
#include <utility>      // std::as_const
#include <vector>

#ifdef FUSEDSL_EXAMPLE_EIGEN
#  include <Eigen/Dense>
#endif

#include <fusedsl/fusedsl.hpp>

#include "common/support.hpp"  // random_tensor, matches

namespace fx = fusedsl;

int main() {
  constexpr fx::in<"x", float, 2> x;
  constexpr fx::in<"b", float, 1> b;
  constexpr fx::out<"y", float, 2> y;
  constexpr fx::program prog{y = fx::exp(x) + b};  // b: one value per column, for every row
  const std::int64_t rows = 300, cols = 7;
  const auto reference = examples::random_tensor<float>({rows, cols}, 2026);
  const auto bias = examples::random_tensor<float>({cols}, 2027);
  fx::tensor<float> expected({rows, cols});
  fx::run_reference(prog, x(reference), b(bias), y(expected));
  bool ok = true;

  // external_memory: raw
  // A raw pointer to rows * cols floats in row-major order: a view of them.
  std::unique_ptr<float[]> raw(new float[rows * cols]);
  std::copy_n(reference.data(), rows * cols, raw.get());
  const fx::tensor_view<const float> from_raw(raw.get(), fx::shape{rows, cols});
  // external_memory: end

  // external_memory: vector
  // std::vectors through std::span: rank 1 as they are, other ranks with sizes.
  std::vector<float> bias_values(bias.data(), bias.data() + cols), out_values(rows * cols);
  prog.run(fx::cpu, x(from_raw), b(std::span<const float>(bias_values)),
           y(fx::tensor_view<float>(std::span(out_values), {rows, cols})));
  // external_memory: end
  fx::tensor<float> result({rows, cols});
  std::copy(out_values.begin(), out_values.end(), result.data());
  ok = examples::matches("raw pointer and std::vector", result, expected) && ok;

#ifdef FUSEDSL_EXAMPLE_EIGEN
  // external_memory: eigen
  // Eigen stores matrices column-major: element (r, c) at data()[r + c * rows()], so the
  // view has strides {1, rows()}; the kernels read it in place (no transposed copy).
  Eigen::MatrixXf matrix(rows, cols), output(rows, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) matrix(r, c) = reference(r, c);
  const auto eigen_view = [](auto& m) {
    return fx::tensor_view<std::remove_pointer_t<decltype(m.data())>>(m.data(), fx::shape{m.rows(), m.cols()},
                                                                      fx::shape{1, m.rows()});
  };
  prog.run(fx::cpu, x(eigen_view(std::as_const(matrix))), b(bias), y(eigen_view(output)));
  // external_memory: end
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) result(r, c) = output(r, c);
  ok = examples::matches("Eigen matrices", result, expected) && ok;
#else
  std::printf("Eigen matrices: skipped (Eigen not found)\n");
#endif
  return ok ? 0 : 1;
}
