/// @file philox.hpp
/// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as
/// 1, 2, 3", SC 2011): a counter-based generator, so that any element's
/// random number is a pure function of (key, counter) and the CPU and CUDA
/// kernels, which visit elements in different orders, give the same values.
/// The generator and `uniform` are integer arithmetic only: bit-identical on
/// every host and device.
#pragma once
#include <cmath>    // std::sqrt, std::log, std::cos
#include <cstdint>  // std::uint32_t, std::uint64_t

#include <fusedsl/core/config.hpp>  // FUSEDSL_HOST_DEVICE, FUSEDSL_FORCEINLINE

namespace fusedsl::philox {

/// Four 32-bit words: a counter or a result.
struct words {
  std::uint32_t w[4];
};

/// The Philox-4x32 bijection of `counter` under `key` with 10 rounds.
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr words philox4x32_10(words counter, std::uint32_t key0,
                                                                      std::uint32_t key1) {
  constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u;  // the round multipliers
  constexpr std::uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;  // the key schedule: golden ratio, sqrt(3) - 1
  std::uint32_t* c = counter.w;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key0 += w0, key1 += w1;
    const std::uint64_t p0 = std::uint64_t{m0} * c[0], p1 = std::uint64_t{m1} * c[2];
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    const words next{{hi1 ^ c[1] ^ key0, lo1, hi0 ^ c[3] ^ key1, lo0}};
    counter = next;
  }
  return counter;
}

/// The first two result words for element `index` of the stream `(seed, offset)`:
/// counter (offset + index as 64 bits, 0, 0), key = seed's two halves.
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr words draw(std::uint64_t seed, std::uint64_t offset,
                                                             std::uint64_t index) {
  const std::uint64_t n = offset + index;
  return philox4x32_10({{static_cast<std::uint32_t>(n), static_cast<std::uint32_t>(n >> 32), 0u, 0u}},
                       static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

/// A 32-bit word as a float uniform in [0, 1): its top 24 bits times 2^-24
/// (every value exact in float, so the same on every backend).
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE constexpr float uniform(std::uint32_t word) {
  return static_cast<float>(word >> 8) * 0x1p-24f;
}

/// A standard normal float from two words (Box-Muller in double: u1 in
/// (0, 1], u2 in [0, 1)): the double value differs between math libraries
/// in its last bits at most, so the float rounds alike on the host and the
/// device but where that value is within those bits of a rounding boundary.
FUSEDSL_HOST_DEVICE FUSEDSL_FORCEINLINE float normal(std::uint32_t w0, std::uint32_t w1) {
  const double u1 = (static_cast<double>(w0) + 1.0) * 0x1p-32, u2 = static_cast<double>(w1) * 0x1p-32;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586477 * u2));
}

}  // namespace fusedsl::philox
