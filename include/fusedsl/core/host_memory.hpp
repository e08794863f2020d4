/// @file host_memory.hpp
/// Host memory that starts on a cache line: tensors, and the buffers the CPU
/// backend keeps between and inside groups.
#pragma once

#include <cstddef>  // std::size_t
#include <memory>   // std::unique_ptr
#include <new>      // operator new, std::align_val_t
#include <vector>   // std::vector

namespace fusedsl {

/// Alignment in bytes of every host buffer fusedsl allocates: one cache
/// line. With malloc's 16 bytes, a large buffer starts 16 bytes into a page,
/// so every other 32-byte vector access to it splits a cache line (a column
/// sum whose states sit that way runs markedly slower).
inline constexpr std::size_t host_alignment = 64;

namespace detail {

/// Uninitialized host memory for `count` objects of the implicit-lifetime
/// type `T`, aligned to `host_alignment`; freed with `free_host`.
template <class T>
T* allocate_host(std::size_t count) {
  return static_cast<T*>(::operator new (count * sizeof(T), std::align_val_t{host_alignment}));
}

/// Frees memory from `allocate_host`.
inline void free_host(void* memory) noexcept { ::operator delete (memory, std::align_val_t{host_alignment}); }

/// Frees `allocate_host` memory: the deleter of `host_array`.
struct host_free {
  void operator()(void* memory) const noexcept { free_host(memory); }
};

/// Host memory for `T[]` from `allocate_host`, not initialized: for buffers
/// whose users construct their own parts (in the threads that use them).
template <class T>
using host_array = std::unique_ptr<T[], host_free>;

/// A std::vector allocator whose buffers start on a cache line.
template <class T>
struct host_allocator {
  using value_type = T;
  host_allocator() = default;
  template <class U>
  constexpr host_allocator(const host_allocator<U>&) noexcept {}
  T* allocate(std::size_t count) { return allocate_host<T>(count); }
  void deallocate(T* memory, std::size_t) noexcept { free_host(memory); }
  friend constexpr bool operator==(host_allocator, host_allocator) noexcept { return true; }
};

/// A std::vector whose elements start on a cache line.
template <class T>
using host_vector = std::vector<T, host_allocator<T>>;

}  // namespace detail
}  // namespace fusedsl
