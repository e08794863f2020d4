// The fusedsl programs the extension exposes, shared by its CPU and CUDA sources:
// softmax(x * scale) over the last axis of a 2-D float tensor into a tensor PyTorch
// allocates, and the row maxima into a tensor fusedsl allocates and hands to PyTorch
// (DLPack both ways); one kernel each.
#pragma once
#include <ATen/DLConvertor.h>  // at::toDLPack; first, so that fusedsl uses PyTorch's bundled dlpack.h
#include <torch/extension.h>

#include <fusedsl/fusedsl.hpp>
#include <fusedsl/interop/dlpack.hpp>

namespace fx = fusedsl;

namespace scaled_softmax {

inline constexpr fx::in<"x", float, 2> x;
inline constexpr fx::param<"scale", float> scale;
inline constexpr fx::out<"y", float, 2> y;
inline constexpr fx::out<"m", float, 1> m;
// A C++ name for a subexpression: used twice, computed once, kept in registers.
inline constexpr auto e = fx::exp(x * scale - fx::max(x * scale, fx::axis<1>));
inline constexpr fx::program softmax{y = e / fx::sum(e, fx::axis<1>)};
inline constexpr fx::program row_max{m = fx::max(x, fx::axis<1>, fx::drop_axes)};
static_assert(fx::kernel_count(softmax) == 1 && fx::kernel_count(row_max) == 1);

/// A PyTorch tensor as DLPack hands it over, released when this goes out of scope.
/// `view<T>()` is a fusedsl view of the same memory (no copy): fusedsl checks the
/// element type and device and says what does not fit.
class dlpack_tensor {
 public:
  explicit dlpack_tensor(const torch::Tensor& t) : managed_(at::toDLPack(t)) {}
  dlpack_tensor(const dlpack_tensor&) = delete;
  dlpack_tensor& operator=(const dlpack_tensor&) = delete;
  ~dlpack_tensor() { managed_->deleter(managed_); }
  template <class T>
  fx::tensor_view<T> view() const {
    return fx::from_dlpack<T>(*managed_);
  }

 private:
  DLManagedTensor* managed_;
};

/// softmax(input * s) on `target` (fx::cpu or fx::cuda(stream)) into a tensor PyTorch allocates.
template <class Target>
torch::Tensor run_softmax(const torch::Tensor& input, double s, const Target& target) {
  TORCH_CHECK(input.dim() == 2, "scaled_softmax: x must have 2 axes, got ", input.dim());
  torch::Tensor output = torch::empty(input.sizes(), input.options());
  const dlpack_tensor in(input), out(output);
  softmax.run(target, x(in.view<const float>()), scale(static_cast<float>(s)), y(out.view<float>()));
  return output;
}

/// The row maxima of `input` on `target`, into a tensor fusedsl allocates on `where`;
/// PyTorch takes it over through DLPack and frees it with the tensor.
template <class Target>
torch::Tensor run_row_max(const torch::Tensor& input, const Target& target, fx::device where) {
  TORCH_CHECK(input.dim() == 2, "row_max: x must have 2 axes, got ", input.dim());
  const dlpack_tensor in(input);
  fx::tensor<float> maxima({input.size(0)}, where);
  row_max.run(target, x(in.view<const float>()), m(maxima));
  return at::fromDLPack(fx::to_dlpack(std::move(maxima), input.device().is_cuda() ? input.device().index() : 0));
}

}  // namespace scaled_softmax
