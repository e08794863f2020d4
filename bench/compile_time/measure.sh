#!/bin/sh
# Compile time of a generated program of N statements (argument 1) whose plan is
# computed while compiling, with g++ or nvcc (argument 2), without `prog.run`
# (which instantiates the CPU kernels on top). With `noplan` (argument 3) the
# plan is not computed (kernels = 1): the cost of the program alone, for comparison.
# Run from the repository root.
# Prints CPU seconds (user + system), wall seconds and peak memory.
set -eu
n=$1
compiler=$2
mode=${3:-}
case $n in
  ''|*[!0-9]*) echo "measure.sh: statements: expected a positive integer, got '$n'" >&2; exit 2 ;;
esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
src=$dir/p$n.cpp
[ "$compiler" = nvcc ] && src=$dir/p$n.cu
plan='s/^constexpr int kernels = .*/constexpr int kernels = 1;  \/\/ no plan/'
[ "$mode" = noplan ] || plan=
sh "$(dirname "$0")/generate.sh" "$n" | sed -e 's/^  prog.run.*//' -e "$plan" > "$src"
case $compiler in
  g++) set -- g++ -std=c++20 -O2 -fopenmp -fconstexpr-ops-limit=4294967296 --param=ggc-min-heapsize=1048576 ;;
  nvcc) set -- "${NVCC:-/usr/local/cuda/bin/nvcc}" -std=c++20 -O2 -Xcudafe=--max_cost_constexpr_call=1000000000 \
      -Xcompiler=-fconstexpr-ops-limit=4294967296 -Xcompiler=--param=ggc-min-heapsize=1048576 ;;
  *) echo "measure.sh: compiler: expected g++ or nvcc, got $compiler" >&2; exit 2 ;;
esac
/usr/bin/time -f "%U %S %e %M" -o "$dir/time" "$@" -Iinclude -c "$src" -o "$dir/p.o"
awk -v what="$n statements, $compiler${mode:+, $mode}" \
  '{printf "%s: CPU %.1f s  wall %.1f s  peak %d MB\n", what, $1 + $2, $3, $4 / 1024}' "$dir/time"
