"""PyTorch eager and torch.compile on bench_cuda's workloads and inputs.

Reads bench_cuda's output (argv[1]), times the same workloads in PyTorch,
compares checksums, and prints the table: workload, ms (median of 30 runs,
CUDA events), % of the copy bandwidth measured by bench_cuda in the same run,
and fusedsl / torch.compile speed ratio (> 1: fusedsl faster).
"""
import math
import sys

import torch


def inputs(n, seed, positive=False, dtype=torch.float32):
    s = torch.sin(torch.arange(n, dtype=torch.float64, device="cuda") * 0.37 + seed)
    return (0.5 + 0.4 * s if positive else 2.0 * s).to(dtype)


def median_ms(f):
    for _ in range(5):
        f()
    times = []
    for _ in range(30):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]


def main():
    lines = open(sys.argv[1]).read().split("\n")
    copy = [l.split() for l in lines if l.startswith("copy ")][0]
    copy_bw = float(copy[2]) / (float(copy[1]) * 1e-3)
    fusedsl = {}
    for l in lines:
        if l.startswith("fusedsl "):
            _, name, ms, nbytes, checksum, unfused = l.split()
            fusedsl[name] = (float(ms), float(nbytes), float(checksum), float(unfused))

    rows, cols, flat = 32768, 4096, 1 << 26
    x = inputs(rows * cols, 4).view(rows, cols)
    w, bias = inputs(cols, 5), inputs(cols, 6)

    def adam_step(g, p, m, v, lr):
        m.mul_(0.9).add_(0.1 * g)
        v.mul_(0.999).add_(0.001 * g * g)
        p.sub_(lr * m / (torch.sqrt(v) + 1e-8))

    work = {
        "pointwise_f32": (lambda a, b, c: torch.exp(a) * b + c, [inputs(flat, i) for i in (1, 2, 3)]),
        "pointwise_bf16": (lambda a, b, c: torch.exp(a) * b + c, [inputs(flat, i, dtype=torch.bfloat16) for i in (1, 2, 3)]),
        "softmax": (lambda x: torch.softmax(x, dim=1), [x]),
        "layernorm": (lambda x, w, b: torch.nn.functional.layer_norm(x, (cols,), w, b, 1e-5), [x, w, bias]),
        "rmsnorm": (lambda x, w: x * torch.rsqrt(torch.mean(x * x, dim=1, keepdim=True) + 1e-6) * w, [x, w]),
        "bias_gelu": (lambda x, b: torch.nn.functional.gelu(x + b), [x, bias]),
        "row_sum": (lambda x: torch.sum(x, dim=1), [x]),
        "column_sum": (lambda x: torch.sum(x, dim=0), [x]),
        "full_sum": (lambda v: torch.sum(v), [inputs(1 << 28, 7)]),
        "horizontal": (lambda x: (x * 2, x + 1, torch.sum(x, dim=1)), [x]),
    }
    results = []
    ok = True
    for name, (f, args) in work.items():
        compiled = torch.compile(f)
        out = f(*args)
        outs = out if isinstance(out, tuple) else (out,)
        checksum = sum(float(o.double().sum()) for o in outs)
        cout = compiled(*args)
        couts = cout if isinstance(cout, tuple) else (cout,)
        for o, co in zip(outs, couts):
            assert torch.allclose(o.float(), co.float(), rtol=1e-2, atol=1e-2), name + ": torch.compile differs from eager"
        results.append((name, median_ms(lambda: f(*args)), median_ms(lambda: compiled(*args)), checksum))
    n = 1 << 25
    g = inputs(n, 8)
    state = [inputs(n, 9), inputs(n, 10), inputs(n, 11, positive=True)]
    adam_step(g, *state, 1e-3)
    checksum = float(state[0].double().sum())
    compiled_adam = torch.compile(adam_step)
    eager_ms = median_ms(lambda: adam_step(g, *state, 1e-3))
    compiled_ms = median_ms(lambda: compiled_adam(g, *state, 1e-3))
    results.append(("adam", eager_ms, compiled_ms, checksum))

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, copy bandwidth {copy_bw / 1e9:.0f} GB/s")
    print(f"| workload | fusedsl ms | % copy bw | eager ms | torch.compile ms | % copy bw | fusedsl / compile speed | checksum rel. diff | vs unfused |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, eager_ms, compiled_ms, checksum in results:
        ms, nbytes, fx_sum, unfused = fusedsl.get(name, (math.nan, math.nan, math.nan, math.nan))
        rel = abs(fx_sum - checksum) / max(1.0, abs(checksum))
        good = rel < 1e-3 and unfused < 1e-4
        ok = ok and good
        bw = lambda t: 100 * nbytes / (t * 1e-3) / copy_bw
        print(f"| {name} | {ms:.4f} | {bw(ms):.0f}% | {eager_ms:.4f} | {compiled_ms:.4f} | {bw(compiled_ms):.0f}% | "
              f"{compiled_ms / ms:.3f}x | {rel:.1e}{'' if good else ' MISMATCH'} | {unfused:.1e} |")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
