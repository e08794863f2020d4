// The extension's module: softmax(x * scale) on CPU tensors here, on CUDA tensors
// through cuda.cu when the extension was built with it.
#include "scaled_softmax.hpp"

#ifdef FUSEDSL_TORCH_CUDA
torch::Tensor scaled_softmax_cuda(const torch::Tensor& x, double scale);
torch::Tensor row_max_cuda(const torch::Tensor& x);
#endif

torch::Tensor scaled_softmax_any(const torch::Tensor& x, double scale) {
  if (x.is_cuda()) {
#ifdef FUSEDSL_TORCH_CUDA
    return scaled_softmax_cuda(x, scale);
#else
    TORCH_CHECK(false, "scaled_softmax: this build has no CUDA sources; x is on ", x.device());
#endif
  }
  return scaled_softmax::run_softmax(x, scale, fx::cpu);
}

torch::Tensor row_max_any(const torch::Tensor& x) {
  if (x.is_cuda()) {
#ifdef FUSEDSL_TORCH_CUDA
    return row_max_cuda(x);
#else
    TORCH_CHECK(false, "row_max: this build has no CUDA sources; x is on ", x.device());
#endif
  }
  return scaled_softmax::run_row_max(x, fx::cpu, fx::device::cpu);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, module) {
  module.def("scaled_softmax", &scaled_softmax_any, "softmax(x * scale) over the last axis, one fusedsl kernel",
             pybind11::arg("x"), pybind11::arg("scale") = 1.0);
  module.def("row_max", &row_max_any, "the maximum of each row, in a tensor fusedsl allocates", pybind11::arg("x"));
}
