#!/bin/bash
# The CUDA benchmark in one run on the GPU machine: builds bench_cuda (and the
# g++ static_asserts that the required workloads are one kernel), runs it,
# runs the same workloads in PyTorch eager and torch.compile, checks the
# results and prints the table (bench/RESULTS.md, "CUDA kernels").
# Usage, from the repository root: bench/cuda/run.sh [build-dir]
set -euo pipefail
build=${1:-build-bench-cuda}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFUSEDSL_BUILD_TESTS=OFF -DFUSEDSL_BUILD_EXAMPLES=OFF \
  -DFUSEDSL_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" --target bench_cuda bench_cuda_programs
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
"$build"/bench/cuda/bench_cuda | tee "$build/bench_cuda.txt"
PYTHONUNBUFFERED=1 python3 bench/cuda/bench.py "$build/bench_cuda.txt"
