// The fusedsl program the extension exposes, shared by its CPU and CUDA sources:
// softmax(x * scale) over the last axis of a 2-D float tensor, one kernel.
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
inline constexpr fx::local<"e", float, 2> e;
inline constexpr fx::program program{e = fx::exp(x * scale - fx::max(x * scale, fx::axis<1>)),
                                     y = e / fx::sum(e, fx::axis<1>)};
static_assert(fx::kernel_count(program) == 1);

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

/// Runs the program on `input` into a new tensor, on `target` (fx::cpu or fx::cuda(stream)).
template <class Target>
torch::Tensor run(const torch::Tensor& input, double s, const Target& target) {
  TORCH_CHECK(input.dim() == 2, "scaled_softmax: x must have 2 axes, got ", input.dim());
  torch::Tensor output = torch::empty(input.sizes(), input.options());
  const dlpack_tensor in(input), out(output);
  program.run(target, x(in.view<const float>()), scale(static_cast<float>(s)), y(out.view<float>()));
  return output;
}

}  // namespace scaled_softmax
