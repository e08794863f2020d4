# FUSEDSL_HOST_RUNS_AVX2_FMA: true when this machine runs code compiled with
# -mavx2 -mfma. The tests and benchmarks compiled for AVX2 and FMA run where
# they are built, and only when this is true.
include(CheckCXXSourceRuns)  # check_cxx_source_runs
set(CMAKE_REQUIRED_FLAGS "-mavx2 -mfma")
check_cxx_source_runs([[
  int main() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 0 : 1; }
]] FUSEDSL_HOST_RUNS_AVX2_FMA)
unset(CMAKE_REQUIRED_FLAGS)
