"""The matrix's peers: torch eager and torch.compile on the cells of workloads.txt.

Each cell gets the inputs fusedsl's harness makes (input_bits in harness.hpp, the same
hash here), checks torch.compile's output against torch in float64 on them, then times
eager and compiled the way bench_matrix_cuda and bench_matrix_cpu time fusedsl:

  GPU: before each repetition an L2 flush (a fill of 4x the L2) and a wait on the GPU
       longer than the call's host dispatch, CUDA events around the call alone, the median of 100 after 10 warm-up calls; host time per call apart
       (the call, not waited for) and kernel launches per call (the profiler's count).
  CPU: wall time of the call, the median of 20 after 3 warm-up calls, with the threads
       given (--threads, as OMP_NUM_THREADS is for fusedsl; pin both with taskset).

torch.compile bakes the thread count into its C++ code and its cache does not key on it,
so the cache lives in a folder per device and thread count. --jobs N compiles the cells
in N worker processes first (the cache then serves the timing process).

  python3 peers.py --device cuda|cpu [--threads N] [--jobs N] [--quick] [--family F]
                   [--list FILE] [--tsv FILE [--resume]]
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
JEMALLOC = ["/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", os.path.join(HERE, "../../.devdeps/libjemalloc.so.2")]
SWEEP_COLUMNS = [3, 10, 64, 256, 1024, 4096, 32768, 262144]  # workloads.hpp's sweep_columns


def parse_size(text, where):
    m = re.fullmatch(r"2\^(\d+)|(\d{1,12})", text)
    if not m:
        raise SystemExit(f"{where}shape word {text!r}: expected digits or 2^K")
    return 1 << int(m.group(1)) if m.group(1) else int(m.group(2))


def parse_workloads(path):
    """The cells of the list as (family, dtype, shape tuple, quick, backend), as workloads.hpp reads them."""
    cells = []
    for number, raw in enumerate(open(path), 1):
        words = raw.split("#")[0].split()
        if not words:
            continue
        where = f"{path}:{number}: "
        family, dtype, rest = words[0], words[1], words[2:]
        quick, backend, shapes = False, "", []
        for w in rest:
            if w == "quick":
                quick = True
            elif w in ("cpu", "gpu"):
                backend = w
            elif w.startswith("cols(") and w.endswith(")"):
                total = parse_size(w[5:-1], where)
                shapes += [(total // c, c) for c in SWEEP_COLUMNS if total // c >= 1]
            else:
                shapes.append(tuple(parse_size(p, where) for p in w.split("x")))
        cells += [(family, dtype, s, quick, backend) for s in shapes]
    return cells


def shape_text(shape):
    return "x".join(str(s) for s in shape)


# ------------------------------------------------------------------ inputs (harness.hpp)

M32 = 0xFFFFFFFF


def input_bits(torch, n, seed, device):
    """lowbias32 of index + seed * 0x9E3779B9, as harness.hpp's input_bits (int64 arithmetic, masked)."""
    h = (torch.arange(n, dtype=torch.int64, device=device) + (seed * 0x9E3779B9 & M32)) & M32
    h ^= h >> 16
    h = (h * 0x7FEB352D) & M32
    h ^= h >> 15
    h = (h * 0x846CA68B) & M32
    h ^= h >> 16
    return h


def make_input(torch, shape, seed, dtype, device):
    """Input number `seed` of a cell (harness.hpp's input_tensor)."""
    n = math.prod(shape)
    h = input_bits(torch, n, seed, device)
    if dtype == torch.bool:
        t = (h >> 31) != 0
    elif not dtype.is_floating_point:
        t = (h % 40 - 20).to(dtype)
    else:
        t = ((h >> 8).to(torch.float64) * 2.0**-22 - 2.0).to(dtype)
    return t.reshape(shape)


# ------------------------------------------------------------------ families (families.hpp)


