"""Writes one machine's matrix table into bench/RESULTS.md from the benchmarks' --tsv files.

  python3 report.py --name NAME --title TITLE --peers PEERS.tsv --fusedsl FX.tsv
                    [--native FX_NATIVE.tsv] [--command TEXT] [--results FILE]
  python3 report.py --recheck STORED_PEERS.tsv FRESH_PEERS.tsv

Per cell: fusedsl ms (and -march=native ms), torch eager and torch.compile ms, fusedsl's
% of the copy bandwidth measured in its own run, the ratio against torch.compile and
against the best peer (> 1: fusedsl faster), kernels per call on both sides (GPU), host
time per call (GPU), and whether fusedsl's output agrees with torch's on the same inputs
(the digests: sums and four elements). Per table: the geometric mean of the ratios, the
smallest, and the count below 1.0x. The section between `<!-- matrix:NAME -->` and
`<!-- /matrix:NAME -->` is replaced (appended when missing); the summary line is printed.
"""
import argparse
import math
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
# How far two outputs' digests may differ and still be the same function: a few roundings
# of the cell's type, relative to max(|value|, 1) for the four elements (an f32 sum of
# thousands of elements moves by 1e-5 with the order of its additions), and relative to
# the sum of magnitudes for the two sums (one rounding per element, in any order).
TOLERANCE = {"f64": 1e-9, "f32": 1e-4, "bf16": 2.0**-6, "f16": 2.0**-9, "i64": 0.0, "i32": 0.0}


def read_tsv(path):
    """(header comment, {(family, dtype, shape): row dict})."""
    lines = open(path).read().splitlines()
    head = lines[0].lstrip("# ").strip()
    names = lines[1].split("\t")
    rows = {}
    for line in lines[2:]:
        if line.strip():
            row = dict(zip(names, line.split("\t")))
            rows[(row["family"], row["dtype"], row["shape"])] = row
    return head, rows


def copy_of(head):
    m = re.search(r"copy GB/s ([0-9.]+)", head)
    return float(m.group(1)) if m else 0.0


def digests_agree(a, b, dtype):
    """Whether two digests (sum:abs:v0:v1:v2:v3 per output, ';'-separated) agree within the dtype's
    tolerance; None when either is missing ("-")."""
    if a == "-" or b == "-":
        return None
    outs_a, outs_b = a.split(";"), b.split(";")
    if len(outs_a) != len(outs_b):
        return False
    for oa, ob in zip(outs_a, outs_b):
        fa, fb = [float(v) for v in oa.split(":")], [float(v) for v in ob.split(":")]
        # An output of a narrower type than the cell's (argmax: int64) is compared exactly when integral.
        tol = 0.0 if all(float(v).is_integer() for v in fa + fb if not math.isnan(v)) else TOLERANCE[dtype]
        tol = max(tol, 1e-4) if tol else tol
        for i, (x, y) in enumerate(zip(fa, fb)):
            if math.isnan(x) and math.isnan(y):
                continue
            scale = max(abs(fb[1]), 1.0) if i < 2 else max(abs(y), 1.0)
            if not abs(x - y) <= tol * scale:
                return False
    return True


