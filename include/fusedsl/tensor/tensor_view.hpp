/// @file tensor_view.hpp
/// `tensor_view<T>`: a non-owning strided view of elements on the CPU or a CUDA
/// device, and the view operations (permute, slice, expand, reshape, ...) that
/// build new views over the same memory without copying.
#pragma once
#include <concepts>          // std::integral, std::same_as
#include <cstddef>           // std::size_t
#include <cstdint>           // std::int64_t
#include <initializer_list>  // std::initializer_list
#include <span>              // std::span
#include <string>            // std::string, std::to_string
#include <type_traits>       // std::remove_const_t
#include <utility>           // std::swap

#include <fusedsl/core/config.hpp>    // FUSEDSL_HOST_DEVICE
#include <fusedsl/core/dtype.hpp>     // element
#include <fusedsl/core/error.hpp>     // fusedsl::error
#include <fusedsl/core/shape.hpp>     // shape, to_string, contiguous_strides, max_rank
#include <fusedsl/tensor/device.hpp>  // device, name(device)

namespace fusedsl {

namespace detail {

/// `axis` with a negative value counted from the end (-1 is the innermost), as
/// an index in [0, rank); throws `fusedsl::error` naming `operation` otherwise.
inline int normalize_axis(int axis, int rank, const char* operation) {
  if (axis < -rank || axis >= rank)
    throw error(std::string(operation) + ": axis " + std::to_string(axis) + " is out of range for a rank-" +
                std::to_string(rank) + " view (expected " + std::to_string(-rank) + " to " + std::to_string(rank - 1) +
                ")");
  return axis < 0 ? axis + rank : axis;
}

/// Throws `fusedsl::error` naming `operation` when an extent of `sizes` is negative.
inline void check_sizes(const shape& sizes, const char* operation) {
  for (int axis = 0; axis < sizes.rank(); ++axis)
    if (sizes[axis] < 0)
      throw error(std::string(operation) + ": sizes " + to_string(sizes) + " have a negative size at axis " +
                  std::to_string(axis));
}

}  // namespace detail

/// A strided view of `T` elements: `data()[sum(index[i] * strides()[i])]` is the
/// element at `index`. `T` is an element type or `const` of one.
///
/// Strides are in elements and never negative; a stride of 0 repeats one
/// element along an axis (what `expand` makes). The view owns nothing: the
/// memory must outlive it. Copying a view is cheap (pointer plus two shapes)
/// and the accessors are host/device, so kernels take views by value.
template <class T>
requires element<std::remove_const_t<T>>
class tensor_view {
 public:
  /// The element type as given, `const` included (as `std::span::element_type`).
  using element_type = T;
  /// The element type without `const`.
  using value_type = std::remove_const_t<T>;

  /// An empty rank-1 view (sizes [0]) of no memory, so that a default-built
  /// view is safe to loop over.
  tensor_view() : tensor_view(nullptr, shape{0}) {}

  /// A view of `data` with the given sizes and strides (in elements). Throws
  /// `fusedsl::error` when the ranks differ or a size or stride is negative.
  tensor_view(T* data, shape sizes, shape strides, device where = device::cpu)
      : data_(data), sizes_(sizes), strides_(strides), where_(where) {
    if (sizes.rank() != strides.rank())
      throw error("tensor_view: sizes " + to_string(sizes) + " and strides " + to_string(strides) +
                  " have different ranks (" + std::to_string(sizes.rank()) + " and " + std::to_string(strides.rank()) +
                  ")");
    detail::check_sizes(sizes, "tensor_view");
    for (int axis = 0; axis < strides.rank(); ++axis)
      if (strides[axis] < 0)
        throw error("tensor_view: strides " + to_string(strides) + " have a negative stride at axis " +
                    std::to_string(axis) + "; only non-negative strides are supported");
  }

  /// A contiguous row-major view of `data` with the given sizes.
  tensor_view(T* data, shape sizes, device where = device::cpu)
      : tensor_view(data, sizes, contiguous_strides(sizes), where) {}

  /// A contiguous rank-1 view of span `s` (a `std::vector`'s or an array's
  /// elements: `tensor_view<const float>(std::span(v))`).
  template <std::size_t Extent>
  explicit tensor_view(std::span<T, Extent> s, device where = device::cpu)
      : tensor_view(s.data(), shape{static_cast<std::int64_t>(s.size())}, where) {}

  /// A contiguous row-major view of span `s` with the given sizes. Throws
  /// `fusedsl::error` when they do not hold exactly `s.size()` elements.
  template <std::size_t Extent>
  tensor_view(std::span<T, Extent> s, shape sizes, device where = device::cpu) : tensor_view(s.data(), sizes, where) {
    if (sizes.numel() != static_cast<std::int64_t>(s.size()))
      throw error("tensor_view: sizes " + to_string(sizes) + " hold " + std::to_string(sizes.numel()) +
                  " elements, the span " + std::to_string(s.size()));
  }

  /// A read-only view of a writable one (`tensor_view<float>` -> `tensor_view<const float>`).
  template <class U>
  requires std::same_as<T, const U> tensor_view(const tensor_view<U>& other)
      : data_(other.data()), sizes_(other.sizes()), strides_(other.strides()), where_(other.where()) {}