def families(torch):
    """name -> (inputs(shape, dtype) as [(shape, dtype)] in families.hpp's order, function)."""
    F = torch.nn.functional
    f32 = torch.float32

    def flat(s):
        return (math.prod(s),)

    def matrix(s):
        return s if len(s) == 2 else (1, s[0])

    def one(fn):
        return lambda s, t: [(flat(s), t)], fn

    def rows(fn):
        return lambda s, t: [(matrix(s), t)], fn

    def adam(g, p, m, v):
        m.copy_(0.9 * m + 0.1 * g)
        v.copy_(0.999 * v + 0.001 * g * g)
        p.sub_(1e-3 * m / (torch.sqrt(v) + 1e-8))
        return p, m, v

    def add_rmsnorm(x, r, w):
        s = x + r
        return s, F.rms_norm(s, (s.shape[1],), w, eps=1e-6)

    def masked_softmax(x, m):
        return torch.softmax(torch.where(m, x * 0.125, float("-inf")), dim=1)

    return {
        "exp": one(torch.exp),
        "gelu": one(F.gelu),
        "tanh": one(torch.tanh),
        "sigmoid": one(torch.sigmoid),
        "erf": one(torch.erf),
        "log": one(lambda x: torch.log(x.abs() + 1)),
        "scale": rows(lambda x: x * 2),
        "add_row": (lambda s, t: [(matrix(s), t), ((matrix(s)[1],), t)], lambda x, b: x + b),
        "add_col": (lambda s, t: [(matrix(s), t), ((matrix(s)[0], 1), t)], lambda x, c: x + c),
        "where_mask": (lambda s, t: [(matrix(s), t), (matrix(s), torch.bool)], lambda x, m: torch.where(m, x, 0)),
        "where_cmp": one(lambda x: torch.where(x > 0, torch.erf(x), x)),
        "downcast": (lambda s, t: [(flat(s), f32)], None),  # the cast's type is the cell's dtype: see function_of
        "int_chain": (
            lambda s, t: [(flat(s), t), (flat(s), t), (flat(s), torch.int32)],
            lambda x, y, z: ((x.to(torch.int32) + y) * z).to(torch.int64),
        ),
        "softmax": rows(lambda x: torch.softmax(x, dim=1)),
        "log_softmax": rows(lambda x: torch.log_softmax(x, dim=1)),
        "log_softmax_lse": rows(lambda x: x - torch.logsumexp(x, dim=1, keepdim=True)),
        "logsumexp": rows(lambda x: torch.logsumexp(x, dim=1)),
        "row_sum": rows(lambda x: x.sum(dim=1)),
        "column_sum": rows(lambda x: x.sum(dim=0)),
        "column_mean": rows(lambda x: x.mean(dim=0)),
        "column_var": rows(lambda x: x.var(dim=0, correction=0)),
        "column_center": rows(lambda x: x - x.mean(dim=0, keepdim=True)),
        "layernorm": (
            lambda s, t: [(matrix(s), t), ((matrix(s)[1],), t), ((matrix(s)[1],), t)],
            lambda x, w, b: F.layer_norm(x, (x.shape[1],), w, b, eps=1e-5),
        ),
        "rmsnorm": (
            lambda s, t: [(matrix(s), t), ((matrix(s)[1],), t)],
            lambda x, w: F.rms_norm(x, (x.shape[1],), w, eps=1e-6),
        ),
        "full_sum": one(lambda x: x.sum()),
        "masked_softmax": (lambda s, t: [(matrix(s), t), (matrix(s), torch.bool)], masked_softmax),
        "var_mean": rows(lambda x: torch.var_mean(x, dim=1)),
        "argmax": rows(lambda x: torch.argmax(x, dim=1)),
        "add_rmsnorm": (lambda s, t: [(matrix(s), t), (matrix(s), t), ((matrix(s)[1],), t)], add_rmsnorm),
        "horizontal": one(lambda x: (x * 2, x + 1, x.sum())),
        "adam": (lambda s, t: [(flat(s), t)] * 4, adam),
    }


def dtype_of(torch, name):
    return {"f64": torch.float64, "f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
            "i64": torch.int64, "i32": torch.int32}[name]


def cell_case(torch, fams, family, dtype_name, shape, device):
    """The cell's inputs (as harness.hpp makes them) and its function."""
    if family not in fams:
        raise SystemExit(f"peers.py: no family {family!r} (add it to families() beside families.hpp's)")
    dtype = dtype_of(torch, dtype_name)
    specs, fn = fams[family]
    if family == "downcast":
        fn = lambda x: x.to(dtype)  # noqa: E731
    inputs = [make_input(torch, s, i + 1, t, device) for i, (s, t) in enumerate(specs(shape, dtype))]
    if family == "adam":
        inputs[3] = inputs[3].abs()
    return inputs, fn


