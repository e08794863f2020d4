# cmake -DROOT=<source dir> -P CheckIncludeOrder.cmake
#
# The folders of include/fusedsl follow the pipeline; a header may include
# headers of its own folder and of folders before it, never of a folder after
# it (docs/design.md). The two backends are siblings: neither includes the
# other. The umbrella header fusedsl.hpp may include anything. Fails with one
# line per backward include.
cmake_minimum_required(VERSION 3.25)

set(layers core tensor expr program graph lower schedule plan runtime backend/cpu backend/cuda interop)
set(siblings backend/cpu backend/cuda)  # same stage: neither may include the other

# The layer of `path` (relative to include/fusedsl) in `out`, or "" when it has none.
function(layer_of path out)
  set(found "")
  foreach(layer IN LISTS layers)
    if(path MATCHES "^${layer}/")
      set(found ${layer})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

get_filename_component(ROOT "${ROOT}" ABSOLUTE)
set(failures 0)
file(GLOB_RECURSE headers RELATIVE ${ROOT}/include/fusedsl ${ROOT}/include/fusedsl/*.hpp)
foreach(header IN LISTS headers)
  if(header STREQUAL "fusedsl.hpp")
    continue()
  endif()
  layer_of(${header} from)
  if(from STREQUAL "")
    message(SEND_ERROR "include/fusedsl/${header}: in no pipeline folder (${layers})")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  list(FIND layers ${from} from_rank)
  file(STRINGS ${ROOT}/include/fusedsl/${header} includes REGEX "^[ \t]*#[ \t]*include[ \t]*<fusedsl/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*<fusedsl/([^>]*)>.*$" "\\1" target "${line}")
    layer_of(${target} to)
    list(FIND layers "${to}" to_rank)
    list(FIND siblings ${from} from_sibling)
    list(FIND siblings "${to}" to_sibling)
    if(to_rank GREATER from_rank OR to_rank EQUAL -1
       OR (NOT from STREQUAL to AND from_sibling GREATER -1 AND to_sibling GREATER -1))
      message(SEND_ERROR "include/fusedsl/${header} (${from}/) includes <fusedsl/${target}> (${to}/): "
                         "a header may include only its own folder and folders before it: ${layers}")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH headers count)
if(failures GREATER 0)
  message(FATAL_ERROR "include order: ${failures} backward include(s) in ${count} headers")
endif()
message(STATUS "include order: ${count} headers, no backward include")
