#!/bin/sh
# Compile time of a generated program of N statements (argument 1) whose plan is
# computed while compiling, with g++ or nvcc (argument 2), without `prog.run`
# (which instantiates the CPU kernels on top). Run from the repository root.
# Prints: statements, compiler, CPU seconds (user + system), wall seconds, peak KB.
set -eu
n=$1
compiler=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
src=$dir/p$n.cpp
[ "$compiler" = nvcc ] && src=$dir/p$n.cu
sh "$(dirname "$0")/generate.sh" "$n" | sed 's/^  prog.run.*//' > "$src"
case $compiler in
  g++) set -- g++ -std=c++20 -O2 -fopenmp -fconstexpr-ops-limit=4294967296 ;;
  nvcc) set -- "${NVCC:-/usr/local/cuda/bin/nvcc}" -std=c++20 -O2 -Xcudafe=--max_cost_constexpr_call=1000000000 \
      -Xcompiler=-fconstexpr-ops-limit=4294967296 ;;
  *) echo "measure.sh: compiler: expected g++ or nvcc, got $compiler" >&2; exit 2 ;;
esac
/usr/bin/time -f "$n $compiler %U %S %e %M" -o "$dir/time" "$@" -Iinclude -c "$src" -o "$dir/p.o"
awk '{printf "%s statements  %s  CPU %.1f s  wall %.1f s  peak %d MB\n", $1, $2, $3 + $4, $5, $6 / 1024}' "$dir/time"
