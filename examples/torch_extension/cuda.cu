// CUDA tensors: the program runs on PyTorch's current stream of x's device.
#include <c10/cuda/CUDAGuard.h>   // c10::cuda::CUDAGuard
#include <c10/cuda/CUDAStream.h>  // c10::cuda::getCurrentCUDAStream

#include "scaled_softmax.hpp"

torch::Tensor scaled_softmax_cuda(const torch::Tensor& x, double scale) {
  const c10::cuda::CUDAGuard on_device(x.device());
  return scaled_softmax::run_softmax(x, scale, fx::cuda(c10::cuda::getCurrentCUDAStream(x.device().index()).stream()));
}

torch::Tensor row_max_cuda(const torch::Tensor& x) {
  const c10::cuda::CUDAGuard on_device(x.device());
  return scaled_softmax::run_row_max(x, fx::cuda(c10::cuda::getCurrentCUDAStream(x.device().index()).stream()),
                                     fx::device::cuda);
}
