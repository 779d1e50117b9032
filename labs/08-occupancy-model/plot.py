#!/usr/bin/env python3
"""Plots of lab 08's driver output (--json, one object per line, from
--stage all or --stage validate): predicted against measured time for each
validation kernel (validate.png), the pointer chase's latency staircase
(chase.png) and the measured roofline (roofline.png).
Usage: plot.py FILE.jsonl [OUTDIR]"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def kernel_of(row):
    return row["name"].split("/")[1]


def plot_validation(val, out):
    kernels = list(dict.fromkeys(kernel_of(r) for r in val))
    cols = 3
    rows = (len(kernels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
    for ax, k in zip(axes.flat, kernels):
        pts = [r for r in val if kernel_of(r) == k]
        sweep = len({p["n"] for p in pts}) == 1
        xs = [p["threads"] if sweep else p["n"] for p in pts]
        ax.plot(xs, [p["seconds"]["median"] * 1e6 for p in pts], "o-", label="measured")
        ax.plot(xs, [p["predicted_seconds"] * 1e6 for p in pts], "s--", label="refined model")
        ax.plot(xs, [p["luo_seconds"] * 1e6 for p in pts], "^:", label="Luo alone")
        if not sweep:
            ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("threads per block" if sweep else "problem size")
        ax.set_ylabel("time (us)")
        ax.set_title(k, fontsize=10)
    for ax in list(axes.flat)[len(kernels):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "validate.png"), dpi=110)
    plt.close(fig)


def plot_chase(chase, out):
    plt.figure(figsize=(6, 4))
    plt.semilogx([r["working_set_bytes"] for r in chase], [r["cycles_per_load"] for r in chase], "o-")
    plt.xlabel("working set (bytes)")
    plt.ylabel("cycles per dependent load")
    plt.title("pointer chase")
    plt.grid(True, which="both", alpha=0.3)
    plt.savefig(os.path.join(out, "chase.png"), dpi=110)
    plt.close()


def plot_roofline(val, machine, out):
    bandwidth = machine["copy_gbps"]
    peak = machine["fp32_gflops"]
    plt.figure(figsize=(6.5, 4.5))
    xs = [2.0 ** e for e in range(-6, 12)]
    plt.loglog(xs, [min(peak, x * bandwidth) for x in xs], "k-", label="measured roof")
    for k in dict.fromkeys(kernel_of(r) for r in val):
        pts = [r for r in val if kernel_of(r) == k and r["intensity"] > 0]
        if pts:
            best = max(pts, key=lambda r: r["achieved_gflops"])
            plt.loglog([best["intensity"]], [best["achieved_gflops"]], "o", label=k)
    plt.xlabel("flops per DRAM byte")
    plt.ylabel("GFLOP/s")
    plt.title("roofline: copy %.0f GB/s, FFMA %.0f GFLOP/s" % (bandwidth, peak), fontsize=10)
    plt.legend(fontsize=7)
    plt.grid(True, which="both", alpha=0.3)
    plt.savefig(os.path.join(out, "roofline.png"), dpi=110)
    plt.close()


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in open(argv[1]) if line.strip().startswith("{")]
    out = argv[2] if len(argv) > 2 else os.path.dirname(os.path.abspath(argv[1]))
    val = [r for r in rows if r.get("name", "").startswith("validate/")]
    chase = [r for r in rows if r.get("name") == "chase"]
    machine = next((r for r in rows if r.get("name") == "machine"), None)
    if not val and not chase:
        print("plot.py: no validate/ or chase rows in %s (run the driver with --json)" % argv[1], file=sys.stderr)
        return 1
    if val:
        plot_validation(val, out)
    if chase:
        plot_chase(chase, out)
    if val and machine:
        plot_roofline(val, machine, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
