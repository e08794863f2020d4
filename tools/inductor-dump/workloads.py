#!/usr/bin/env python3
"""Compiles workloads shaped like real models with torch.compile and records every
Inductor fuse_nodes call as a dump (dump_fuse_nodes.py):

    python3 tools/inductor-dump/workloads.py --out DIR [--device cuda|cpu] [--only a,b]

Training steps of a small GPT (fused qkv projection split into slices, causal
softmax, layernorm, gelu, dropout, cross-entropy), a convolution net with batch norm,
an MLP with rmsnorm, foreach Adam and AdamW steps, normalization backwards at sizes
where Inductor mixes row and column reductions, and row-reduction programs.
"""

import argparse
import os
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dump_fuse_nodes  # noqa: E402


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5)
        causal = torch.ones(t, t, device=x.device, dtype=torch.bool).tril()
        att = F.dropout(att.masked_fill(~causal, float("-inf")).softmax(-1), 0.1, self.training)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + F.dropout(self.proj(y), 0.1, self.training)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self, vocab, d, heads, layers, t):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(t, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx, targets):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def gpt_train(device, layers):
    vocab, d, heads, t, b = (1024, 256, 4, 128, 8) if device == "cuda" else (512, 128, 4, 64, 2)
    model = GPT(vocab, d, heads, layers, t).to(device)
    idx = torch.randint(0, vocab, (b, t), device=device)
    loss = torch.compile(model)(idx, idx)
    loss.backward()


def convnet_train(device):
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1, stride=2), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).to(device)
    x = torch.randn(16 if device == "cuda" else 4, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (x.shape[0],), device=device)
    F.cross_entropy(torch.compile(model)(x), y).backward()


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def mlp_rmsnorm_train(device):
    d = 512 if device == "cuda" else 128
    layers = []
    for _ in range(4):
        layers += [RMSNorm(d), nn.Linear(d, 2 * d), nn.SiLU(), nn.Linear(2 * d, d)]
    model = nn.Sequential(*layers).to(device)
    x = torch.randn(1024 if device == "cuda" else 64, d, device=device)
    torch.compile(model)(x).square().mean().backward()


def optimizer_step(device, cls, **options):
    params = [torch.randn(s, device=device, requires_grad=True)
              for s in [(256, 256), (688, 256), (256, 688), (64,), (1000,), (256,), (3, 5, 7)]]
    for p in params:
        p.grad = torch.randn_like(p)
    opt = cls(params, lr=1e-3, **options)

    @torch.compile
    def step():
        opt.step()

    step()


def norm_backward(device, rows, cols, kind):
    x = torch.randn(rows, cols, device=device, requires_grad=True)
    w = torch.randn(cols, device=device, requires_grad=True)
    b = torch.randn(cols, device=device, requires_grad=True)

    def layernorm(x, w, b):
        return F.layer_norm(x, (cols,), w, b)

    def rmsnorm(x, w, b):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w + b

    f = torch.compile(layernorm if kind == "layernorm" else rmsnorm)
    f(x, w, b).backward(torch.randn(rows, cols, device=device))


def rows_program(device, kind, rows, cols):
    x = torch.randn(rows, cols, device=device)
    mask = torch.rand(rows, cols, device=device) > 0.1
    programs = {
        "masked_softmax": lambda x: torch.where(mask, x * 0.125, float("-inf")).softmax(-1),
        "log_softmax_lse": lambda x: x - torch.logsumexp(x, -1, keepdim=True),
        "var_mean_center": lambda x: (x - x.mean(0)) / torch.var_mean(x, -1, keepdim=True)[0].add(1e-5).sqrt(),
        "residual_rmsnorm_bf16": lambda x: (lambda h: (h.float() * torch.rsqrt(h.float().pow(2).mean(-1, keepdim=True) + 1e-6)).to(torch.bfloat16))(x.to(torch.bfloat16) + x.to(torch.bfloat16)),
        "argmax_softmax": lambda x: (x.softmax(-1), x.argmax(-1)),
    }
    torch.compile(programs[kind])(x)


def workloads(device):
    out = {
        "gpt2_train": lambda: gpt_train(device, 2),
        "gpt4_train": lambda: gpt_train(device, 4),
        "gpt12_train": lambda: gpt_train(device, 12),
        "convnet_train": lambda: convnet_train(device),
        "mlp_rmsnorm_train": lambda: mlp_rmsnorm_train(device),
        "adam_foreach": lambda: optimizer_step(device, torch.optim.Adam, foreach=True),
        "adamw_foreach": lambda: optimizer_step(device, torch.optim.AdamW, foreach=True, weight_decay=0.01),
        "sgd_momentum_foreach": lambda: optimizer_step(device, torch.optim.SGD, foreach=True, momentum=0.9),
    }
    sizes = [(16384, 1024), (4096, 768), (512, 4096)] if device == "cuda" else [(256, 1024), (4096, 64)]
    for rows, cols in sizes:
        for kind in ("layernorm", "rmsnorm"):
            out[f"{kind}_bwd_{rows}x{cols}"] = (lambda r, c, k: lambda: norm_backward(device, r, c, k))(rows, cols, kind)
    for kind in ("masked_softmax", "log_softmax_lse", "var_mean_center", "residual_rmsnorm_bf16", "argmax_softmax"):
        out[kind] = (lambda k: lambda: rows_program(device, k, 2048, 1024))(kind)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    # Every graph compiled anew: a cached graph skips the scheduler.
    import torch._inductor.config as inductor_config
    inductor_config.force_disable_caches = True
    torch.manual_seed(0)
    chosen = [w for w in args.only.split(",") if w]
    for name, run in workloads(args.device).items():
        if chosen and name not in chosen:
            continue
        prefix = f"{args.device}_{name}"
        torch._dynamo.reset()
        start = time.time()
        try:
            with dump_fuse_nodes.recording(args.out, prefix) as recorder:
                run()
            print(f"{prefix}: {recorder.count} dumps in {time.time() - start:.1f} s", flush=True)
        except Exception:
            print(f"{prefix}: failed\n{traceback.format_exc()}", flush=True)


if __name__ == "__main__":
    main()
