// The CUDA kernels against the CPU for f32 max, min, argmax and argmin over rows, columns and
// the whole tensor with NaN, infinities and signed zeros (see kernels.hpp): a file of its own,
// so that the GPU machine compiles it beside the other f32 files.
#include "kernels.hpp"

TEST_CASE("f32: max, min, argmax and argmin with NaN") { cuda_test::nan_extremes_case(); }
