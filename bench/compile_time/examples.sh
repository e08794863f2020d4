#!/bin/sh
# Compile time and peak memory of each example (examples/*/*.cpp), compiled as
# the examples' CMake targets compile it, with g++ and with nvcc (the same source
# as CUDA: nvcc -x cu), one compile at a time. Prints a Markdown table row per
# example and compiler; the budget is 15 s (g++) and 30 s (nvcc) of wall time.
#
#   bench/compile_time/examples.sh [g++|nvcc]...   (default: both; run from the repository root)
#
# wall: elapsed; cpu: user + system; peak: maximum resident set size of the
# compiler's processes (GNU time's %M: the largest one). The load average before
# each compile is printed too: the machine may be shared.
set -eu
cd "$(dirname "$0")/../.."
compilers=${*:-g++ nvcc}
nvcc=${NVCC:-nvcc}  # on PATH, or set NVCC
time=/usr/bin/time
[ -x "$time" ] || { echo "examples.sh: needs GNU time (/usr/bin/time; Debian package time)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

common="-O3 -DNDEBUG -Iinclude -Iexamples -c"
echo "| example | compiler | wall s | cpu s | peak MB | load before | result |"
echo "|---|---|---:|---:|---:|---:|---|"
for source in examples/*/*.cpp; do
  name=$(basename "$(dirname "$source")")
  for compiler in $compilers; do
    case $compiler in
      g++) command="g++ -std=c++20 -fopenmp -fconstexpr-ops-limit=4294967296 --param=ggc-min-heapsize=1048576 -Wall -Wextra $common $source -o $out/$name.o" ;;
      nvcc) command="$nvcc -x cu -std=c++20 -arch=sm_90 --expt-relaxed-constexpr -Xcompiler -fopenmp -Xcompiler=--param=ggc-min-heapsize=1048576 $common $source -o $out/$name.o" ;;
      *) echo "examples.sh: unknown compiler $compiler (g++ or nvcc)" >&2; exit 2 ;;
    esac
    load=$(cut -d' ' -f1 /proc/loadavg)
    # shellcheck disable=SC2086
    if $time -f '%e %U %S %M' -o "$out/time" $command >"$out/log" 2>&1; then
      result=ok
    else
      # The first error line, shortened: what went wrong.
      result="**fails**: $(grep -m1 -E 'error' "$out/log" | sed 's/^[^ ]*: //' | cut -c1-120)"
    fi
    read -r wall user system peak_kb <<EOF_TIME
$(tail -n1 "$out/time")
EOF_TIME
    cpu=$(awk "BEGIN { print $user + $system }")
    echo "| $name | $compiler | $wall | $cpu | $((peak_kb / 1024)) | $load | $result |"
  done
done