def outputs_of(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def digest(torch, t):
    """harness.hpp's output_digest: sum, sum of magnitudes (NaNs left out), four elements."""
    v = t.detach().reshape(-1).to(torch.float64)
    finite = v[~torch.isnan(v)]
    n = v.numel()
    picks = [v[0], v[n // 3], v[2 * n // 3], v[n - 1]]
    return ":".join(f"{float(x):.9g}" for x in [finite.sum(), finite.abs().sum(), *picks])


def max_rel_error(torch, actual, expected):
    a, e = actual.to(torch.float64), expected.to(torch.float64)
    both_nan = torch.isnan(a) & torch.isnan(e)
    err = ((a - e).abs() / e.abs().clamp(min=1.0)).masked_fill(both_nan, 0)
    return float(err.max()) if err.numel() else 0.0


def clones(inputs):
    return [x.clone() for x in inputs]


# ------------------------------------------------------------------ timing


# Clock cycles the GPU waits after the flush, before a timed call (cuda_harness.hpp's
# busy_cycles): about 0.5 ms, longer than any call's host dispatch, so that the call's
# kernels are queued before its start event and the events time the GPU alone.
BUSY_CYCLES = 1_000_000


def time_gpu(torch, fn, inputs, reps=100):
    """Median device ms (L2 flushed before each repetition, events around the call), median host us per call."""
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(4 * l2, dtype=torch.uint8, device="cuda")
    for _ in range(10):
        fn(*inputs)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    device_ms, host_us = [], []
    for i in range(reps):
        flush.fill_(i & 0xFF)
        torch.cuda._sleep(BUSY_CYCLES)
        start.record()
        t0 = time.perf_counter()
        fn(*inputs)
        host_us.append((time.perf_counter() - t0) * 1e6)
        stop.record()
        stop.synchronize()
        device_ms.append(start.elapsed_time(stop))
    return statistics.median(device_ms), statistics.median(host_us)


def launches_gpu(torch, fn, inputs):
    """Kernels one call launches, as the profiler counts them."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*inputs)
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type.name == "CUDA" and "memset" not in e.name.lower()
               and "memcpy" not in e.name.lower())


def time_cpu(fn, inputs, reps=20):
    for _ in range(3):
        fn(*inputs)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(*inputs)
        times.append((time.perf_counter() - t0) * 1e3)
    ms = statistics.median(times)
    return ms, ms * 1e3


def copy_gbs(torch, device):
    """The copy bandwidth, measured as fusedsl's harnesses measure it (read plus written bytes)."""
    if device == "cuda":
        n = 1 << 30
        a, b = torch.ones(n, dtype=torch.uint8, device="cuda"), torch.empty(n, dtype=torch.uint8, device="cuda")
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t = []
        for i in range(30):
            start.record()
            b.copy_(a)
            stop.record()
            stop.synchronize()
            if i >= 5:
                t.append(start.elapsed_time(stop))
        return 2 * n / (statistics.median(t) * 1e6)
    n = 32 << 20
    a, b = torch.ones(n, dtype=torch.float64), torch.empty(n, dtype=torch.float64)
    ms, _ = time_cpu(lambda: b.copy_(a), [])
    return 2 * n * 8 / (ms * 1e6)


# ------------------------------------------------------------------ main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", choices=["cuda", "cpu"])
    ap.add_argument("--cells", action="store_true", help="only list the list's cells, as the C++ side's --cells does")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (CPU)")
    ap.add_argument("--jobs", type=int, default=1, help="compile in this many worker processes first")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--family", default="")
    ap.add_argument("--list", default=os.path.join(HERE, "workloads.txt"))
    ap.add_argument("--tsv", default="")
    ap.add_argument("--resume", action="store_true", help="keep the rows --tsv has, measure the rest")
    ap.add_argument("--compile-only", action="store_true", help="only fill the compile cache (with --jobs)")
    ap.add_argument("--shard", default="", help=argparse.SUPPRESS)  # I/N: a compile worker's share
    args = ap.parse_args()
    if args.cells:
        for family, dtype, shape, quick, backend in parse_workloads(args.list):
            print(f"{family} {dtype} {shape_text(shape)} {backend or 'any'}{' quick' if quick else ''}")
        return
    if not args.device:
        ap.error("--device cuda|cpu is required")
    threads = args.threads or os.cpu_count()
    tag = f"{args.device}-t{threads}"
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join("/tmp", f"fusedsl-peers-inductor-{tag}"))
    os.environ["OMP_NUM_THREADS"] = str(threads)

    # torch allocates its outputs and temporaries on every call; glibc maps (and the kernel
    # zeroes) each one over 32 MiB afresh, which fusedsl's preallocated outputs never pay
    # (eager Adam over 4M floats: 34 ms against 4.1 ms). jemalloc that never hands memory
    # back is the allocator warmed: preload it when it is there (tools/setup-debian).
    allocator = "glibc malloc"
    if args.device == "cpu":
        jemalloc = next((p for p in JEMALLOC if os.path.exists(p)), "")
        if jemalloc and jemalloc not in os.environ.get("LD_PRELOAD", ""):
            os.environ["LD_PRELOAD"] = jemalloc
            os.environ["MALLOC_CONF"] = "dirty_decay_ms:-1,muzzy_decay_ms:-1"
            os.execv(sys.executable, [sys.executable] + sys.argv)
        allocator = "jemalloc, memory kept" if jemalloc else allocator

    backend = "gpu" if args.device == "cuda" else "cpu"
    cells = [c for c in parse_workloads(args.list)
             if (not args.quick or c[3]) and (not args.family or c[0] == args.family) and c[4] in ("", backend)]

    resuming = args.resume and args.tsv and os.path.exists(args.tsv)
    if resuming:  # the file's cells are kept: neither compiled nor measured again
        done = {tuple(line.split("\t")[:3]) for line in open(args.tsv).read().splitlines()[2:] if line.strip()}
        cells = [c for c in cells if (c[0], c[1], shape_text(c[2])) not in done]

    if args.jobs > 1 and not args.shard and cells:
        base = [sys.executable, __file__, "--device", args.device, "--threads", str(threads), "--list", args.list]
        base += ["--quick"] if args.quick else []
        base += ["--family", args.family] if args.family else []
        base += ["--tsv", args.tsv, "--resume"] if resuming else []
        # One compile thread per worker: the workers are the parallelism.
        env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="1")
        workers = [subprocess.Popen(base + ["--shard", f"{i}/{args.jobs}"], env=env) for i in range(args.jobs)]
        failed = [w.wait() for w in workers]
        if any(failed):
            raise SystemExit("peers.py: a compile worker failed")
    if args.compile_only:
        return

    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    import torch._dynamo

    torch._dynamo.config.cache_size_limit = 4096
    fams = families(torch)
    device = args.device

    if args.shard:  # compile only: the cache serves the timing process
        i, n = (int(v) for v in args.shard.split("/"))
        for family, dtype, shape, _, _ in cells[i::n]:
            t0 = time.perf_counter()
            inputs, fn = cell_case(torch, fams, family, dtype, shape, device)
            torch.compile(fn, fullgraph=True, dynamic=False)(*clones(inputs))
            print(f"peers.py: worker {i}: compiled {family} {dtype} {shape_text(shape)} in "
                  f"{time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        return

    import triton  # noqa: F401  (its version goes in the header)

    copy = copy_gbs(torch, device)
    where = torch.cuda.get_device_name(0) if device == "cuda" else f"the CPU, {threads} threads, {allocator}"
    head = (f"# torch {torch.__version__}, triton {triton.__version__}, {where}; copy GB/s {copy:.2f}; "
            f"{time.strftime('%Y-%m-%d')}; {' '.join(sys.argv)}")
    columns = ("family\tdtype\tshape\teager_ms\tcompile_ms\teager_host_us\tcompile_host_us\teager_launches"
               "\tcompile_launches\tmax_rel\tdigest")
    # Rows go out as they are measured; --resume keeps a file's rows and measures the rest.
    if resuming:
        out = open(args.tsv, "a")
    else:
        out = open(args.tsv, "w") if args.tsv else None
        if out:
            out.write(head + "\n" + columns + "\n")
    print(head)
    print("| family | dtype | shape | eager ms | compile ms | compile host us | launches | max rel err vs f64 |")
    print("|---|---|---|---|---|---|---|---|")
    for family, dtype, shape, _, _ in cells:
        inputs, fn = cell_case(torch, fams, family, dtype, shape, device)
        compiled = torch.compile(fn, fullgraph=True, dynamic=False)
        # Correctness first: torch.compile against torch in float64 on the same inputs.
        got = outputs_of(compiled(*clones(inputs)))
        wide = [x.to(torch.float64) if x.is_floating_point() else x for x in clones(inputs)]
        want = outputs_of(fn(*wide)) if family != "downcast" else outputs_of(fn(inputs[0]))
        err = max(max_rel_error(torch, g, w) for g, w in zip(got, want))
        dig = ";".join(digest(torch, g) for g in got)
        timed = clones(inputs)  # adam updates its inputs in place: time on copies
        if device == "cuda":
            eager_ms, eager_us = time_gpu(torch, fn, timed)
            compile_ms, compile_us = time_gpu(torch, compiled, timed)
            eager_n, compile_n = -1, launches_gpu(torch, compiled, timed)  # eager's: not needed, and slow to count
        else:
            eager_ms, eager_us = time_cpu(fn, timed)
            compile_ms, compile_us = time_cpu(compiled, timed)
            eager_n = compile_n = -1
        print(f"| {family} | {dtype} | {shape_text(shape)} | {eager_ms:.4f} | {compile_ms:.4f} | {compile_us:.1f} "
              f"| {compile_n} | {err:.2e} |", flush=True)
        if out:
            out.write(f"{family}\t{dtype}\t{shape_text(shape)}\t{eager_ms:.6f}\t{compile_ms:.6f}\t{eager_us:.2f}"
                      f"\t{compile_us:.2f}\t{eager_n}\t{compile_n}\t{err:.3e}\t{dig}\n")
            out.flush()
        del inputs, timed, got, want, wide
        if device == "cuda":
            torch.cuda.empty_cache()
    if out:
        out.close()


if __name__ == "__main__":
    main()
