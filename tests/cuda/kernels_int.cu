// The CUDA kernels against the oracle for i32 and i64, and the scans and gathers of the
// other element types in mixed programs (see kernels.hpp).
#include <cstdint>  // std::int32_t, std::int64_t

#include "kernels.hpp"

TEST_CASE("i32: pointwise") { cuda_test::pointwise_case<std::int32_t>(); }
TEST_CASE("i32: horizontal rows") { cuda_test::horizontal_case<std::int32_t>(); }
TEST_CASE("i32: columns and full reductions") { cuda_test::columns_and_full_case<std::int32_t>(); }
TEST_CASE("i32: column strategies") { cuda_test::column_strategies_case<std::int32_t>(); }
TEST_CASE("i32: gathers") { cuda_test::gather_case<std::int32_t>(); }
TEST_CASE("i64: pointwise") { cuda_test::pointwise_case<std::int64_t>(); }
TEST_CASE("i64: horizontal rows") { cuda_test::horizontal_case<std::int64_t>(); }
TEST_CASE("i64: columns and full reductions") { cuda_test::columns_and_full_case<std::int64_t>(); }
TEST_CASE("i64: column strategies") { cuda_test::column_strategies_case<std::int64_t>(); }
TEST_CASE("i32: bitwise operators, shifts, sign, remainders, fma") {
  cuda_test::operators_and_functions_case<std::int32_t>();
}
TEST_CASE("scans of bf16, f16, f64, i64 and bool; gathers of f16, f64, i64, i16, i8 and u8") {
  cuda_test::other_types_case();
}