def geo_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def table(args):
    peer_head, peers = read_tsv(args.peers)
    fx_head, fx = read_tsv(args.fusedsl)
    native = read_tsv(args.native)[1] if args.native else {}
    gpu = any(float(r["launches"]) >= 0 for r in fx.values())
    copy = copy_of(fx_head)
    cols = ["family", "dtype", "shape", "fusedsl ms"] + (["-march=native ms"] if native else [])
    cols += ["eager ms", "compile ms", "% of copy", "vs compile", "vs best peer"]
    cols += ["kernels (fx/compile)", "host us (fx/compile)"] if gpu else []
    cols += ["same output"]
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    ratios, best, below, differs, missing = [], [], [], 0, []
    for key, row in fx.items():
        if key not in peers:
            missing.append("/".join(key))
            continue
        p = peers[key]
        ms, eager, comp = float(row["ms"]), float(p["eager_ms"]), float(p["compile_ms"])
        r_comp, r_best = comp / ms, min(eager, comp) / ms
        ratios.append(r_comp)
        best.append(r_best)
        if r_comp < 1:
            below.append((r_comp, "/".join(key)))
        agree = digests_agree(row["digest"], p["digest"], key[1])
        differs += 0 if agree is not False and row["ok"] == "1" else 1
        cells = [key[0], key[1], key[2], f"{ms:.4f}"]
        if native:  # a cell the native run lacks shows "-"
            cells.append(f"{float(native[key]['ms']):.4f}" if key in native else "-")
        pct = 100 * float(row["gbs"]) / copy if copy else 0
        cells += [f"{eager:.4f}", f"{comp:.4f}", f"{pct:.0f}%", f"{r_comp:.2f}x", f"{r_best:.2f}x"]
        if gpu:
            cells += [f"{row['launches']}/{p['compile_launches']}", f"{float(row['host_us']):.0f}/{float(p['compile_host_us']):.0f}"]
        cells += ["**oracle check failed**" if row["ok"] != "1" else "**DIFFERS**" if agree is False
                  else "yes" if agree else "not compared"]
        out.append("| " + " | ".join(cells) + " |")
    below.sort()
    summary = (f"{len(ratios)} cells: fusedsl / torch.compile geo-mean {geo_mean(ratios):.2f}x, "
               f"min {min(ratios):.2f}x, {len(below)} below 1.0x; against the best peer geo-mean "
               f"{geo_mean(best):.2f}x, min {min(best):.2f}x; outputs failing a check or differing from torch: {differs}")
    worst = ", ".join(f"{name} {r:.2f}x" for r, name in below[:10])
    text = [f"<!-- matrix:{args.name} -->", f"### {args.title}", "",
            "Generated by bench/matrix/report.py from the runs below (each names its machine and date).",
            f"- fusedsl: {fx_head}", f"- peers: {peer_head}"]
    if args.command:
        text.append(f"- command: `{args.command}`")
    text += ["", f"**Summary:** {summary}.", ""]
    if worst:
        text += [f"Worst against torch.compile: {worst}.", ""]
    if missing:
        text += [f"Cells without a peer measurement: {', '.join(missing)}.", ""]
    text += out + [f"<!-- /matrix:{args.name} -->"]
    return "\n".join(text), summary


def recheck(stored_path, fresh_path, limit=0.03):
    """Whether the stored peer times still hold: each cell of `fresh_path` (a subset measured
    now) within `limit` of `stored_path`'s. Prints the cells that moved; returns their count."""
    stored, fresh = read_tsv(stored_path)[1], read_tsv(fresh_path)[1]
    moved = 0
    for key, row in fresh.items():
        if key not in stored:
            print(f"recheck: {'/'.join(key)} is not among the stored peers")
            moved += 1
            continue
        for column in ("eager_ms", "compile_ms"):
            old, new = float(stored[key][column]), float(row[column])
            if abs(new - old) > limit * old:
                print(f"recheck: {'/'.join(key)} {column} {old:.4f} stored, {new:.4f} now ({new / old - 1:+.1%})")
                moved += 1
    print(f"recheck: {len(fresh)} cells against {stored_path}: {moved} moved more than {limit:.0%}")
    return moved


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--recheck", nargs=2, metavar=("STORED", "FRESH"),
                    help="only compare a fresh subset of peer times with the stored ones (exit 1 if any moved > 3%%)")
    ap.add_argument("--name")
    ap.add_argument("--title")
    ap.add_argument("--peers")
    ap.add_argument("--fusedsl")
    ap.add_argument("--native", default="")
    ap.add_argument("--command", default="")
    ap.add_argument("--results", default=os.path.join(HERE, "..", "RESULTS.md"))
    args = ap.parse_args()
    if args.recheck:
        raise SystemExit(1 if recheck(*args.recheck) else 0)
    if not (args.name and args.title and args.peers and args.fusedsl):
        ap.error("--name, --title, --peers and --fusedsl are required (or --recheck STORED FRESH)")
    section, summary = table(args)
    text = open(args.results).read() if os.path.exists(args.results) else ""
    pattern = re.compile(rf"<!-- matrix:{re.escape(args.name)} -->.*?<!-- /matrix:{re.escape(args.name)} -->", re.S)
    text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section + "\n"
    open(args.results, "w").write(text)
    print(f"{args.title}: {summary}")


if __name__ == "__main__":
    main()
