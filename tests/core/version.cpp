// The version macros agree with CMakeLists.txt's project(VERSION), passed in by tests/core/CMakeLists.txt.
#include <doctest/doctest.h>

#include <fusedsl/fusedsl.hpp>

static_assert(FUSEDSL_VERSION_MAJOR == FUSEDSL_CMAKE_VERSION_MAJOR, "core/version.hpp: major differs from CMake's");
static_assert(FUSEDSL_VERSION_MINOR == FUSEDSL_CMAKE_VERSION_MINOR, "core/version.hpp: minor differs from CMake's");
static_assert(FUSEDSL_VERSION_PATCH == FUSEDSL_CMAKE_VERSION_PATCH, "core/version.hpp: patch differs from CMake's");

TEST_CASE("version: one number for #if, ordered as the parts") {
  CHECK(FUSEDSL_VERSION == FUSEDSL_VERSION_MAJOR * 10000 + FUSEDSL_VERSION_MINOR * 100 + FUSEDSL_VERSION_PATCH);
  CHECK(FUSEDSL_VERSION_MINOR < 100);
  CHECK(FUSEDSL_VERSION_PATCH < 100);
}
