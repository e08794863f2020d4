# cmake -DDOCS="README.md;docs/x.md" -DROOT=<source dir> -P CheckSnippets.cmake
#
# Docs quote example code instead of repeating it. A quote is written as
#   <!-- snippet: examples/tour/tour.cpp#program -->
#   ```cpp
#   ...the lines between "// tour: program" and "// tour: end" in that file...
#   ```
# (any fence language; in CMake files and scripts the markers are "# tour: program").
# This script fails when a quoted block differs from the region it names,
# so the docs cannot drift from code that is built and run as a test.
cmake_minimum_required(VERSION 3.25)

# Reads `path` into list `out`, one entry per line; semicolons (list
# separators in CMake) become the placeholder <semicolon>, empty lines stay.
function(read_lines path out)
  file(READ "${path}" text)
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(failures 0)
foreach(doc IN LISTS DOCS)
  read_lines("${ROOT}/${doc}" lines)
  set(expect_block "")
  set(in_block OFF)
  foreach(line IN LISTS lines)
    if(in_block)
      if(line STREQUAL "```")
        set(in_block OFF)
        if(NOT block STREQUAL region)
          file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/snippet-quoted.txt "${block}")
          file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/snippet-code.txt "${region}")
          message(SEND_ERROR "${doc}: the quote of ${source}#${name} differs from the code (both written to snippet-quoted.txt and snippet-code.txt)")
          math(EXPR failures "${failures} + 1")
        endif()
      else()
        string(APPEND block "${line}\n")
      endif()
    elseif(line MATCHES "^<!-- snippet: ([^#]+)#([a-z_]+) -->$")
      set(source "${CMAKE_MATCH_1}")
      set(name "${CMAKE_MATCH_2}")
      read_lines("${ROOT}/${source}" code)
      set(region "")
      set(inside OFF)
      foreach(code_line IN LISTS code)
        if(code_line MATCHES "^ *(//|#) [a-z_]+: ${name}$")
          set(inside ON)
        elseif(inside AND code_line MATCHES "^ *(//|#) [a-z_]+: end$")
          set(inside OFF)
        elseif(inside)
          if(code_line MATCHES "^  ")  # drop the function body's indentation
            string(SUBSTRING "${code_line}" 2 -1 code_line)
          endif()
          string(APPEND region "${code_line}\n")
        endif()
      endforeach()
      if(region STREQUAL "")
        message(SEND_ERROR "${doc}: ${source} has no region named ${name}")
        math(EXPR failures "${failures} + 1")
      endif()
      set(expect_block ON)
    elseif(expect_block AND line MATCHES "^```[a-z]*$")
      set(in_block ON)
      set(block "")
      set(expect_block "")
    endif()
  endforeach()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} quoted snippet(s) out of date")
endif()
message(STATUS "snippets match their code")
