# fusedsl_add_gpu_test(name source...): a doctest executable for tests that need a CUDA device.
#
# Only built when a CUDA compiler was found (otherwise a no-op), so callers need no `if`.
# Sources may be .cu (nvcc) and .cpp (the host compiler, with FUSEDSL_WITH_CUDART defined).
# The sources provide main() and call fusedsl::testing::skip_without_gpu() (tests/support/gpu.hpp)
# first: on a machine without a usable GPU the executable exits with 77, which CTest reports as
# skipped (SKIP_RETURN_CODE), never as passed. The executable is registered as ONE CTest test with
# add_test, not with doctest discovery, because discovery runs the executable at build time,
# where there may be no GPU at all.
#
# With FUSEDSL_CUDA_TESTS_COMPILE_ONLY (CI: no GPU, so nothing would run) the sources are only
# checked by the compilers' front ends: nvcc -cuda parses the host and the device code (EDG, with
# its warnings as errors) and compiles the device code to NVVM IR (LTO IR: no PTX, whose
# generation is a third of cicc's time), but does not hand the host code to g++ (a third of the
# whole); C++ sources get g++ -fsyntax-only. Nothing is linked, and the test reports as skipped,
# saying why. What only g++'s host compile or PTX generation would find shows on the GPU
# machine, which builds everything.
include_guard(GLOBAL)

function(fusedsl_add_gpu_test name)
  if(NOT CMAKE_CUDA_COMPILER)
    return()
  endif()
  find_package(CUDAToolkit REQUIRED)  # CUDA::cudart
  if(FUSEDSL_CUDA_TESTS_COMPILE_ONLY)
    set(sources ${ARGN})
    list(FILTER sources EXCLUDE REGEX "^\\$<TARGET_OBJECTS:")  # objects to link: nothing is linked
    add_library(${name} OBJECT ${sources})
    string(REGEX MATCH "[0-9]+" arch "${CMAKE_CUDA_ARCHITECTURES}")
    if(NOT arch)
      set(arch 90)
    endif()
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES OFF CUDA_SEPARABLE_COMPILATION ON)  # LTO IR needs -rdc
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-cuda --generate-code=arch=compute_${arch},code=lto_${arch}>
                                           $<$<COMPILE_LANGUAGE:CXX>:-fsyntax-only>)
  else()
    add_executable(${name} ${ARGN})
    set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
  # C++ sources in the same executable are host code that uses CUDA memory through the runtime:
  # FUSEDSL_WITH_CUDART enables it, CUDA::cudart brings its headers and the one shared runtime
  # that the CUDA sources use too (CUDA_RUNTIME_LIBRARY Shared, so there are not two copies).
  target_link_libraries(${name} PRIVATE fusedsl::fusedsl fusedsl_warnings doctest::doctest CUDA::cudart)
  target_compile_definitions(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:FUSEDSL_WITH_CUDART>)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # support/gpu.hpp
  # CMake 3.25 has no CUDA_STANDARD 20 for nvcc ("CUDA20" is unknown to it), so the flag is spelled out.
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20>)
  if(FUSEDSL_CUDA_TESTS_COMPILE_ONLY)
    add_test(NAME ${name} COMMAND sh -c "echo '${name}: compiled only (FUSEDSL_CUDA_TESTS_COMPILE_ONLY), not run'; exit 77")
  else()
    add_test(NAME ${name} COMMAND ${name})
  endif()
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
