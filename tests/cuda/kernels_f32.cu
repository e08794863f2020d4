// The CUDA kernels against the oracle for f32 (see kernels.hpp): pointwise, column and
// horizontal groups; kernels_f32_rows.cu has the rest (two files compile in parallel).
#include "kernels.hpp"

namespace {
using T = float;
}  // namespace

TEST_CASE("f32: pointwise") { cuda_test::pointwise_case<T>(); }
TEST_CASE("f32: rounding, sign, remainders, fma, math functions") { cuda_test::operators_and_functions_case<T>(); }
TEST_CASE("f32: horizontal rows") { cuda_test::horizontal_case<T>(); }
TEST_CASE("f32: columns and full reductions") { cuda_test::columns_and_full_case<T>(); }
TEST_CASE("f32: column strategies") { cuda_test::column_strategies_case<T>(); }
TEST_CASE("f32: adam in place") { cuda_test::adam_case<T>(); }
TEST_CASE("f32: accumulation in double") { cuda_test::accumulate_case(); }
TEST_CASE("f32: division as torch.compile's kernels divide") { cuda_test::division_case(); }
