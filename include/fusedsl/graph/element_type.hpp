/// @file element_type.hpp
/// The element type of a graph's buffer, as the scheduler needs it: which type
/// (buffers of different types are never interchangeable) and its size in
/// bytes (the memory score counts bytes). Covers the element types of
/// programs (core/dtype.hpp) and the other types an Inductor graph may hold.
/// Spellings of other tools live with their loaders (interop/).
#pragma once
#include <cstdint>  // std::int64_t

#include <fusedsl/core/dtype.hpp>  // dtype

namespace fusedsl {

/// Element types of graph buffers; `unknown` when the graph does not say.
enum class element_type : unsigned char {
  unknown,
  f64,
  f32,
  f16,
  bf16,
  i64,
  i32,
  i16,
  i8,
  u8,
  boolean,
  u16,
  u32,
  u64,
  c32,        ///< complex of two f16
  c64,        ///< complex of two f32
  c128,       ///< complex of two f64
  f8_e4m3fn,  ///< the float8 types
  f8_e4m3fnuz,
  f8_e5m2,
  f8_e5m2fnuz,
  f8_e8m0fnu,
};

/// Bytes per element; 4 when the type is unknown (a float32-sized guess, as Inductor's default dtype).
constexpr std::int64_t itemsize(element_type t) {
  switch (t) {
    case element_type::f64:
    case element_type::i64:
    case element_type::u64:
    case element_type::c64: return 8;
    case element_type::c128: return 16;
    case element_type::f16:
    case element_type::bf16:
    case element_type::i16:
    case element_type::u16: return 2;
    case element_type::i8:
    case element_type::u8:
    case element_type::boolean:
    case element_type::f8_e4m3fn:
    case element_type::f8_e4m3fnuz:
    case element_type::f8_e5m2:
    case element_type::f8_e5m2fnuz:
    case element_type::f8_e8m0fnu: return 1;
    default: return 4;  // f32, i32, u32, c32, unknown
  }
}

/// The graph element type of a program's element type.
constexpr element_type element_type_of(dtype d) {
  constexpr element_type types[] = {element_type::f64, element_type::f32,    element_type::f16, element_type::bf16,
                                    element_type::i64, element_type::i32,    element_type::i16, element_type::i8,
                                    element_type::u8,  element_type::boolean};
  return types[static_cast<int>(d)];
}

}  // namespace fusedsl
