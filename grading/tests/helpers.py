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
    """Copy a fixture into TMP, writing the repo's real path where the fixture
    says @REPO_ROOT@ (as an attacker who guessed the path would)."""
    src = os.path.join(FIXTURES, lab, name)
    dst = os.path.join(tmp, name)
    shutil.copytree(src, dst)
    for base, _, files in os.walk(dst):
        for f in files:
            p = os.path.join(base, f)
            with open(p, encoding="utf-8") as fh:
                text = fh.read()
            if "@REPO_ROOT@" in text:
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write(text.replace("@REPO_ROOT@", ROOT))
    return dst


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


def grade_fixture(lab, name, extra_args=(), env_extra=None):
    tmp = tempfile.mkdtemp(prefix="hpcgrade-fixture-")
    try:
        d = fixture_copy(lab, name, tmp)
        return grade([lab, "--submission", d, "--quiet"] + list(extra_args), env_extra)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def by_name(data):
    return {t["name"]: t for t in data["tests"]}
