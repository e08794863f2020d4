# cmake -DCOMPILER=c++ -DFLAGS="..." -DSOURCE=probe.cpp -DHEADERS="a.hpp;b.hpp" [-DONLY=regex] -P CheckVectorized.cmake
#
# Every line of HEADERS marked with a `// vectorized: NAME` comment (with
# ONLY, every one whose NAME matches it) must be reported by g++'s
# vectorizer (-fopt-info-vec-optimized) as "loop vectorized" when SOURCE,
# which instantiates those loops, is compiled (to assembly, not assembled:
# the vectorizer has spoken by then). The marks sit next to the loops, so
# the check follows the code as it moves.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${COMPILER} ${FLAGS} -fopt-info-vec-optimized -S ${SOURCE} -o /dev/null
                RESULT_VARIABLE status OUTPUT_VARIABLE report ERROR_VARIABLE report)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${SOURCE} does not compile:\n${report}")
endif()
set(missing "")
set(found 0)
foreach(header IN LISTS HEADERS)
  file(READ ${header} text)
  # A list of lines: no other semicolons, and no brackets (CMake does not
  # split a list inside [...]).
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  string(REGEX REPLACE "^.*/include/" "" relative ${header})  # as the report names it
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "// vectorized: (.*)$")
      set(name "${CMAKE_MATCH_1}")
      if(DEFINED ONLY AND NOT name MATCHES "${ONLY}")
        continue()
      endif()
      string(REGEX MATCH "${relative}:${number}:[0-9]+: optimized: loop vectorized" hit "${report}")
      if(hit)
        math(EXPR found "${found} + 1")
      else()
        string(APPEND missing "\n  ${relative}:${number} (${name})")
      endif()
    endif()
  endforeach()
endforeach()
if(missing)
  message(FATAL_ERROR "loops not vectorized:${missing}\nvectorizer report for fusedsl headers:\n${report}")
endif()
if(found EQUAL 0)
  message(FATAL_ERROR "no `// vectorized:` marks found in ${HEADERS}")
endif()
message(STATUS "${found} marked loops vectorized")
