/// @file torch_dtype.hpp
/// PyTorch's spellings of element types ("torch.float32", "torch.bfloat16",
/// ...), as Inductor writes them in its dumps, and the graph element types
/// they stand for.
#pragma once
#include <optional>     // std::optional
#include <string_view>  // std::string_view

#include <fusedsl/graph/element_type.hpp>  // element_type

namespace fusedsl {

/// The element type PyTorch spells `name` (with or without "torch."), or
/// nothing when PyTorch has no such dtype.
constexpr std::optional<element_type> element_type_from_torch(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  struct spelling {
    std::string_view name;
    element_type type;
  };
  constexpr spelling spellings[] = {
      {"float64", element_type::f64},
      {"double", element_type::f64},
      {"float32", element_type::f32},
      {"float", element_type::f32},
      {"float16", element_type::f16},
      {"half", element_type::f16},
      {"bfloat16", element_type::bf16},
      {"int64", element_type::i64},
      {"long", element_type::i64},
      {"int32", element_type::i32},
      {"int", element_type::i32},
      {"int16", element_type::i16},
      {"short", element_type::i16},
      {"int8", element_type::i8},
      {"uint8", element_type::u8},
      {"bool", element_type::boolean},
      {"uint16", element_type::u16},
      {"uint32", element_type::u32},
      {"uint64", element_type::u64},
      {"complex32", element_type::c32},
      {"chalf", element_type::c32},
      {"complex64", element_type::c64},
      {"cfloat", element_type::c64},
      {"complex128", element_type::c128},
      {"cdouble", element_type::c128},
      {"float8_e4m3fn", element_type::f8_e4m3fn},
      {"float8_e4m3fnuz", element_type::f8_e4m3fnuz},
      {"float8_e5m2", element_type::f8_e5m2},
      {"float8_e5m2fnuz", element_type::f8_e5m2fnuz},
      {"float8_e8m0fnu", element_type::f8_e8m0fnu},
  };
  for (const spelling& s : spellings)
    if (s.name == name) return s.type;
  return std::nullopt;
}

}  // namespace fusedsl
