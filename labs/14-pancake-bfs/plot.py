#!/usr/bin/env python3
"""Plots of lab 14's driver output (--json, one object per line; one file per
run, e.g. the runs of the 16-core command in the handout):
  levels.png   stacks per distance (log scale), one line per n
  scaling.png  search time against ranks, in memory and spilling, with the
               parallel efficiency T(1) / (p T(p))
  phases.png   each run's time split into expansion and exchange
Usage: plot.py RUN.jsonl [RUN.jsonl ...] [--out DIR]"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(paths):
    runs = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip().startswith("{")]
        runs.append((path, rows))
    return runs


def bfs_row(rows):
    found = [r for r in rows if r.get("name") == "bfs"]
    return found[-1] if found else None


def plot_levels(runs, out):
    fig, ax = plt.subplots(figsize=(6, 4))
    seen = set()
    for _, rows in runs:
        levels = [r for r in rows if r.get("name") == "level"]
        if not levels or levels[0]["n"] in seen:
            continue
        seen.add(levels[0]["n"])
        ax.semilogy([r["level"] for r in levels], [r["count"] for r in levels], "o-", label="n = %d" % levels[0]["n"])
    ax.set_xlabel("flips from the start (distance)")
    ax.set_ylabel("stacks")
    ax.set_title("Pancake graph: stacks per level")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "levels.png"), dpi=120)


def plot_scaling(runs, out):
    series = {}
    for _, rows in runs:
        b = bfs_row(rows)
        if b:
            key = (b["n"], "spilling" if b.get("budget_bytes", 0) > 0 else "in memory")
            series.setdefault(key, []).append((int(b["ranks"]), b["seconds"]["median"]))
    if not series:
        return
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for (n, kind), pts in sorted(series.items()):
        pts.sort()
        ranks = [p for p, _ in pts]
        secs = [t for _, t in pts]
        ax.loglog(ranks, secs, "o-", label="n = %d, %s" % (n, kind))
        if ranks[0] == 1:
            ax2.plot(ranks, [secs[0] / (p * t) for p, t in pts], "o-", label="n = %d, %s" % (n, kind))
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("seconds (slowest rank)")
    ax.set_title("Search time")
    ax.legend()
    ax2.set_xlabel("MPI ranks")
    ax2.set_ylabel("T(1) / (p T(p))")
    ax2.set_ylim(0, 1.1)
    ax2.set_title("Parallel efficiency")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=120)


def plot_phases(runs, out):
    bars = []
    for _, rows in runs:
        b = bfs_row(rows)
        if b:
            label = "n%d p%d%s" % (b["n"], int(b["ranks"]), " spill" if b.get("budget_bytes", 0) > 0 else "")
            bars.append((label, b.get("expand_s", 0), b.get("exchange_s", 0)))
    if not bars:
        return
    fig, ax = plt.subplots(figsize=(max(5, 0.8 * len(bars)), 4))
    xs = range(len(bars))
    ax.bar(xs, [b[1] for b in bars], label="expand")
    ax.bar(xs, [b[2] for b in bars], bottom=[b[1] for b in bars], label="exchange")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([b[0] for b in bars], rotation=45, ha="right")
    ax.set_ylabel("seconds (slowest rank per phase)")
    ax.set_title("Time by phase")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "phases.png"), dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    runs = read_rows(a.runs)
    os.makedirs(a.out, exist_ok=True)
    plot_levels(runs, a.out)
    plot_scaling(runs, a.out)
    plot_phases(runs, a.out)


if __name__ == "__main__":
    main()
