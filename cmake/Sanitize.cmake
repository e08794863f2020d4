# FUSEDSL_SANITIZE=ON builds everything in this project with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report aborts the test that made it (CI's sanitizer stage).
option(FUSEDSL_SANITIZE "Build with -fsanitize=address,undefined (reports are fatal)" OFF)
set(fusedsl_sanitize_compile_flags -fsanitize=address,undefined -fno-sanitize-recover=all)
if(FUSEDSL_SANITIZE)
  set(fusedsl_sanitize_flags ${fusedsl_sanitize_compile_flags} -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${fusedsl_sanitize_flags}>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${fusedsl_sanitize_flags}>")
endif()
