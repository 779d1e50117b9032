"""The manifest reader's command line (Meson and scripts use it):
  python3 labs/lab_manifest list                the labs, one per line
  python3 labs/lab_manifest meson LAB           the manifest as "key<TAB>value<TAB>value..." lines
  python3 labs/lab_manifest mpi-env [--shell]   the environment Open MPI needs to run as root
  python3 labs/lab_manifest check-rubric LAB --visible BIN [--hidden BIN] [--launcher CMD...]
  python3 labs/lab_manifest figure-runs SET --driver-dir DIR [--cpu | --gpu] [--gpus N] [LAB...]
      one run a line: the lab, the run's name (- for none) and the command
      line, shell-quoted, separated by tabs
"""
import os
import shlex
import sys

from .base import ManifestError
from .build_output import MPI_AS_ROOT_ENV, meson_lines
from .figures import FIGURE_RUN_SETS, figure_run_command
from .paths import list_labs, repo_root, resolve_lab
from .rubric import expand_rubric, list_tests
from .schema import load


def figure_runs_command(root, args):
    """figure-runs SET --driver-dir DIR [--cpu | --gpu] [--gpus N] [LAB...]"""
    if not args or args[0] not in FIGURE_RUN_SETS:
        raise ManifestError("figure-runs: the first argument is one of %s" % ", ".join(FIGURE_RUN_SETS))
    kind, driver_dir, gpu, gpus, labs, i = args[0], None, None, None, [], 1
    while i < len(args):
        if args[i] == "--driver-dir" and i + 1 < len(args):
            driver_dir, i = args[i + 1], i + 2
        elif args[i] == "--gpus" and i + 1 < len(args) and args[i + 1].isdigit():
            gpus, i = int(args[i + 1]), i + 2
        elif args[i] in ("--cpu", "--gpu"):
            gpu, i = args[i] == "--gpu", i + 1
        elif not args[i].startswith("-"):
            labs.append(resolve_lab(root, args[i]))
            i += 1
        else:
            raise ManifestError("figure-runs: unexpected argument %r" % args[i])
    if driver_dir is None:
        raise ManifestError("figure-runs: --driver-dir DIR (where LAB-solution is) is missing")
    lines = []
    for lab in labs or list_labs(root):
        m = load(root, lab)
        runs = m["figure_runs"][kind]
        if gpu is not None and m["needs_gpu"] != gpu:
            runs = []
        if labs and not runs:
            raise ManifestError("labs/%s/lab.json has no %s%s figure runs"
                                % (lab, "" if gpu is None else "GPU " if gpu else "CPU ", kind))
        for run in runs:
            if gpus is not None and run.get("one_gpu_per_rank") and run.get("ranks", 1) > max(gpus, 1):
                continue
            command = figure_run_command(run, os.path.join(driver_dir, lab + "-solution"))
            lines.append("%s\t%s\t%s" % (lab, run.get("name", "-"), " ".join(shlex.quote(a) for a in command)))
    print("\n".join(lines))
    return 0



def main(argv):
    root = repo_root()
    try:
        if argv[1:] == ["list"]:
            print("\n".join(list_labs(root)))
        elif len(argv) == 3 and argv[1] == "meson":
            print("\n".join(meson_lines(load(root, argv[2]))))
        elif argv[1:2] == ["mpi-env"]:
            for k, v in MPI_AS_ROOT_ENV.items():
                print("export %s=%s" % (k, shlex.quote(v)) if argv[2:] == ["--shell"] else "%s=%s" % (k, v))
        elif argv[1:2] == ["figure-runs"]:
            return figure_runs_command(root, argv[2:])
        elif argv[1:2] == ["check-rubric"] and len(argv) >= 5:
            return check_rubric_command(root, argv[2], argv[3:])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except ManifestError as e:
        print("lab_manifest: error: %s" % e, file=sys.stderr)
        return 1
    return 0


def check_rubric_command(root, lab, args):
    """check-rubric LAB --visible BIN [--hidden BIN] [--launcher CMD...]"""
    binaries, launcher, i = {}, [], 0
    while i < len(args):
        if args[i] in ("--visible", "--hidden") and i + 1 < len(args):
            binaries[args[i][2:]] = args[i + 1]
            i += 2
        elif args[i] == "--launcher":
            launcher = args[i + 1:]
            break
        else:
            raise ManifestError("check-rubric: unexpected argument %r" % args[i])
    m = load(root, lab)
    env = dict(os.environ, **MPI_AS_ROOT_ENV)
    problems = []
    for kind, binary in sorted(binaries.items()):
        _, found = expand_rubric(m["tests"][kind]["points"], list_tests(binary, launcher, env))
        problems += ["%s (%s tests)" % (p, kind) for p in found]
    for p in problems:
        print("labs/%s/lab.json: %s" % (lab, p))
    if not problems:
        print("labs/%s/lab.json: every test has exactly one rubric entry and every entry a test" % lab)
    return 1 if problems else 0

