/// @file shape.hpp
/// `shape`: the extents (or strides) of an array as a fixed-capacity vector of
/// 64-bit integers, plus numpy broadcasting and row-major strides.
///
/// A shape is trivially copyable and its accessors are host/device, so kernels
/// take shapes by value. Functions that can fail throw `fusedsl::error` and are
/// host-only.
#pragma once
#include <cstdint>           // std::int64_t
#include <initializer_list>  // std::initializer_list
#include <string>            // std::string, std::to_string

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE
#include <fusedsl/core/error.hpp>   // fusedsl::error

namespace fusedsl {

/// The most axes an array may have; fixed so that shapes live in registers and
/// kernel arguments without heap memory.
inline constexpr int max_rank = 8;

/// Up to `max_rank` 64-bit extents. Used for sizes, strides (in elements) and
/// index tuples alike; variables say which (`sizes`, `strides`, `index`).
struct shape {
  /// Rank 0: the shape of a scalar (numel 1).
  constexpr shape() = default;

  /// The given extents, outermost first; throws `fusedsl::error` for more than `max_rank`.
  constexpr shape(std::initializer_list<std::int64_t> extents) {
    for (const std::int64_t extent : extents) push_back(extent);
  }

  /// Number of axes.
  FUSEDSL_HOST_DEVICE constexpr int rank() const {
    // The invariant, told to the optimizer: loops bounded by rank() stay inside
    // the fixed storage (and g++ stops warning about bounds that cannot occur).
    if (rank_ < 0 || rank_ > max_rank) __builtin_unreachable();
    return rank_;
  }

  /// Extent of `axis`, 0 <= axis < rank() (unchecked: this is the fast path for kernels).
  FUSEDSL_HOST_DEVICE constexpr std::int64_t& operator[](int axis) { return extents_[axis]; }
  /// Extent of `axis`, 0 <= axis < rank() (unchecked).
  FUSEDSL_HOST_DEVICE constexpr const std::int64_t& operator[](int axis) const { return extents_[axis]; }

  /// Product of the extents: 1 for rank 0, 0 when any extent is 0.
  FUSEDSL_HOST_DEVICE constexpr std::int64_t numel() const {
    std::int64_t n = 1;
    for (int axis = 0; axis < rank_; ++axis) n *= extents_[axis];
    return n;
  }

  /// First extent, for range-for.
  FUSEDSL_HOST_DEVICE constexpr std::int64_t* begin() { return extents_; }
  /// One past the last extent.
  FUSEDSL_HOST_DEVICE constexpr std::int64_t* end() { return extents_ + rank(); }
  /// First extent, for range-for.
  FUSEDSL_HOST_DEVICE constexpr const std::int64_t* begin() const { return extents_; }
  /// One past the last extent.
  FUSEDSL_HOST_DEVICE constexpr const std::int64_t* end() const { return extents_ + rank(); }

  /// Appends an innermost axis; throws `fusedsl::error` when the shape already has `max_rank` axes.
  constexpr void push_back(std::int64_t extent) {
    if (rank_ == max_rank) throw error("shape: cannot have more than " + std::to_string(max_rank) + " axes");
    extents_[rank_++] = extent;
  }

  /// Same rank and same extents (unused capacity is always zero, so a plain
  /// member-wise comparison is exact).
  FUSEDSL_HOST_DEVICE friend constexpr bool operator==(const shape& a, const shape& b) {
    if (a.rank_ != b.rank_) return false;
    for (int axis = 0; axis < a.rank_; ++axis)
      if (a.extents_[axis] != b.extents_[axis]) return false;
    return true;
  }

 private:
  std::int64_t extents_[max_rank] = {};
  int rank_ = 0;
};

/// "[2, 3]"; "[]" for rank 0. Used by every error message that shows a shape.
inline std::string to_string(const shape& s) {
  std::string text = "[";
  for (int axis = 0; axis < s.rank(); ++axis) {
    if (axis > 0) text += ", ";
    text += std::to_string(s[axis]);
  }
  return text + "]";
}

namespace detail {
/// The first axis, counted from the end (-1 is the innermost), at which `a` and
/// `b` cannot broadcast; 0 when they can.
constexpr int broadcast_conflict(const shape& a, const shape& b) {
  for (int i = 1; i <= a.rank() && i <= b.rank(); ++i) {
    const std::int64_t x = a[a.rank() - i], y = b[b.rank() - i];
    if (x != y && x != 1 && y != 1) return -i;
  }
  return 0;
}
}  // namespace detail

/// True when numpy broadcasting accepts `a` and `b`: aligned at the innermost
/// axis, each pair of extents is equal or one of them is 1; missing leading
/// axes count as 1.
constexpr bool broadcastable(const shape& a, const shape& b) { return detail::broadcast_conflict(a, b) == 0; }

/// The numpy broadcast of `a` and `b` (rank = the larger rank; a 1 takes the
/// other extent, so 1 with 0 gives 0). Throws `fusedsl::error` naming the first
/// incompatible axis from the end, e.g. "cannot broadcast shapes [2, 3] and [4]:
/// axis -1 has sizes 3 and 4".
inline shape broadcast_shapes(const shape& a, const shape& b) {
  if (const int axis = detail::broadcast_conflict(a, b))
    throw error("cannot broadcast shapes " + to_string(a) + " and " + to_string(b) + ": axis " + std::to_string(axis) +
                " has sizes " + std::to_string(a[a.rank() + axis]) + " and " + std::to_string(b[b.rank() + axis]));
  const bool a_longer = a.rank() >= b.rank();
  shape result = a_longer ? a : b;
  const shape& shorter = a_longer ? b : a;
  for (int i = 1; i <= shorter.rank(); ++i) {
    std::int64_t& extent = result[result.rank() - i];
    if (extent == 1) extent = shorter[shorter.rank() - i];
  }
  return result;
}

/// Row-major strides, in elements, of a dense array of `sizes`: the innermost
/// stride is 1. Extents of 0 count as 1 here (as in PyTorch), so an empty
/// array still gets the strides its non-empty siblings would have.
constexpr shape contiguous_strides(const shape& sizes) {
  shape strides = sizes;
  std::int64_t stride = 1;
  for (int axis = sizes.rank() - 1; axis >= 0; --axis) {
    strides[axis] = stride;
    stride *= sizes[axis] > 1 ? sizes[axis] : 1;
  }
  return strides;
}

}  // namespace fusedsl
