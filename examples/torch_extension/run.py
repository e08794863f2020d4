"""Builds the fusedsl PyTorch extension (torch.utils.cpp_extension) and runs it.

softmax(x * scale) over the last axis and the row maxima, one fusedsl kernel each,
called on CPU tensors and, when PyTorch sees a GPU and nvcc is found, on CUDA
tensors. Checks the results against torch.softmax (a row-major and a transposed
input) and torch.amax (a tensor fusedsl allocates, handed to PyTorch), checks that
a wrong dtype is refused with fusedsl's message, and prints the time per call next
to eager PyTorch's. Exits non-zero when a check fails.

    python3 examples/torch_extension/run.py [--build-dir DIR]
"""
import argparse
import os
import pathlib
import shutil
import sys
import time

import torch
from torch.utils import cpp_extension

HERE = pathlib.Path(__file__).resolve().parent
INCLUDE = HERE.parent.parent / "include"


def build(build_dir, with_cuda):
    """The extension module: C++20, OpenMP, fusedsl's headers; cuda.cu when asked."""
    sources = [str(HERE / "cpu.cpp")]
    cxx = ["-std=c++20", "-O2", "-fopenmp", "-fconstexpr-ops-limit=4294967296"]
    cuda = []
    if with_cuda:
        sources.append(str(HERE / "cuda.cu"))
        cxx.append("-DFUSEDSL_TORCH_CUDA")
        cuda = ["-std=c++20", "-O2", "--expt-relaxed-constexpr", "-Xcompiler=-fopenmp",
                "-Xcudafe=--max_cost_constexpr_call=1000000000", "-Xcompiler=-fconstexpr-ops-limit=4294967296",
                # torch's flags undefine these; fusedsl's half and bfloat16 do not need them
                "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
                "-U__CUDA_NO_BFLOAT16_CONVERSIONS__", "-U__CUDA_NO_HALF2_OPERATORS__"]
    os.makedirs(build_dir, exist_ok=True)
    started = time.perf_counter()
    module = cpp_extension.load(name="fusedsl_torch_example", sources=sources, extra_include_paths=[str(INCLUDE)],
                                extra_cflags=cxx, extra_cuda_cflags=cuda, extra_ldflags=["-fopenmp"],
                                build_directory=build_dir, verbose=False)
    print(f"built the extension ({'CPU and CUDA' if with_cuda else 'CPU'}) in {time.perf_counter() - started:.0f} s")
    return module


def time_per_call(fn, device, repeats=50):
    """Median seconds per call, synchronizing CUDA around each one."""
    times = []
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        started = time.perf_counter()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def check(module, device):
    """Every check on one device; returns the number of failures."""
    failures = 0
    torch.manual_seed(0)
    scale = 0.125
    for name, x in [("row-major 4096x1000", torch.randn(4096, 1000, device=device)),
                    ("transposed 1000x4096 view", torch.randn(4096, 1000, device=device).t())]:
        got = module.scaled_softmax(x, scale)
        want = torch.softmax(x.double() * scale, dim=-1).float()
        error = (got - want).abs().max().item()
        ok = error < 1e-6
        failures += not ok
        print(f"  {device} {name}: max |fusedsl - torch| = {error:.2e} {'ok' if ok else 'FAILED'}")
    x = torch.randn(1000, 777, device=device)
    maxima = module.row_max(x)
    ok = maxima.device == x.device and torch.equal(maxima, x.amax(dim=1))
    failures += not ok
    print(f"  {device} row_max into a tensor fusedsl allocated, handed over by DLPack: "
          f"{'equal to torch.amax' if ok else 'differs FAILED'}")
    try:
        module.scaled_softmax(torch.ones(2, 3, dtype=torch.float64, device=device))
        print(f"  {device} float64 input: accepted, expected a refusal FAILED")
        failures += 1
    except RuntimeError as e:
        ok = "holds float64 elements, expected float32" in str(e)
        failures += not ok
        print(f"  {device} float64 input refused: {str(e).splitlines()[0]} {'ok' if ok else 'FAILED'}")
    x = torch.randn(8192, 1024, device=device)
    fused = time_per_call(lambda: module.scaled_softmax(x, scale), device)
    eager = time_per_call(lambda: torch.softmax(x * scale, dim=-1), device)
    # Wall time per call from Python, allocation of the output included (not the matrix's
    # device-time harness: bench/RESULTS.md has the fair comparison).
    print(f"  {device} 8192x1024, median wall time per call{' (synchronized)' if device == 'cuda' else ''}: "
          f"fusedsl {fused * 1e3:.3f} ms, eager PyTorch {eager * 1e3:.3f} ms")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=str(pathlib.Path.cwd() / "torch_extension_build"))
    args = parser.parse_args()
    with_cuda = torch.cuda.is_available() and shutil.which("nvcc") is not None
    print(f"torch {torch.__version__}, CUDA {'available' if with_cuda else 'not used'}")
    module = build(args.build_dir, with_cuda)
    failures = check(module, "cpu") + (check(module, "cuda") if with_cuda else 0)
    print("all checks passed" if failures == 0 else f"{failures} checks FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