  /// First element (at index 0, ..., 0).
  FUSEDSL_HOST_DEVICE T* data() const { return data_; }
  /// Extent of each axis.
  FUSEDSL_HOST_DEVICE const shape& sizes() const { return sizes_; }
  /// Step between neighbours along each axis, in elements; never negative.
  FUSEDSL_HOST_DEVICE const shape& strides() const { return strides_; }
  /// Number of axes.
  FUSEDSL_HOST_DEVICE int rank() const { return sizes_.rank(); }
  /// Number of elements (1 for rank 0, 0 when an extent is 0).
  FUSEDSL_HOST_DEVICE std::int64_t numel() const { return sizes_.numel(); }
  /// The device the memory is on.
  FUSEDSL_HOST_DEVICE fusedsl::device where() const { return where_; }

  /// Extent of `axis`; negative axes count from the end. Throws for an axis out of range.
  std::int64_t size(int axis) const { return sizes_[detail::normalize_axis(axis, rank(), "size")]; }
  /// Stride of `axis` in elements; negative axes count from the end. Throws for an axis out of range.
  std::int64_t stride(int axis) const { return strides_[detail::normalize_axis(axis, rank(), "stride")]; }

  /// True when the elements are dense in row-major order, so that element i of
  /// the flat order is `data()[i]`. As in PyTorch, strides of size-1 axes do
  /// not matter and a view with no elements is contiguous.
  bool is_contiguous() const {
    if (numel() == 0) return true;
    std::int64_t expected = 1;
    for (int axis = rank() - 1; axis >= 0; --axis) {
      if (sizes_[axis] == 1) continue;
      if (strides_[axis] != expected) return false;
      expected *= sizes_[axis];
    }
    return true;
  }

  /// The axes reordered: axis i of the result is axis `order[i]` of this view.
  /// `order` must be a permutation of 0..rank-1 (negative entries count from the end).
  tensor_view permute(std::initializer_list<int> order) const {
    shape axes;
    for (const int axis : order) axes.push_back(axis);
    return permute(axes);
  }

  /// The axes reordered by a shape of axis indices; see `permute(std::initializer_list<int>)`.
  tensor_view permute(const shape& order) const {
    if (order.rank() != rank())
      throw error("permute: order " + to_string(order) + " has length " + std::to_string(order.rank()) +
                  " but the view has rank " + std::to_string(rank()));
    shape sizes, strides;
    bool seen[max_rank] = {};
    for (const std::int64_t entry : order) {
      const int axis = static_cast<int>(entry < 0 ? entry + rank() : entry);
      if (entry < -rank() || entry >= rank() || seen[axis])
        throw error("permute: order " + to_string(order) + " is not a permutation of the axes of a rank-" +
                    std::to_string(rank()) + " view");
      seen[axis] = true;
      sizes.push_back(sizes_[axis]);
      strides.push_back(strides_[axis]);
    }
    return with(data_, sizes, strides);
  }

  /// Axes `a` and `b` swapped (negative axes count from the end).
  tensor_view transpose(int a, int b) const {
    a = detail::normalize_axis(a, rank(), "transpose");
    b = detail::normalize_axis(b, rank(), "transpose");
    shape sizes = sizes_, strides = strides_;
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
    return with(data_, sizes, strides);
  }

  /// Elements start, start + step, ... (< stop) along `axis`. Requires
  /// 0 <= start <= stop <= size(axis) and step >= 1 (no clamping, no negative indices).
  tensor_view slice(int axis, std::int64_t start, std::int64_t stop, std::int64_t step = 1) const {
    axis = detail::normalize_axis(axis, rank(), "slice");
    if (start < 0 || start > stop || stop > sizes_[axis] || step < 1)
      throw error("slice: axis " + std::to_string(axis) + " of size " + std::to_string(sizes_[axis]) +
                  " expects 0 <= start <= stop <= " + std::to_string(sizes_[axis]) + " and step >= 1, got start " +
                  std::to_string(start) + ", stop " + std::to_string(stop) + ", step " + std::to_string(step));
    shape sizes = sizes_, strides = strides_;
    sizes[axis] = (stop - start + step - 1) / step;
    strides[axis] *= step;
    return with(data_ + start * strides_[axis], sizes, strides);
  }

  /// This view broadcast to `new_sizes` by numpy rules (aligned at the
  /// innermost axis): an axis keeps its size, or has size 1 and is repeated
  /// with stride 0; new leading axes get stride 0.
  tensor_view expand(const shape& new_sizes) const {
    detail::check_sizes(new_sizes, "expand");
    const int offset = new_sizes.rank() - rank();
    if (offset < 0)
      throw error("expand: cannot expand sizes " + to_string(sizes_) + " to " + to_string(new_sizes) +
                  ", which has fewer axes");
    shape strides = new_sizes;
    for (int axis = 0; axis < new_sizes.rank(); ++axis) {
      const int old_axis = axis - offset;
      if (old_axis < 0 || (sizes_[old_axis] == 1 && new_sizes[axis] != 1)) {
        strides[axis] = 0;
      } else if (sizes_[old_axis] == new_sizes[axis]) {
        strides[axis] = strides_[old_axis];
      } else {
        throw error("expand: cannot expand sizes " + to_string(sizes_) + " to " + to_string(new_sizes) + ": axis " +
                    std::to_string(old_axis) + " has size " + std::to_string(sizes_[old_axis]) + ", expected 1 or " +
                    std::to_string(new_sizes[axis]));
      }
    }
    return with(data_, new_sizes, strides);
  }

