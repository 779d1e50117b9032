#!/usr/bin/env python3
"""Plots for lab 13 from the driver's --json lines (matplotlib):
  stages.png  voxel-sample pairs per second for the CPU and each GPU stage
              (log scale), with the measured SFU bound as a line
  accuracy.png  each stage's relative L2 error against its rate
usage: plot.py FHD.jsonl [OUT_DIR]   (OUT_DIR defaults to the file's folder)
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


def figure_of(row, key):
    value = row.get(key)
    if value is None and isinstance(row.get("extra"), dict):
        value = row["extra"].get(key)
    return value


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    rows = load(argv[1])
    out = argv[2] if len(argv) > 2 else os.path.dirname(os.path.abspath(argv[1]))
    stages = [r for r in rows if figure_of(r, "pairs_per_s")]
    if not stages:
        sys.exit("plot.py: no stage rows with pairs_per_s in " + argv[1])
    peak = [r for r in rows if r.get("name") == "peak"]
    bound = figure_of(peak[-1], "bound_pairs_per_s") if peak else None

    fig, ax = plt.subplots(figsize=(8, 4.5))
    names = [r["name"] for r in stages]
    rates = [figure_of(r, "pairs_per_s") for r in stages]
    ax.bar(names, rates, color=["#888888" if n == "cpu" else "#3b75af" for n in names])
    if bound:
        ax.axhline(bound, color="#c0392b", linestyle="--", label="SFU bound (measured)")
        ax.legend()
    ax.set_yscale("log")
    ax.set_ylabel("voxel-sample pairs per second")
    ax.set_title("F^H d: the ladder")
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "stages.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for r in stages:
        err = figure_of(r, "rel_l2")
        if err:
            ax.scatter(figure_of(r, "pairs_per_s"), err)
            ax.annotate(r["name"], (figure_of(r, "pairs_per_s"), err), textcoords="offset points", xytext=(4, 4))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("voxel-sample pairs per second")
    ax.set_ylabel("relative L2 error against double")
    ax.set_title("F^H d: error against speed")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "accuracy.png"), dpi=120)
    print("wrote stages.png and accuracy.png in " + out)


if __name__ == "__main__":
    main(sys.argv)
