# cmake -DCOMMAND="program;args" -DDOC=docs/x.md -DNAME=name -P CheckQuotedOutput.cmake
#
# Docs show the output of examples and tools; a shown output is written as
#   <!-- output: name -->
#   ```text
#   ...lines the command prints...
#   ```
# This script runs COMMAND and fails unless its standard output contains the
# block marked NAME in DOC, line for line, so the shown output stays current.
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${COMMAND} failed (${status}):\n${errors}")
endif()
file(READ "${DOC}" text)
string(FIND "${text}" "<!-- output: ${NAME} -->\n```text\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${DOC} has no block marked <!-- output: ${NAME} --> followed by ```text")
endif()
string(LENGTH "<!-- output: ${NAME} -->\n```text\n" skip)
math(EXPR start "${start} + ${skip}")
string(SUBSTRING "${text}" ${start} -1 rest)
string(FIND "${rest}" "```" end)
string(SUBSTRING "${rest}" 0 ${end} shown)
string(FIND "${output}" "${shown}" at)
if(at EQUAL -1)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/output-${NAME}.txt "${output}")
  message(FATAL_ERROR "${DOC}: the output shown as ${NAME} differs from what the command prints now "
                      "(written to output-${NAME}.txt)")
endif()
message(STATUS "${DOC}: the output shown as ${NAME} is current")
