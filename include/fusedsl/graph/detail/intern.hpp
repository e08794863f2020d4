/// @file intern.hpp
/// Dense integer ids for strings and small keys, usable in constant evaluation.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fusedsl::detail {

/// FNV-1a over the bytes of a string: cheap, constexpr, good enough for a hash table.
constexpr std::uint64_t hash_bytes(std::string_view s, std::uint64_t h = 1469598103934665603ull) {
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

/// Mixes one integer into a running hash (splitmix64 finaliser).
constexpr std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 29);
}

/// Maps keys to dense ids 0, 1, 2, ... in first-seen order.
/// An open-addressing table over std::vector, because std::unordered_map is
/// not usable in constant evaluation; Hash is a stateless functor returning uint64.
template <class Key, class Hash>
class interner {
 public:
  /// Id of `k`, or -1 when it was never interned.
  constexpr int find(const Key& k) const {
    if (slots_.empty()) return -1;
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Hash{}(k)&mask;; i = (i + 1) & mask) {
      int id = slots_[i];
      if (id < 0) return -1;
      if (keys_[static_cast<std::size_t>(id)] == k) return id;
    }
  }
  /// Id of `k`, adding it when new.
  constexpr int intern(const Key& k) {
    if ((keys_.size() + 1) * 2 > slots_.size()) grow();
    std::size_t mask = slots_.size() - 1;
    std::size_t i = Hash{}(k)&mask;
    for (;; i = (i + 1) & mask) {
      int id = slots_[i];
      if (id < 0) break;
      if (keys_[static_cast<std::size_t>(id)] == k) return id;
    }
    slots_[i] = static_cast<int>(keys_.size());
    keys_.push_back(k);
    return slots_[i];
  }
  /// The key with id `id`.
  constexpr const Key& operator[](int id) const { return keys_[static_cast<std::size_t>(id)]; }
  /// Number of distinct keys.
  constexpr int size() const { return static_cast<int>(keys_.size()); }

 private:
  constexpr void grow() {
    std::size_t n = slots_.empty() ? 16 : slots_.size() * 2;
    slots_.assign(n, -1);
    std::size_t mask = n - 1;
    for (std::size_t id = 0; id < keys_.size(); ++id) {
      std::size_t i = Hash{}(keys_[id]) & mask;
      while (slots_[i] >= 0) i = (i + 1) & mask;
      slots_[i] = static_cast<int>(id);
    }
  }
  std::vector<Key> keys_;
  std::vector<int> slots_;
};

/// Hash functor for std::string keys.
struct string_hash {
  constexpr std::uint64_t operator()(const std::string& s) const { return hash_bytes(s); }
};

/// Interned names (buffers, nodes, devices, index texts).
using string_table = interner<std::string, string_hash>;

}  // namespace fusedsl::detail
