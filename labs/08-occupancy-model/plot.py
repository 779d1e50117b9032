#!/usr/bin/env python3
"""Plots of lab 08's driver output (--json, one object per line): measured
and predicted time against threads per block for each validation kernel,
the pointer chase, and the roofline. Usage: plot.py FILE.jsonl [OUTDIR]"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in open(argv[1]) if line.strip().startswith("{")]
    out = argv[2] if len(argv) > 2 else os.path.dirname(os.path.abspath(argv[1]))
    extra = lambda r, k: (r.get("extra") or {}).get(k)
    val = [r for r in rows if r.get("name", "").startswith("validate/")]
    kernels = sorted({r["name"].split("/")[1] for r in val})
    for k in kernels:
        pts = [r for r in val if r["name"].split("/")[1] == k]
        xs = [extra(r, "threads") if len({p["n"] for p in pts}) == 1 else r["n"] for r in pts]
        plt.figure()
        plt.plot(xs, [r["seconds"]["median"] * 1e6 for r in pts], "o-", label="measured")
        plt.plot(xs, [extra(r, "predicted_seconds") * 1e6 for r in pts], "s--", label="model")
        plt.xlabel("threads per block" if len({p["n"] for p in pts}) == 1 else "size")
        plt.ylabel("time (us)")
        plt.title(k)
        plt.legend()
        plt.savefig(os.path.join(out, "validate_%s.png" % k), dpi=120)
        plt.close()
    chase = [r for r in rows if r.get("name") == "chase"]
    if chase:
        plt.figure()
        plt.semilogx([extra(r, "working_set_bytes") for r in chase], [extra(r, "cycles_per_load") for r in chase], "o-")
        plt.xlabel("working set (bytes)")
        plt.ylabel("cycles per dependent load")
        plt.savefig(os.path.join(out, "chase.png"), dpi=120)
        plt.close()
    if val:
        plt.figure()
        for k in kernels:
            r = [p for p in val if p["name"].split("/")[1] == k][-1]
            if extra(r, "intensity"):
                plt.loglog([extra(r, "intensity")], [extra(r, "achieved_gflops")], "o", label=k)
        plt.xlabel("flops per byte")
        plt.ylabel("GFLOP/s")
        plt.legend(fontsize=7)
        plt.savefig(os.path.join(out, "roofline.png"), dpi=120)
        plt.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
