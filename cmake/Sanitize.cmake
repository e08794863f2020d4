# FUSEDSL_SANITIZE=ON builds everything in this project with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report aborts the test that made it (CI's sanitizer stage).
option(FUSEDSL_SANITIZE "Build with -fsanitize=address,undefined (reports are fatal)" OFF)
set(fusedsl_sanitize_compile_flags -fsanitize=address,undefined -fno-sanitize-recover=all)
if(FUSEDSL_SANITIZE)
  set(fusedsl_sanitize_flags ${fusedsl_sanitize_compile_flags} -fno-omit-frame-pointer)
  # -O0 after the build type's level: instrumented code compiles two to four times as fast
  # as at -O1 or -O3 (what the stage waits for), and nothing is optimized away from the checks.
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${fusedsl_sanitize_flags};-O0>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${fusedsl_sanitize_flags}>")
endif()
