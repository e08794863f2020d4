# cmake -DCOMPILER=c++ -DFLAGS="..." -DSOURCE=case.cpp -DVARIANT=misuse|twin -DEXPECTED="text" -P CompileFail.cmake
#
# misuse: compiling SOURCE with -DFUSEDSL_MISUSE (and MISUSE_FLAGS) must fail, and EXPECTED must
#         appear within the first 20 lines of the compiler's output.
# twin:   compiling SOURCE as is must succeed (so the misuse fails for the
#         stated reason, not because the case is broken).
cmake_minimum_required(VERSION 3.25)
if(VARIANT STREQUAL "misuse")
  list(APPEND FLAGS -DFUSEDSL_MISUSE ${MISUSE_FLAGS})
endif()
execute_process(COMMAND ${COMPILER} ${FLAGS} ${SOURCE} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(VARIANT STREQUAL "twin")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "the twin of ${SOURCE} does not compile:\n${out}")
  endif()
  return()
endif()
if(status EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but its misuse must not")
endif()
string(REPLACE "\n" ";" lines "${out}")
list(SUBLIST lines 0 20 head)
string(JOIN "\n" head_text ${head})
string(FIND "${head_text}" "${EXPECTED}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${SOURCE}: expected \"${EXPECTED}\" within the first 20 lines of output, got:\n${head_text}")
endif()
message(STATUS "fails as expected: ${EXPECTED}")
