// Entry point of the CUDA backend tests: skipped (exit 77) without a GPU.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <support/gpu.hpp>  // skip_without_gpu

int main(int argc, char** argv) {
  fusedsl::testing::skip_without_gpu();
  return doctest::Context(argc, argv).run();
}
