"""python3 labs/lab_manifest ARGS (or labs/lab_manifest/__main__.py ARGS):
the command line of cli.py."""
import os
import sys

# Run as a folder or a file, Python puts this folder first on the path: the
# package is imported from its parent.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from lab_manifest.cli import main  # noqa: E402

sys.exit(main(sys.argv))
