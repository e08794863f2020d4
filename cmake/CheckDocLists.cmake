# cmake -DROOT=<source dir> -P CheckDocLists.cmake
#
# The reference docs list what the code offers; this script fails when the code
# has an op, a reduction or a compile-time error message that the docs do not
# mention, so the lists cannot fall behind the code:
# - every pointwise function and operator of expr/pointwise.hpp, every
#   reduction of expr/reduce.hpp and every scan of expr/scan.hpp appears in
#   docs/dsl.md (`fx::exp(`, `a + b`, `fx::cumsum(`);
# - every `static_assert` message starting with "fusedsl:" in include/fusedsl
#   appears verbatim in docs/errors.md.
cmake_minimum_required(VERSION 3.25)

set(failures 0)
# Fails (counts) unless `text` of doc `doc` contains `needle`.
function(expect_in doc text needle what)
  string(FIND "${text}" "${needle}" at)
  if(at EQUAL -1)
    message(SEND_ERROR "${doc} does not mention ${what}: ${needle}")
    math(EXPR failures "${failures} + 1")
    set(failures ${failures} PARENT_SCOPE)
  endif()
endfunction()

file(READ ${ROOT}/docs/dsl.md dsl)
file(READ ${ROOT}/include/fusedsl/expr/pointwise.hpp pointwise)
file(READ ${ROOT}/include/fusedsl/expr/gather.hpp gather)
string(APPEND pointwise "${gather}")
file(READ ${ROOT}/include/fusedsl/expr/reduce.hpp reduce)
file(READ ${ROOT}/include/fusedsl/expr/scan.hpp scan)

string(REGEX MATCHALL "FUSEDSL_UNARY_FUNCTION\\([a-z0-9_]+\\)" unary "${pointwise}")
string(REGEX MATCHALL "\nconstexpr auto [a-z0-9_]+\\(" other "${pointwise}")
set(functions 0)
foreach(entry IN LISTS unary other)
  string(REGEX REPLACE "^.*(FUSEDSL_UNARY_FUNCTION\\(|constexpr auto )([a-z0-9_]+).*$" "\\2" name "${entry}")
  if(NOT name MATCHES "^(make_|operator)")
    string(REGEX MATCH "fx::${name}[(<]" found "${dsl}")
    if(NOT found)
      message(SEND_ERROR "docs/dsl.md does not mention the pointwise function fx::${name}")
      math(EXPR failures "${failures} + 1")
    endif()
    math(EXPR functions "${functions} + 1")
  endif()
endforeach()

string(REGEX MATCHALL "FUSEDSL_BINARY_OPERATOR\\([^,]+," operators "${pointwise}")
set(symbols 0)
foreach(entry IN LISTS operators)
  string(REGEX REPLACE "^FUSEDSL_BINARY_OPERATOR\\(([^,]+),$" "\\1" symbol "${entry}")
  string(REPLACE "|" "\\|" symbol "${symbol}")  # a table cell escapes |
  if(NOT symbol STREQUAL "SYMBOL")
    expect_in(docs/dsl.md "${dsl}" "`a ${symbol} b`" "the operator")
    math(EXPR symbols "${symbols} + 1")
  endif()
endforeach()

# Every function that `macro` (FUSEDSL_REDUCTION_FUNCTION, ...) defines in `code` is
# mentioned in docs/dsl.md as `fx::name(`; their count goes to `count`.
function(expect_functions code macro what count)
  string(REGEX MATCHALL "${macro}\\([a-z_]+," entries "${code}")
  set(n 0)
  foreach(entry IN LISTS entries)
    string(REGEX REPLACE "^${macro}\\(([a-z_]+),$" "\\1" name "${entry}")
    if(NOT name STREQUAL "NAME")
      expect_in(docs/dsl.md "${dsl}" "fx::${name}(" "${what}")
      math(EXPR n "${n} + 1")
    endif()
  endforeach()
  set(failures ${failures} PARENT_SCOPE)
  set(${count} ${n} PARENT_SCOPE)
endfunction()
expect_functions("${reduce}" FUSEDSL_REDUCTION_FUNCTION "the reduction" reduction_names)
expect_functions("${scan}" FUSEDSL_SCAN_FUNCTION "the scan" scan_names)

# static_assert messages: a second argument made of string literals starting
# with "fusedsl: " that ends the call (a run-time message is a first argument,
# or goes on with `+ ...`).
# Square brackets would merge list elements in CMake: compare them as <lb>, <rb>.
file(READ ${ROOT}/docs/errors.md errors)
string(REPLACE "[" "<lb>" errors "${errors}")
string(REPLACE "]" "<rb>" errors "${errors}")
file(GLOB_RECURSE headers ${ROOT}/include/fusedsl/*.hpp)
set(messages 0)
foreach(header IN LISTS headers)
  file(READ ${header} code)
  string(REPLACE "\n" " " code "${code}")
  string(REPLACE "[" "<lb>" code "${code}")
  string(REPLACE "]" "<rb>" code "${code}")
  string(REGEX MATCHALL ", *\"fusedsl: [^\"]*\"( *\"[^\"]*\")* *\\)" literals "${code}")
  foreach(literal IN LISTS literals)
    string(REGEX REPLACE "\" *\"" "" literal "${literal}")     # join adjacent literals
    string(REGEX REPLACE "^, *\"(.*)\" *\\)$" "\\1" literal "${literal}")
    expect_in(docs/errors.md "${errors}" "${literal}" "the compile-time message")
    math(EXPR messages "${messages} + 1")
  endforeach()
endforeach()

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} op(s) or message(s) missing from the docs")
endif()
message(STATUS "docs list all ${functions} pointwise functions, ${symbols} operators, ${reduction_names} reductions, "
               "${scan_names} scans and ${messages} compile-time messages")
