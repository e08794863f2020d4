#!/usr/bin/env python3
"""Record what PyTorch Inductor's Scheduler.fuse_nodes receives and returns, in the
dump format that fusedsl-schedule --inductor reads (docs/inductor.md).

As a module:

    import dump_fuse_nodes
    with dump_fuse_nodes.recording("dumps", "my_model"):
        torch.compile(model)(x).sum().backward()

writes dumps/my_model_1.json, my_model_2.json, ... one per fuse_nodes call (a forward
and a backward graph are two). As a script it compiles the workloads below:

    python3 dump_fuse_nodes.py --out DIR [--device cuda|cpu] [--only NAME,...]

Every field comes from Inductor's own objects; nothing here decides a fusion.
"""

import argparse
import contextlib
import json
import os
import time
import traceback

import torch
import torch._inductor.config as inductor_config
import torch._inductor.scheduler as sched

# The fusion-related options recorded under "config", by dotted name; one a version
# lacks is left out.
CONFIG_OPTIONS = [
    "aggressive_fusion", "max_fusion_size", "max_fusion_unique_io_buffers",
    "max_fusion_buffer_group_pairwise_attempts", "score_fusion_memory_threshold",
    "small_memory_access_threshold", "min_overlap_ratio", "loop_ordering_after_fusion",
    "loop_index_inversion_in_fusion", "expand_dimension_for_pointwise_nodes",
    "triton.mix_order_reduction", "epilogue_fusion", "epilogue_fusion_first",
    "prologue_fusion", "benchmark_fusion", "benchmark_epilogue_fusion", "combo_kernels",
    "triton.tiling_prevents_pointwise_fusion", "triton.tiling_prevents_reduction_fusion",
    "cpp.max_horizontal_fusion_size", "cpu_backend", "cuda_backend",
    "realize_acc_reads_size_threshold", "realize_acc_reads_threshold",
    "realize_opcount_threshold", "realize_reads_threshold",
]


def _option(name):
    obj = inductor_config
    for part in name.split("."):
        if not hasattr(obj, part):
            raise AttributeError(name)
        obj = getattr(obj, part)
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return str(obj)


def _config():
    out = {}
    for name in CONFIG_OPTIONS:
        try:
            out[name] = _option(name)
        except AttributeError:
            pass
    return out


def _plain(value):
    """Tuples become lists and sizes decimal strings, as the format has them."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return str(value)


def _dep(dep):
    kind = type(dep).__name__
    out = {"kind": kind, "buffer": dep.name}
    if kind == "MemoryDep":
        out["index"] = str(dep.index)
        out["size"] = [str(s) for s in dep.size]
        out["var_names"] = [str(v) for v in dep.var_names]
    if kind == "WeakDep":
        out["mutating_buf"] = dep.mutating_buf
    try:
        out["bytes"] = int(dep.numbytes_hint())
    except Exception:
        pass
    return out


def _users(node):
    names = set()
    for buf in node.get_outputs():
        for use in buf.users:
            names.add(use.get_name())
    return sorted(names)


def _dtype(node):
    try:
        return str(node.node.get_dtype())
    except Exception:
        return None


def _node(node):
    extern = isinstance(node, sched.ExternKernelSchedulerNode)
    nop = isinstance(node, sched.NopKernelSchedulerNode)
    foreach = isinstance(node, sched.ForeachKernelSchedulerNode)
    out = {
        "name": node.get_name(),
        "type": type(node).__name__,
        "reduction": bool(node.is_reduction()),
        "template": bool(node.is_template()),
        "extern": extern,
        "foreach": foreach,
    }
    device = node.get_device()
    if device is not None:
        out["device"] = str(device)
    if not extern and not nop and getattr(node, "group", None) is not None:
        device_of_group, sizes = node.group
        out["group"] = [str(device_of_group), _plain(sizes)]
    out["reads"] = [_dep(d) for d in node.read_writes.reads]
    out["writes"] = [_dep(d) for d in node.read_writes.writes]
    out["unmet"] = [d.name for d in node.unmet_dependencies]
    out["users"] = _users(node)
    out["buffers"] = list(node.get_buffer_names())
    out["ancestors"] = sorted(node.ancestors)
    dtype = _dtype(node)
    if dtype is not None:
        out["dtype"] = dtype
    out["min_order"] = node.min_order
    out["max_order"] = node.max_order
    if hasattr(node, "snodes") and not isinstance(node, sched.SchedulerNode):
        out["members"] = [_node(m) for m in node.snodes]
    return out


def _graph_outputs():
    from torch._inductor.virtualized import V
    try:
        return sorted(V.graph.get_output_names())
    except Exception:
        return []


class _Recorder:
    def __init__(self, folder, workload):
        self.folder = folder
        self.workload = workload
        self.count = 0
        self.errors = []


_active = None
_original_fuse_nodes = sched.Scheduler.fuse_nodes


def _recording_fuse_nodes(self, nodes):
    recorder = _active
    if recorder is None:
        return _original_fuse_nodes(self, nodes)
    try:
        before = {
            "workload": recorder.workload,
            "torch": torch.__version__,
            "torch_version": torch.__version__,
            "config": _config(),
            "outputs": _graph_outputs(),
            "nodes": [_node(n) for n in nodes],
        }
    except Exception:
        recorder.errors.append(traceback.format_exc())
        before = None
    start = time.perf_counter()
    result = _original_fuse_nodes(self, nodes)
    elapsed_ms = (time.perf_counter() - start) * 1000.0
    if before is not None:
        recorder.count += 1
        before["fuse_nodes_ms"] = elapsed_ms
        before["fused_groups"] = [[n.get_name() for n in group.get_nodes()] for group in result]
        path = os.path.join(recorder.folder, f"{recorder.workload}_{recorder.count}.json")
        with open(path, "w") as f:
            json.dump(before, f)
    return result


@contextlib.contextmanager
def recording(folder, workload):
    """Writes a dump for every fuse_nodes call inside the block."""
    global _active
    os.makedirs(folder, exist_ok=True)
    sched.Scheduler.fuse_nodes = _recording_fuse_nodes
    _active = _Recorder(folder, workload)
    try:
        yield _active
    finally:
        recorder, _active = _active, None
        sched.Scheduler.fuse_nodes = _original_fuse_nodes
        for error in recorder.errors:
            print(f"{workload}: a node could not be recorded:\n{error}")
