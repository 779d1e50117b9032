#!/usr/bin/env python3
"""The project's Python, checked by pyflakes: no unused import, no undefined
name, no variable assigned and never read.

  tools/lint_python.py    check every Python file; exit 1 if pyflakes reports any

Python files are the *.py files and the scripts whose first line names
python3 (grading/grade, tools/plot...), below the repository's root, outside
build trees. pyflakes comes from Debian's pyflakes3 (.ci/packages.txt); where
it is missing the check is skipped (exit 77, Meson's "skipped"). Any other
argument: one line on stderr and exit 2.
"""
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIPPED = 77


def is_python(path):
    if path.endswith(".py"):
        return True
    if os.path.splitext(path)[1] or not os.path.isfile(path) or os.path.islink(path):
        return False
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def python_files(root):
    found = []
    for top, dirs, files in os.walk(root):
        # Build trees, git's own files, caches: nothing of ours to check.
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build", "__pycache__")))
        found += [os.path.join(top, f) for f in sorted(files) if is_python(os.path.join(top, f))]
    return found


def main(argv):
    if argv:
        print("lint_python.py: takes no arguments", file=sys.stderr)
        return 2
    pyflakes = shutil.which("pyflakes3") or shutil.which("pyflakes")
    if not pyflakes:
        print("lint_python.py: pyflakes3 is not installed (tools/install-packages): skipped")
        return SKIPPED
    files = python_files(ROOT)
    r = subprocess.run([pyflakes] + files, capture_output=True, text=True)
    out = (r.stdout + r.stderr).strip()
    if r.returncode != 0:
        print(out.replace(ROOT + os.sep, ""))
        return 1
    print("lint_python.py: %d Python files, no pyflakes warning" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
