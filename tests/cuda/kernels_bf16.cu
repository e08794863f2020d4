// The CUDA kernels against the oracle for bf16 (see kernels.hpp).
#include "kernels.hpp"

namespace {
using T = cuda_test::fx::bfloat16;
}  // namespace

TEST_CASE("bf16: pointwise") { cuda_test::pointwise_case<T>(); }
TEST_CASE("bf16: horizontal rows") { cuda_test::horizontal_case<T>(); }
TEST_CASE("bf16: columns and full reductions") { cuda_test::columns_and_full_case<T>(); }
TEST_CASE("bf16: column strategies") { cuda_test::column_strategies_case<T>(); }
TEST_CASE("bf16: softmax and layernorm") { cuda_test::softmax_layernorm_case<T>(); }
TEST_CASE("bf16: row strategies") { cuda_test::row_strategies_case<T>(); }
TEST_CASE("bf16: gathers") { cuda_test::gather_case<T>(); }
TEST_CASE("bf16: adam in place") { cuda_test::adam_case<T>(); }
