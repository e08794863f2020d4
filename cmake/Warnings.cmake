# fusedsl_warnings: the warning flags of the project's own targets (tests, tools,
# examples, benchmarks), in one place. Not part of the installed `fusedsl` target:
# consumers keep their own warning flags.
include_guard(GLOBAL)

add_library(fusedsl_warnings INTERFACE)
target_compile_options(fusedsl_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror>
  # g++ 12 warns about std::string concatenation at -O3 where nothing is wrong
  # (GCC bug 105329, a -Wrestrict false positive inside libstdc++).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>
  $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror>)
