/// @file small_vector.hpp
/// A vector of trivially copyable values that keeps its first N in place:
/// the scheduler's per-node lists (a plain node reads a few buffers, writes
/// one and has one member), each without a heap allocation of its own
/// (bench/RESULTS.md, "Scheduler"). constexpr: the scheduler runs in
/// constant evaluation.
#pragma once
#include <cstddef>           // std::size_t
#include <cstdint>           // std::uint32_t
#include <initializer_list>  // std::initializer_list
#include <type_traits>       // std::is_trivially_copyable_v

#include <fusedsl/graph/detail/elements.hpp>  // pointer_range, contains

namespace fusedsl::detail {

/// A vector of `T` holding up to `N` elements in place, more on the heap.
template <class T, std::size_t N>
class small_vector {
  static_assert(std::is_trivially_copyable_v<T> && N > 0);

 public:
  using value_type = T;

  constexpr small_vector() = default;
  constexpr small_vector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  constexpr small_vector(const small_vector& other) { assign(other.begin(), other.end()); }
  constexpr small_vector(small_vector&& other) noexcept { take(other); }
  constexpr small_vector& operator=(const small_vector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  constexpr small_vector& operator=(small_vector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  constexpr ~small_vector() { release(); }

  constexpr T* data() { return heap_ != nullptr ? heap_ : in_place_; }
  constexpr const T* data() const { return heap_ != nullptr ? heap_ : in_place_; }
  constexpr std::size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T* begin() { return data(); }
  constexpr T* end() { return data() + size_; }
  constexpr const T* begin() const { return data(); }
  constexpr const T* end() const { return data() + size_; }
  constexpr T& operator[](std::size_t i) { return data()[i]; }
  constexpr const T& operator[](std::size_t i) const { return data()[i]; }
  constexpr const T& front() const { return data()[0]; }
  constexpr const T& back() const { return data()[size_ - 1]; }

  constexpr void clear() { size_ = 0; }
  /// Room for `n` elements without another allocation.
  constexpr void reserve(std::size_t n) {
    if (n > capacity_) move_to(n);
  }
  constexpr void push_back(const T& value) {
    if (size_ == capacity_) move_to(2 * static_cast<std::size_t>(capacity_));
    data()[size_++] = value;
  }
  /// Replaces the elements with [first, last).
  template <class It>
  constexpr void assign(It first, It last) {
    size_ = 0;
    append(first, last);
  }
  /// Adds [first, last) at the end.
  template <class It>
  constexpr void append(It first, It last) {
    reserve(size_ + static_cast<std::size_t>(last - first));
    for (T* to = data() + size_; first != last; ++first, ++to, ++size_) *to = *first;
  }
  /// Removes the elements for which `remove` is true, keeping the others' order.
  template <class Pred>
  constexpr void erase_if(Pred remove) {
    T* kept = data();
    for (const T& e : pointer_range<T>{data(), data() + size_})
      if (!remove(e)) *kept++ = e;
    size_ = static_cast<std::uint32_t>(kept - data());
  }

 private:
  // Plain new[] and assignments (no std::allocator, no construct_at): fewer calls for
  // constant evaluation to make.
  constexpr void move_to(std::size_t capacity) {
    T* fresh = new T[capacity];
    for (std::size_t i = 0; i < size_; ++i) fresh[i] = data()[i];
    release();
    heap_ = fresh;
    capacity_ = static_cast<std::uint32_t>(capacity);
  }
  constexpr void release() {
    delete[] heap_;
    heap_ = nullptr;
    capacity_ = N;
  }
  /// Takes `other`'s elements, leaving it empty (it must own no heap storage of ours).
  constexpr void take(small_vector& other) {
    if (other.heap_ != nullptr) {
      heap_ = other.heap_;
      capacity_ = other.capacity_;
      other.heap_ = nullptr;
      other.capacity_ = N;
    } else {
      for (std::size_t i = 0; i < other.size_; ++i) in_place_[i] = other.in_place_[i];
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  T in_place_[N]{};
  T* heap_ = nullptr;
  std::uint32_t size_ = 0, capacity_ = N;
};

/// The elements of `v` (as `elements` gives a std::vector's; `contains` finds it too).
template <class T, std::size_t N>
constexpr pointer_range<const T> elements(const small_vector<T, N>& v) {
  return {v.data(), v.data() + v.size()};
}

}  // namespace fusedsl::detail
