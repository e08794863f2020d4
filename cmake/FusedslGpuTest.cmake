# fusedsl_add_gpu_test(name source...): a doctest executable for tests that need a CUDA device.
#
# Only built when a CUDA compiler was found (otherwise a no-op), so callers need no `if`.
# Sources may be .cu (nvcc) and .cpp (the host compiler, with FUSEDSL_WITH_CUDART defined).
# The sources provide main() and call fusedsl::testing::skip_without_gpu() (tests/support/gpu.hpp)
# first: on a machine without a usable GPU the executable exits with 77, which CTest reports as
# skipped (SKIP_RETURN_CODE), never as passed. The executable is registered as ONE CTest test with
# add_test, not with doctest discovery, because discovery runs the executable at build time,
# where there may be no GPU at all.
include_guard(GLOBAL)

function(fusedsl_add_gpu_test name)
  if(NOT CMAKE_CUDA_COMPILER)
    return()
  endif()
  find_package(CUDAToolkit REQUIRED)  # CUDA::cudart
  add_executable(${name} ${ARGN})
  # C++ sources in the same executable are host code that uses CUDA memory through the runtime:
  # FUSEDSL_WITH_CUDART enables it, CUDA::cudart brings its headers and the one shared runtime
  # that the CUDA sources use too (CUDA_RUNTIME_LIBRARY Shared, so there are not two copies).
  target_link_libraries(${name} PRIVATE fusedsl::fusedsl fusedsl_warnings doctest::doctest CUDA::cudart)
  target_compile_definitions(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:FUSEDSL_WITH_CUDART>)
  set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # support/gpu.hpp
  # CMake 3.25 has no CUDA_STANDARD 20 for nvcc ("CUDA20" is unknown to it), so the flag is spelled out.
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