  /// The same elements in row-major order with new sizes; one entry may be -1
  /// and is then inferred. Only for contiguous views (anything else would need
  /// a copy, which a view never makes).
  tensor_view reshape(shape new_sizes) const {
    if (!is_contiguous())
      throw error("reshape: the view with sizes " + to_string(sizes_) + " and strides " + to_string(strides_) +
                  " is not contiguous; copy it first with fusedsl::contiguous(view)");
    int inferred = -1;
    std::int64_t known = 1;
    for (int axis = 0; axis < new_sizes.rank(); ++axis) {
      if (new_sizes[axis] == -1 && inferred < 0) {
        inferred = axis;
      } else if (new_sizes[axis] < 0) {
        throw error("reshape: sizes " + to_string(new_sizes) + " may hold -1 once and no other negative size");
      } else {
        known *= new_sizes[axis];
      }
    }
    if (inferred >= 0 && known != 0 && numel() % known == 0) new_sizes[inferred] = numel() / known;
    if (inferred >= 0 ? new_sizes[inferred] < 0 : known != numel())
      throw error("reshape: cannot reshape sizes " + to_string(sizes_) + " (" + std::to_string(numel()) +
                  " elements) to " + to_string(new_sizes));
    return with(data_, new_sizes, contiguous_strides(new_sizes));
  }

  /// A new axis of size 1 at `axis` (in [-rank-1, rank]; negative counts from the end of the result).
  tensor_view unsqueeze(int axis) const {
    axis = detail::normalize_axis(axis, rank() + 1, "unsqueeze");
    shape sizes, strides;
    for (int old_axis = 0; old_axis <= rank(); ++old_axis) {
      if (old_axis == axis) {
        // Any stride is valid for a size-1 axis; PyTorch's choice keeps the view contiguous-looking.
        sizes.push_back(1);
        strides.push_back(old_axis < rank() ? sizes_[old_axis] * strides_[old_axis] : 1);
      }
      if (old_axis < rank()) {
        sizes.push_back(sizes_[old_axis]);
        strides.push_back(strides_[old_axis]);
      }
    }
    return with(data_, sizes, strides);
  }

  /// `axis` removed; it must have size 1.
  tensor_view squeeze(int axis) const {
    axis = detail::normalize_axis(axis, rank(), "squeeze");
    if (sizes_[axis] != 1)
      throw error("squeeze: axis " + std::to_string(axis) + " of sizes " + to_string(sizes_) + " has size " +
                  std::to_string(sizes_[axis]) + ", expected 1");
    shape sizes, strides;
    for (int old_axis = 0; old_axis < rank(); ++old_axis) {
      if (old_axis == axis) continue;
      sizes.push_back(sizes_[old_axis]);
      strides.push_back(strides_[old_axis]);
    }
    return with(data_, sizes, strides);
  }

  /// The element at (idx...), one index per axis, each in [0, size). Host
  /// access to CPU views only; throws `fusedsl::error` otherwise.
  template <std::integral... Idx>
  T& operator()(Idx... idx) const {
    shape index;
    (index.push_back(static_cast<std::int64_t>(idx)), ...);
    return at(index);
  }

  /// The element at `index`, one entry per axis, each in [0, size). Host access
  /// to CPU views only; throws `fusedsl::error` otherwise.
  T& at(const shape& index) const {
    if (where_ != device::cpu)
      throw error(std::string("tensor_view: element access on the host needs a cpu view, this one is on ") +
                  name(where_) + "; copy it to the cpu first");
    if (index.rank() != rank())
      throw error("tensor_view: index " + to_string(index) + " has rank " + std::to_string(index.rank()) +
                  " but the view has rank " + std::to_string(rank()));
    std::int64_t offset = 0;
    for (int axis = 0; axis < rank(); ++axis) {
      if (index[axis] < 0 || index[axis] >= sizes_[axis])
        throw error("tensor_view: index " + to_string(index) + " is out of bounds for sizes " + to_string(sizes_) +
                    " at axis " + std::to_string(axis));
      offset += index[axis] * strides_[axis];
    }
    return data_[offset];
  }

 private:
  /// A view on the same device; the view operations produce only valid layouts, so no re-check.
  tensor_view with(T* data, const shape& sizes, const shape& strides) const {
    tensor_view result = *this;
    result.data_ = data;
    result.sizes_ = sizes;
    result.strides_ = strides;
    return result;
  }

  T* data_ = nullptr;
  shape sizes_;
  shape strides_;
  device where_ = device::cpu;
};

}  // namespace fusedsl
