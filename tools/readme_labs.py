#!/usr/bin/env python3
"""The root README's lab table, written from the labs' lab.json.

  tools/readme_labs.py --write   rewrite the table in README.md
  tools/readme_labs.py --check   say whether the table is out of date; exit 1 if it is

The table stands between the lines `<!-- labs:begin -->` and
`<!-- labs:end -->` of README.md: one row per lab (labs/lab_manifest
lists them), made from its lab.json's "topic" (its "title" when it has
none), "needs" and "status", so that adding a lab or changing what it needs
changes the table. Meson runs the check as the test `readme labs`; a README
without the markers fails it. (The student release's README has a table of
its own, written by grading/hpcgrade/release.py.)
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "labs"))

import lab_manifest  # noqa: E402
import marked_block  # noqa: E402

BEGIN = "<!-- labs:begin -->"
END = "<!-- labs:end -->"


def needs_text(needs):
    """Pure: the needs column: what a lab needs beyond a C++17 compiler."""
    return ", ".join(lab_manifest.NEEDS_NAMES[n] for n in needs) or "C++"


def row(lab, m):
    """Pure: one lab's row of the table."""
    return "| [%s](labs/%s/README.md) | %s | %s | %s |" % (lab, lab, m.get("topic") or m["title"],
                                                         needs_text(m["needs"]), m.get("status", ""))


def table(root):
    """Pure but for reading the manifests: the Markdown between the markers."""
    lines = [BEGIN,
             "<!-- written by tools/readme_labs.py from each labs/NN-name/lab.json (topic, needs, status): "
             "edit those -->",
             "| lab | topic | needs | status |",
             "| --- | --- | --- | --- |"]
    lines += [row(lab, lab_manifest.load(root, lab)) for lab in lab_manifest.list_labs(root)]
    lines.append(END)
    return "\n".join(lines)


def replace(text, new):
    """Pure: TEXT with its marked table replaced, or None without markers."""
    return marked_block.replace(text, BEGIN, END, new)


def main(argv):
    if argv[1:] not in (["--write"], ["--check"]):
        print("usage: tools/readme_labs.py --write | --check  (see the top of the file)", file=sys.stderr)
        return 2
    path = os.path.join(ROOT, "README.md")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = replace(text, table(ROOT))
    except (OSError, ValueError) as e:  # ManifestError is a ValueError
        print("readme_labs.py: error: %s" % e, file=sys.stderr)
        return 1
    if new is None:
        print("README.md: no %s ... %s markers around the lab table" % (BEGIN, END), file=sys.stderr)
        return 1
    if new == text:
        print("README.md: the lab table is up to date")
        return 0
    if argv[1] == "--check":
        print("README.md: the lab table is out of date: run tools/readme_labs.py --write", file=sys.stderr)
        return 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    print("rewrote the lab table of README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
