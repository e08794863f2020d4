#!/bin/sh
# Compile time of a generated program of N statements (argument 1) whose plan is
# computed while compiling, with g++ or nvcc (argument 2), without `prog.run`
# (which instantiates the CPU kernels on top). With `noplan` (argument 3) the
# plan is not computed (kernels = 1): the cost of the program alone, for comparison.
# Run from the repository root.
# Prints CPU seconds (user + system), wall seconds and peak memory. With nvcc and
# PHASES=1 in the environment, also the CPU seconds of each of nvcc's steps (its
# front ends cudafe++ and cicc, and the host compiler "gcc -c"), run one by one as
# `nvcc --dryrun` lists them, since `nvcc --time` reports wall time only.
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
  nvcc) set -- "${NVCC:-nvcc}" -std=c++20 -O2 -Xcudafe=--max_cost_constexpr_call=1000000000 \
      -Xcompiler=-fconstexpr-ops-limit=4294967296 -Xcompiler=--param=ggc-min-heapsize=1048576 ;;
  *) echo "measure.sh: compiler: expected g++ or nvcc, got $compiler" >&2; exit 2 ;;
esac
/usr/bin/time -f "%U %S %e %M" -o "$dir/time" "$@" -Iinclude -c "$src" -o "$dir/p.o"
awk -v what="$n statements, $compiler${mode:+, $mode}" \
  '{printf "%s: CPU %.1f s  wall %.1f s  peak %d MB\n", what, $1 + $2, $3, $4 / 1024}' "$dir/time"
if [ "$compiler" = nvcc ] && [ -n "${PHASES:-}" ]; then
  "$@" -I"$PWD/include" -c "$src" -o "$dir/p.o" --dryrun 2>&1 | sed -n 's/^#\$ //p' | awk -v out="$dir/phases" '
    /^[A-Za-z_]+=[^ "]*$/ { print "export " $0; next }  # the variables nvcc sets for its steps (PATH, CICC_PATH, ...)
    /^[A-Za-z_]+=/ { next }                            # lists nvcc itself expands into the steps
    { n = $1; sub(/.*\//, "", n); gsub(/"/, "", n); if (n == "gcc" && / -E /) n = "gcc -E"; else if (n == "gcc") n = "gcc -c"
      print "/usr/bin/time -a -o " out " -f \"" n ":%U:%S\" " $0 }' > "$dir/steps.sh"
  (cd "$dir" && sh steps.sh > steps.log 2>&1) || { cat "$dir/steps.log" >&2; exit 1; }
  awk -F: 'NF == 3 { t[$1] += $2 + $3; all += $2 + $3 }  # other lines: a step'"'"'s exit status
    END { printf "  CPU s by step: cudafe++ %.1f  cicc %.1f  host gcc -c %.1f  other %.1f\n",
                 t["cudafe++"], t["cicc"], t["gcc -c"], all - t["cudafe++"] - t["cicc"] - t["gcc -c"] }' "$dir/phases"
fi
