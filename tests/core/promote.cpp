// Type promotion against PyTorch: the table printed by torch.promote_types, the
// type-level promote_t, and the wrapped-number rule for C++ scalars.
#include <doctest/doctest.h>

#include <cstdint>      // std::int64_t, ...
#include <fstream>      // std::ifstream
#include <set>          // std::set
#include <sstream>      // std::istringstream
#include <string>       // std::string, std::getline
#include <type_traits>  // std::is_same_v
#include <utility>      // std::pair

#include <fusedsl/core/dtype.hpp>    // dtype, all_dtypes, name
#include <fusedsl/core/half.hpp>     // half, bfloat16
#include <fusedsl/core/promote.hpp>  // promote, promote_t, promote_with_scalar

using fusedsl::dtype;
using fusedsl::promote;
using fusedsl::promote_t;
using fusedsl::promote_with_scalar;

namespace {
/// The dtype spelled `text` in the table ("f32", "bool", ...).
dtype parse_dtype(const std::string& text) {
  for (const dtype d : fusedsl::all_dtypes)
    if (text == fusedsl::name(d)) return d;
  FAIL("unknown dtype in the promotion table: " << text);
  return dtype::boolean;
}
}  // namespace

TEST_CASE("promote agrees with torch.promote_types for every pair of dtypes") {
  std::ifstream table(FUSEDSL_TORCH_PROMOTION_TABLE);
  REQUIRE_MESSAGE(table.is_open(), "cannot open " FUSEDSL_TORCH_PROMOTION_TABLE);
  std::set<std::pair<dtype, dtype>> seen;
  std::string line;
  while (std::getline(table, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string a, b, expected;
    REQUIRE_MESSAGE(static_cast<bool>(fields >> a >> b >> expected), "malformed line: " << line);
    INFO("promote(", a, ", ", b, ")");
    CHECK(fusedsl::name(promote(parse_dtype(a), parse_dtype(b))) == expected);
    seen.insert({parse_dtype(a), parse_dtype(b)});
  }
  CHECK(seen.size() == std::size(fusedsl::all_dtypes) * std::size(fusedsl::all_dtypes));
}

// promote is a constant expression, symmetric, and idempotent, over all 100 pairs.
static_assert([] {
  for (const dtype a : fusedsl::all_dtypes) {
    if (promote(a, a) != a) return false;
    for (const dtype b : fusedsl::all_dtypes)
      if (promote(a, b) != promote(b, a)) return false;
  }
  return true;
}());

// promote_t: the same rules on element types.
static_assert(std::is_same_v<promote_t<std::int32_t, std::int64_t>, std::int64_t>);
static_assert(std::is_same_v<promote_t<std::uint8_t, std::int8_t>, std::int16_t>);
static_assert(std::is_same_v<promote_t<std::uint8_t, std::int32_t>, std::int32_t>);
static_assert(std::is_same_v<promote_t<std::uint8_t, bool>, std::uint8_t>);
static_assert(std::is_same_v<promote_t<bool, bool>, bool>);
static_assert(std::is_same_v<promote_t<bool, std::int8_t>, std::int8_t>);
static_assert(std::is_same_v<promote_t<std::int64_t, fusedsl::half>, fusedsl::half>);
static_assert(std::is_same_v<promote_t<std::int64_t, fusedsl::bfloat16>, fusedsl::bfloat16>);
static_assert(std::is_same_v<promote_t<fusedsl::half, fusedsl::bfloat16>, float>);
static_assert(std::is_same_v<promote_t<fusedsl::bfloat16, float>, float>);
static_assert(std::is_same_v<promote_t<fusedsl::half, double>, double>);
static_assert(std::is_same_v<promote_t<float, double>, double>);
static_assert(std::is_same_v<promote_t<std::int64_t, float>, float>);
static_assert(std::is_same_v<promote_t<std::int16_t, std::int8_t>, std::int16_t>);

// promote_with_scalar(tensor dtype, scalar dtype): PyTorch's wrapped-number rule, e.g.
// torch.ones(2, dtype=torch.int32) + 2.5 is float32 and torch.ones(2, dtype=torch.float16) * 2.0 stays float16.
static_assert(promote_with_scalar(dtype::i32, dtype::f64) == dtype::f32);
static_assert(promote_with_scalar(dtype::i64, dtype::f32) == dtype::f32);
static_assert(promote_with_scalar(dtype::u8, dtype::f64) == dtype::f32);
static_assert(promote_with_scalar(dtype::f16, dtype::f64) == dtype::f16);
static_assert(promote_with_scalar(dtype::bf16, dtype::f64) == dtype::bf16);
static_assert(promote_with_scalar(dtype::f64, dtype::f32) == dtype::f64);
static_assert(promote_with_scalar(dtype::f32, dtype::i64) == dtype::f32);
static_assert(promote_with_scalar(dtype::i8, dtype::i64) == dtype::i8);  // not i64: same category
static_assert(promote_with_scalar(dtype::u8, dtype::i32) == dtype::u8);
static_assert(promote_with_scalar(dtype::i16, dtype::boolean) == dtype::i16);
static_assert(promote_with_scalar(dtype::boolean, dtype::i32) == dtype::i64);
static_assert(promote_with_scalar(dtype::boolean, dtype::i8) == dtype::i64);
static_assert(promote_with_scalar(dtype::boolean, dtype::f64) == dtype::f32);
static_assert(promote_with_scalar(dtype::boolean, dtype::boolean) == dtype::boolean);
static_assert(promote_with_scalar(dtype::f32, dtype::boolean) == dtype::f32);
