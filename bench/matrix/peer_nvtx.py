"""torch.compile's kernels of the given cells under a profiler: each cell's compiled function
(peers.py's inputs and function) is called three times, then once inside an NVTX range
"prof", so that `ncu --nvtx --nvtx-include prof/` profiles that call's kernels alone.

  ncu --nvtx --nvtx-include prof/ [--section ...] python3 peer_nvtx.py FAMILY:DTYPE:SHAPE...

e.g. softmax:f32:16384x1024 (a shape as in workloads.txt, ROWSxCOLUMNS or N).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
import torch  # noqa: E402


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    fams = peers.families(torch)
    for spec in sys.argv[1:]:
        parts = spec.split(":")
        if len(parts) != 3:
            raise SystemExit(f"peer_nvtx.py: {spec!r}: expected FAMILY:DTYPE:SHAPE, e.g. softmax:f32:16384x1024")
        family, dtype, shape = parts
        dims = tuple(peers.parse_size(d, f"{spec}: ") for d in shape.split("x"))
        inputs, fn = peers.cell_case(torch, fams, family, dtype, dims, "cuda")
        compiled = torch.compile(fn, fullgraph=True)
        for _ in range(3):
            compiled(*inputs)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("prof")
        compiled(*inputs)
        torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        print("profiled", spec, flush=True)


if __name__ == "__main__":
    main()
