#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (an Ubuntu image; the zip is unpacked in /autograder/source): the Debian
# packages the labs need, the same list CI installs.
set -euo pipefail
cd "$(dirname "$0")"
bash hpc-labs/tools/install-packages
