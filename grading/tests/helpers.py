"""Shared helpers for the grader's tests: grade a fixture through the real
command line and read its results.json."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GRADING = os.path.dirname(HERE)
ROOT = os.path.dirname(GRADING)
FIXTURES = os.path.join(HERE, "fixtures")
sys.path.insert(0, GRADING)

from hpcgrade import sandbox as sb_mod  # noqa: E402

_BWRAP = [None]


def bwrap_works():
    if _BWRAP[0] is None:
        sb = sb_mod.Sandbox()
        _BWRAP[0] = (sb.active, sb.reason)
    return _BWRAP[0]


def fixture_copy(lab, name, tmp):
    """The fixture's submission in TMP/NAME: the solution's student files
    (the starter's where the fixture's `base` says so) with the fixture's
    attack.patch applied, when it has one -- the same mechanism as the
    self-check's mutants, so a fixture follows every change to the solution.
    Where the fixture says @REPO_ROOT@ the repo's real path is written (as an
    attacker who guessed the path would)."""
    from hpcgrade import selfcheck
    src = os.path.join(FIXTURES, lab, name)
    if not os.path.isdir(src):
        raise FileNotFoundError("no fixture %s" % src)
    patch = os.path.join(src, "attack.patch")
    dst = selfcheck.patched_submission(ROOT, lab, patch if os.path.exists(patch) else None, os.path.join(tmp, name),
                                       base="labs" if fixture_base(lab, name) == "starter" else "solutions")
    for base, _, files in os.walk(dst):
        for f in files:
            p = os.path.join(base, f)
            with open(p, encoding="utf-8") as fh:
                text = fh.read()
            if "@REPO_ROOT@" in text:
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write(text.replace("@REPO_ROOT@", ROOT))
    return dst


def fixture_base(lab, name):
    """"starter" or "solution": what the fixture's attack.patch applies to
    (its file `base`; the fixture named starter is the starter itself)."""
    if name == "starter":
        return "starter"
    try:
        with open(os.path.join(FIXTURES, lab, name, "base")) as f:
            return f.read().strip()
    except OSError:
        return "solution"


def grade(args, env_extra=None, timeout=900):
    """Run grading/grade ARGS; return (exit code, stdout+stderr, results or None)."""
    tmp = tempfile.mkdtemp(prefix="hpcgrade-test-")
    out = os.path.join(tmp, "results.json")
    env = dict(os.environ)
    env.update(env_extra or {})
    try:
        p = subprocess.run([sys.executable, os.path.join(GRADING, "grade")] + list(args) + ["--out", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=timeout,
                           cwd=tmp)
        data = None
        if os.path.exists(out):
            with open(out) as f:
                data = json.load(f)
        return p.returncode, p.stdout.decode("utf-8", "replace"), data
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def grade_fixture(lab, name, extra_args=(), env_extra=None, timeout=900):
    tmp = tempfile.mkdtemp(prefix="hpcgrade-fixture-")
    try:
        d = fixture_copy(lab, name, tmp)
        return grade([lab, "--submission", d, "--quiet"] + list(extra_args), env_extra, timeout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def by_name(data):
    return {t["name"]: t for t in data["tests"]}
