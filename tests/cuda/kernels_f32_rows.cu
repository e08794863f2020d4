// The CUDA kernels against the oracle for f32 (see kernels.hpp): row groups, index leaves,
// gathers, scans and random numbers; kernels_f32.cu has the rest.
#include "kernels.hpp"

namespace {
using T = float;
}  // namespace

TEST_CASE("f32: softmax and layernorm") { cuda_test::softmax_layernorm_case<T>(); }
TEST_CASE("f32: row strategies") { cuda_test::row_strategies_case<T>(); }
TEST_CASE("f32: index leaves") { cuda_test::index_case<T>(); }
TEST_CASE("f32: gathers") { cuda_test::gather_case<T>(); }
TEST_CASE("f32: scans") { cuda_test::scan_case(); }
TEST_CASE("f32: random numbers, the same as the CPU's") { cuda_test::random_case(); }
