"""The rubric: which test earns which points (lab.json's tests.*.points)."""
import fnmatch
import subprocess

from .base import ManifestError

def is_glob(key):
    return any(c in key for c in "*?[")


def matches_any(name, patterns):
    """Whether NAME (a test, or a self-check case) matches one of PATTERNS
    (fnmatch, case-sensitive, as lab.json's test lists are)."""
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def expand_rubric(points, tests):
    """Pure: POINTS (rubric keys, names or globs, -> points) against TESTS
    (the full names a test binary lists). Returns ([(test, points, key)] in
    TESTS' order, [problems]): a test matched by no key or by several, a key
    that matches no test."""
    assigned, problems, used = [], [], set()
    for test in tests:
        keys = [k for k in points if (fnmatch.fnmatchcase(test, k) if is_glob(k) else test == k)]
        if not keys:
            problems.append("test %s has no rubric entry" % test)
        elif len(keys) > 1:
            problems.append("test %s matches %d rubric entries (%s)" % (test, len(keys), ", ".join(keys)))
        else:
            assigned.append((test, points[keys[0]], keys[0]))
        used.update(keys)
    for key in points:
        if key not in used:
            problems.append("rubric entry %s matches no test" % key)
    return assigned, problems


def parse_test_list(text):
    """Pure: full test names from GoogleTest's --gtest_list_tests output."""
    names, suite = [], None
    for line in text.splitlines():
        if not line.strip() or line.startswith(("Running main()", "[")):
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
            continue
        if suite:
            names.append(suite + line.split("#")[0].strip())
    return names


def list_tests(binary, launcher=(), env=None, timeout=120):
    """The test names a GoogleTest binary holds (it runs no test)."""
    p = subprocess.run(list(launcher) + [binary, "--gtest_list_tests"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, timeout=timeout)
    if p.returncode != 0:
        raise ManifestError("%s --gtest_list_tests failed: %s" % (binary, p.stdout.decode("utf-8", "replace")[-500:]))
    return parse_test_list(p.stdout.decode("utf-8", "replace"))

