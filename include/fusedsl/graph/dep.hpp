/// @file dep.hpp
/// Dependencies of scheduler nodes: MemoryDep, StarDep and WeakDep, as Inductor has them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fusedsl {

/// The three kinds of dependency a node can have on a buffer.
enum class dep_kind : unsigned char {
  memory,  ///< MemoryDep: reads/writes `buffer` at a known index formula over known loop sizes
  star,    ///< StarDep: touches the whole buffer in an unknown pattern
  weak,    ///< WeakDep: ordering only (a later in-place update must wait for this reader)
};

/// A dependency as the user describes it: buffer and index by name.
struct dep_spec {
  dep_kind kind = dep_kind::memory;
  std::string buffer;                  ///< buffer read or written
  std::string index;                   ///< index formula over `var_names` (memory only; empty: given by `strides`)
  std::int64_t offset = 0;             ///< affine index without text: offset + sum(strides[i] * d_i)...
  std::vector<std::int64_t> strides;   ///< ...one stride per variable (memory only, when `index` is empty)
  std::vector<std::int64_t> sizes;     ///< loop sizes of the variables (memory only)
  std::vector<std::string> var_names;  ///< spelling of the variables; empty means d0, d1, ...
  std::int64_t bytes = 0;              ///< size hint of the access in bytes (fusion score)
  std::string mutating_buf;            ///< buffer whose in-place update this orders (weak only)
};

// The factories take names as string_view and assign the fields one by one: in
// constant evaluation g++ 12 cannot move from a by-value std::string parameter (it reads
// the wrong union member) and nvcc 13 mishandles aggregate-initialized structs holding
// short strings.

/// MemoryDep(buffer, index, sizes) touching `bytes` bytes; variables are d0, d1, ... unless named.
constexpr dep_spec memory_dep(std::string_view buffer, std::string_view index, const std::vector<std::int64_t>& sizes,
                              std::int64_t bytes, const std::vector<std::string>& var_names = {}) {
  dep_spec d;
  d.kind = dep_kind::memory;
  d.buffer = buffer;
  d.index = index;
  d.sizes = sizes;
  d.var_names = var_names;
  d.bytes = bytes;
  return d;
}

/// MemoryDep(buffer, offset + sum(strides[i] * d_i), sizes) touching `bytes` bytes: an affine
/// index given as integers, so building it (in constant evaluation too) parses no text.
constexpr dep_spec affine_dep(std::string_view buffer, std::int64_t offset, const std::vector<std::int64_t>& strides,
                              const std::vector<std::int64_t>& sizes, std::int64_t bytes) {
  dep_spec d;
  d.kind = dep_kind::memory;
  d.buffer = buffer;
  d.offset = offset;
  d.strides = strides;
  d.sizes = sizes;
  d.bytes = bytes;
  return d;
}

/// StarDep(buffer): the whole buffer, pattern unknown (extern kernels, in-place updates).
constexpr dep_spec star_dep(std::string_view buffer, std::int64_t bytes = 0) {
  dep_spec d;
  d.kind = dep_kind::star;
  d.buffer = buffer;
  d.bytes = bytes;
  return d;
}

/// WeakDep(buffer, mutating_buf): run after the node writing `buffer`, because the node
/// writing `mutating_buf` updates in place something that node reads.
constexpr dep_spec weak_dep(std::string_view buffer, std::string_view mutating_buf) {
  dep_spec d;
  d.kind = dep_kind::weak;
  d.buffer = buffer;
  d.bytes = 1;
  d.mutating_buf = mutating_buf;
  return d;
}

/// One interned index access: the loop sizes and the formula, analysed.
/// Two MemoryDeps on the same buffer are equal exactly when their accesses are.
struct access {
  std::string text;                 ///< index with variables renamed d0, d1, ... in order; empty when given as strides
  std::vector<std::int64_t> sizes;  ///< loop sizes, one per variable
  bool indirect = false;            ///< index goes through a loaded value: never fusable
  bool evaluable = false;           ///< strides/offset known
  bool affine = false;              ///< index == offset + sum(strides[i] * d_i)
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;  ///< per variable

  /// Affine formulas compare by value (as sympy would); others by text.
  constexpr bool operator==(const access& o) const {
    if (affine != o.affine || sizes != o.sizes) return false;
    return affine ? (offset == o.offset && strides == o.strides) : text == o.text;
  }
};

/// An interned dependency. Deps are compared by id: same kind, buffer, access and mutating buffer.
struct dep {
  dep_kind kind = dep_kind::memory;
  int buffer = -1;         ///< buffer id
  int access = -1;         ///< access id (memory only)
  int mutating = -1;       ///< buffer id of the mutation this orders (weak only)
  std::int64_t bytes = 0;  ///< size hint in bytes

  /// Identity ignores the size hint, as Inductor's dataclass equality does.
  constexpr bool operator==(const dep& o) const {
    return kind == o.kind && buffer == o.buffer && access == o.access && mutating == o.mutating;
  }
};

}  // namespace fusedsl
