#!/usr/bin/env python3
"""Plots for lab 12 from the driver's --json lines (matplotlib):
  stairs.png    run time against the number of ranks for native CUDA and the
                collective pi, a dashed line at every multiple of the SM count
  pingpong.png  one-way message time and a device-to-device copy's time
                against the size (log-log), with bandwidths on a second panel
  pi.png        the pi benchmark's three times, with their ratios to native
usage: plot.py GMP.jsonl [OUT_DIR]   (OUT_DIR defaults to the file's folder)
Each figure is drawn only when its rows are present.
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


def median(row):
    return row["seconds"]["median"]


def stairs(rows, out):
    series = {}
    sms = None
    for r in rows:
        if r.get("name", "").startswith("stairs_"):
            series.setdefault(r["name"][len("stairs_"):], []).append((r["n"], median(r)))
            sms = figure_of(r, "sm_count") or sms
    if not series:
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    top = 0
    for name, points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [1e3 * p[1] for p in points], marker=".", markersize=3, label=name)
        top = max(top, points[-1][0])
    if sms:
        for k in range(1, int(top // sms) + 1):
            ax.axvline(k * sms, color="#c0392b", linestyle="--", linewidth=1,
                       label="multiples of the SM count (%d)" % sms if k == 1 else None)
    ax.set_xlabel("ranks (blocks), fixed work per rank")
    ax.set_ylabel("time (ms)")
    ax.set_title("pi with a fixed share per rank: steps at the SM count")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "stairs.png"), dpi=120)
    return "stairs.png"


def pingpong(rows, out):
    pp = sorted((r for r in rows if r.get("name") == "pingpong"), key=lambda r: r["n"])
    if not pp:
        return None
    sizes = [r["n"] for r in pp]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    left.plot(sizes, [1e6 * figure_of(r, "one_way_s") for r in pp], marker="o", label="message, one way")
    left.plot(sizes, [1e6 * figure_of(r, "copy_s") for r in pp], marker="s", label="cudaMemcpyAsync D2D")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("bytes")
    left.set_ylabel("time (us)")
    left.legend()
    right.plot(sizes, [figure_of(r, "gb_per_s") for r in pp], marker="o", label="message")
    right.plot(sizes, [figure_of(r, "copy_gb_per_s") for r in pp], marker="s", label="copy")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xlabel("bytes")
    right.set_ylabel("GB/s")
    right.legend()
    fig.suptitle("two blocks, ping-pong, against a device-to-device copy")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "pingpong.png"), dpi=120)
    return "pingpong.png"


def pi(rows, out):
    pr = [r for r in rows if r.get("name", "").startswith("pi_")]
    if not pr:
        return None
    fig, ax = plt.subplots(figsize=(6, 4))
    names = [r["name"][3:] for r in pr]
    times = [1e3 * median(r) for r in pr]
    bars = ax.bar(names, times, color=["#888888" if n == "native" else "#3b75af" for n in names])
    for bar, r in zip(bars, pr):
        ratio = r.get("ratio") or 0
        ax.annotate("x%.3f" % ratio, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                    textcoords="offset points", xytext=(0, 3))
    ax.set_ylabel("time (ms)")
    ax.set_title("pi (trapezoid rule): the sum of the ranks' shares")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "pi.png"), dpi=120)
    return "pi.png"


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    rows = load(argv[1])
    out = argv[2] if len(argv) > 2 else os.path.dirname(os.path.abspath(argv[1]))
    written = [f for f in (stairs(rows, out), pingpong(rows, out), pi(rows, out)) if f]
    if not written:
        sys.exit("plot.py: no pi, pingpong or stairs rows in " + argv[1])
    print("wrote %s in %s" % (", ".join(written), out))


if __name__ == "__main__":
    main(sys.argv)
