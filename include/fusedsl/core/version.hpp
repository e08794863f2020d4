/// @file version.hpp
/// fusedsl's version, as in CMakeLists.txt's project(VERSION) (a test checks
/// that they agree).
#pragma once

#define FUSEDSL_VERSION_MAJOR 0  ///< incompatible changes
#define FUSEDSL_VERSION_MINOR 1  ///< compatible additions
#define FUSEDSL_VERSION_PATCH 0  ///< fixes
/// The version as one number, major * 10000 + minor * 100 + patch, for `#if`.
#define FUSEDSL_VERSION (FUSEDSL_VERSION_MAJOR * 10000 + FUSEDSL_VERSION_MINOR * 100 + FUSEDSL_VERSION_PATCH)
