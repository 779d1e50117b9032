#!/usr/bin/env python3
"""Plots of lab 15's driver output (--json, one object per line).

  /usr/bin/python3 labs/15-mapreduce/plot.py RUNS.json [RUNS.json ...] [--out DIR]

Reads every JSON line of the files (runs with different rank counts and
combiner settings may be concatenated) and writes, into DIR (default: the
first file's folder):
  phases.png   time per phase (map, shuffle, sort, reduce) of each text run
  scaling.png  throughput (MB/s) against ranks, combiner on and off, with the
               single-process anchor
  pancake.png  stacks per number of flips, for each pancake run
A plot without data is skipped with a note.
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    rows.append(json.loads(line))
    return rows


def label(row):
    return "%d rank%s, combiner %s" % (row["ranks"], "" if row["ranks"] == 1 else "s",
                                       "on" if row.get("combiner") else "off")


def plot_phases(jobs, out):
    if not jobs:
        return print("phases.png: no text job in the input")
    jobs = sorted(jobs, key=lambda r: (r["name"], r.get("combiner", 0), r["ranks"]))
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(jobs)), 4))
    bottom = [0.0] * len(jobs)
    for phase in ("map_s", "shuffle_s", "sort_s", "reduce_s"):
        values = [r.get(phase, 0) for r in jobs]
        ax.bar(range(len(jobs)), values, bottom=bottom, label=phase[:-2])
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(range(len(jobs)))
    ax.set_xticklabels(["%s\n%s" % (r["name"], label(r).replace(", ", "\n")) for r in jobs], fontsize=7)
    ax.set_ylabel("seconds (slowest rank per phase)")
    ax.set_title("Time per phase")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "phases.png"), dpi=120)
    plt.close(fig)


def plot_scaling(jobs, anchors, out):
    words = [r for r in jobs if r["name"] == "wordcount"]
    if not words:
        return print("scaling.png: no word count run in the input")
    fig, ax = plt.subplots(figsize=(6, 4))
    for combiner in (1, 0):
        pts = sorted((r["ranks"], r["n"] / 1e6 / r["seconds"]["median"]) for r in words
                     if r.get("combiner", 0) == combiner and r["seconds"]["median"] > 0)
        if pts:
            ax.plot([p for p, _ in pts], [t for _, t in pts], "o-", label="MapReduce, combiner %s"
                    % ("on" if combiner else "off"))
    if anchors:
        best = max(a["n"] / 1e6 / a["seconds"]["median"] for a in anchors if a["seconds"]["median"] > 0)
        ax.axhline(best, color="gray", linestyle="--", label="one process (std::unordered_map)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("MB/s")
    ax.set_title("Word count throughput")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=120)
    plt.close(fig)


def plot_pancake(runs, out):
    if not runs:
        return print("pancake.png: no pancake run in the input")
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in runs:
        levels = sorted((int(k.split("_")[1]), v) for k, v in r.items() if k.startswith("level_"))
        ax.plot([d for d, _ in levels], [c for _, c in levels], "o-", label="n = %d (%s)" % (r["n"], label(r)))
    ax.set_yscale("log")
    ax.set_xlabel("flips from the sorted stack")
    ax.set_ylabel("stacks")
    ax.set_title("Pancake graph: stacks per level")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "pancake.png"), dpi=120)
    plt.close(fig)


def main(argv):
    ap = argparse.ArgumentParser(description="Plots of lab 15's driver --json output")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    try:
        rows = read_rows(a.files)
    except (OSError, json.JSONDecodeError) as e:
        print("plot.py: error: %s" % e, file=sys.stderr)
        return 1
    out = a.out or os.path.dirname(os.path.abspath(a.files[0]))
    os.makedirs(out, exist_ok=True)
    jobs = [r for r in rows if r.get("name") in ("wordcount", "index")]
    plot_phases(jobs, out)
    plot_scaling(jobs, [r for r in rows if r.get("name") == "std::unordered_map"], out)
    plot_pancake([r for r in rows if r.get("name") == "pancake"], out)
    print("plots written to %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
