#!/usr/bin/env python3
"""Plots for lab 09 from the driver's --json lines (matplotlib):
  copies.png    bandwidth against size for each kind of copy (pageable and
                pinned, each direction), log-log
  timeline.png  the small kernels' start and end (events) on 1, 4 and 16 streams
  chunks.png    pipeline time against chunk count for each case, with the
                overlap bound max(T_send, T_kernel, T_recv) + fill and drain
                and the serial time drawn in
usage: plot.py LAB09.jsonl [OUT_DIR]   (OUT_DIR defaults to the file's folder)
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def copies(rows, out):
    kinds = ["pageable_h2d", "pageable_d2h", "pinned_h2d", "pinned_d2h"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = False
    for kind in kinds:
        pts = sorted((r["n"], r["gb_per_s"]) for r in rows if r["name"] == kind and "gb_per_s" in r)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=kind.replace("_", " "))
            drawn = True
    if not drawn:
        plt.close(fig)
        return
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per copy")
    ax.set_ylabel("GB/s")
    ax.set_title("Host-device copies")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "copies.png"), dpi=120)
    plt.close(fig)


def timeline(rows, out):
    tl = [r for r in rows if r["name"] == "timeline"]
    counts = sorted({int(r["streams"]) for r in tl})
    if not counts:
        return
    fig, axes = plt.subplots(len(counts), 1, figsize=(8, 2.2 * len(counts)), sharex=True)
    if len(counts) == 1:
        axes = [axes]
    for ax, s in zip(axes, counts):
        for r in (r for r in tl if int(r["streams"]) == s):
            ax.plot([r["start_us"], r["end_us"]], [r["n"], r["n"]], color="C%d" % (int(r["stream"]) % 10), lw=2)
        ax.set_ylabel("kernel")
        ax.set_title("%d stream%s" % (s, "" if s == 1 else "s"), fontsize=9)
    axes[-1].set_xlabel("microseconds since the first launch")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "timeline.png"), dpi=120)
    plt.close(fig)


def chunks(rows, out):
    cases = [c for c in ("transfer", "kernel") if any(r["name"] == "sweep_" + c for r in rows)]
    if not cases:
        return
    fig, axes = plt.subplots(1, len(cases), figsize=(6 * len(cases), 4.2))
    if len(cases) == 1:
        axes = [axes]
    for ax, case in zip(axes, cases):
        sweep = sorted((r["chunks"], r["seconds"]["median"], r["bound_s"], r["serial_s"], r.get("both_ways_s", 0))
                       for r in rows if r["name"] == "sweep_" + case)
        m = [s[0] for s in sweep]
        ax.plot(m, [1e3 * s[1] for s in sweep], marker="o", ms=3, label="pipeline (equal chunks)")
        ax.plot(m, [1e3 * s[2] for s in sweep], ls="--", label="bound: longest part + fill/drain")
        ax.axhline(1e3 * sweep[0][3], color="gray", ls=":", label="serial")
        if sweep[0][4] > 0:
            ax.axhline(1e3 * sweep[0][4], color="C3", ls="-.", lw=1, label="both whole transfers at once")
        for r in rows:
            if r["name"].startswith("tpsm_") and r["name"].endswith("_" + case):
                ax.plot([r["chunks"]], [1e3 * r["seconds"]["median"]], marker="x", ms=8, ls="none",
                        label="TPSM " + r["name"][len("tpsm_"):-len(case) - 1])
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("chunks")
        ax.set_ylabel("ms")
        ax.set_title("%s-bound case" % case)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "chunks.png"), dpi=120)
    plt.close(fig)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    rows = load(argv[1])
    out = argv[2] if len(argv) > 2 else os.path.dirname(os.path.abspath(argv[1]))
    os.makedirs(out, exist_ok=True)
    copies(rows, out)
    timeline(rows, out)
    chunks(rows, out)


if __name__ == "__main__":
    main(sys.argv)
