/// @file device.hpp
/// Where a tensor's memory lives.
#pragma once

namespace fusedsl {

/// The memory a tensor or view points into: host memory or CUDA device memory
/// (plain `cudaMalloc` memory of the current CUDA device, never managed memory).
enum class device : unsigned char { cpu, cuda };

/// "cpu" or "cuda", as used in error messages.
constexpr const char* name(device d) { return d == device::cpu ? "cpu" : "cuda"; }

}  // namespace fusedsl
