"""Run one GoogleTest test in its own sandboxed process and judge it.

A test passes only if every one of these holds:
  - the process exited with code 0 by itself (no signal, no timeout, its
    monitor alive);
  - GoogleTest's premature-exit file (TEST_PREMATURE_EXIT_FILE, created when
    the tests start and removed when they end normally) is gone, so an
    exit()/_exit() in the middle of a test is caught;
  - the JSON report in the fresh run directory (any earlier file there is
    removed first) parses and names exactly the one test asked for, with
    status RUN, result COMPLETED and no failures.
Nothing the program prints is ever read for a score.
"""
import json
import os

from . import sandbox as sb_mod

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


class Verdict:
    def __init__(self, status, reason, detail="", outcome=None):
        self.status = status      # passed / failed / skipped
        self.reason = reason      # one line in plain words
        self.detail = detail      # failure messages, output excerpt
        self.outcome = outcome    # sandbox.Outcome

    @property
    def needs_gpu(self):
        return self.status == SKIPPED and "needs a GPU" in self.reason

    def __repr__(self):
        return "Verdict(%s, %r)" % (self.status, self.reason)


def test_limits(timeout_s, memory_bytes):
    return sb_mod.Limits(wall_s=timeout_s, cpu_s=int(max(30, 4 * timeout_s)), data_bytes=memory_bytes,
                         fsize_bytes=256 * sb_mod.MiB)


def run_one(sandbox, ws, binary, name, timeout_s, memory_bytes, prefix=(), extra_env=None,
            premature_file=True, ro_extra=()):
    """Run BINARY --gtest_filter=NAME; return a Verdict."""
    run_dir = ws.new_run_dir()
    report = os.path.join(run_dir, "gtest.json")
    premature = os.path.join(run_dir, "premature_exit")
    for p in (report, premature):
        if os.path.lexists(p):
            os.remove(p)
    env = sb_mod.base_env(ws.home, {"GTEST_COLOR": "no"})
    if premature_file:
        env["TEST_PREMATURE_EXIT_FILE"] = premature
    if extra_env:
        env.update(extra_env)
    argv = list(prefix) + [binary, "--gtest_filter=" + name, "--gtest_output=json:" + report,
                           "--gtest_color=no"]
    # The build is read-only inside the sandbox: a test cannot replace its
    # own binary (or another) for the runs after it.
    outcome = sandbox.execute(argv, test_limits(timeout_s, memory_bytes),
                              ro=[ws.build] + list(ro_extra), rw=[run_dir, ws.home], cwd=run_dir, env=env)
    try:
        with open(report, "rb") as f:
            text = f.read(8 << 20).decode("utf-8", "replace")
    except OSError:
        text = None
    return judge(name, outcome, text, premature_file and os.path.lexists(premature))


def judge(name, outcome, report_text, premature_exists):
    """Pure: the verdict for test NAME from how its process ended, the JSON
    report's text (None if absent) and whether the premature-exit file is
    still there."""
    v = _judge(name, outcome, report_text, premature_exists)
    v.reason, v.detail = tidy(v.reason), tidy(v.detail)
    return v


def tidy(text):
    """Paths as the student knows them (labs/..., not the build's ../src/labs/...)."""
    return text.replace("../src/", "")


GTEST_NOISE = ("Running main() from", "Note: Google Test filter", "[==========]", "[----------]", "[ RUN      ]",
               "[       OK ]", "[  FAILED  ]", "[  PASSED  ]", "[  SKIPPED ]", " 1 FAILED TEST", "Global test environment")


def program_output(output, known=""):
    """The program's own lines: without GoogleTest's progress lines and
    without lines already shown from the report (KNOWN). Display only."""
    known_lines = {l.strip() for l in known.splitlines() if l.strip()}
    keep = [l for l in output.splitlines()
            if l.strip() and not l.startswith(GTEST_NOISE) and l.strip() not in known_lines
            and not l.strip().endswith(": Failure")]
    return "\n".join(keep)


def _judge(name, outcome, report_text, premature_exists):
    excerpt = output_excerpt(program_output(outcome.output))
    if outcome.timed_out or outcome.monitor_lost or outcome.signal is not None:
        return Verdict(FAILED, outcome.describe(), excerpt, outcome)
    if premature_exists:
        return Verdict(FAILED, "exited before the test finished (exit code %s, e.g. exit() or _exit() "
                               "called during the test)" % outcome.exit_code, excerpt, outcome)
    if report_text is None:
        return Verdict(FAILED, "exited before the test finished: no test report was written "
                               "(exit code %s)" % outcome.exit_code, excerpt, outcome)
    try:
        report = json.loads(report_text)
        cases = list(test_cases(report))
    except (ValueError, TypeError, AttributeError, KeyError):
        return Verdict(FAILED, "the test report is not valid GoogleTest JSON", excerpt, outcome)
    names = [c[0] for c in cases]
    if names != [name]:
        if not names or name not in names:
            return Verdict(FAILED, "did not run: the test binary has no test named %s" % name, excerpt, outcome)
        return Verdict(FAILED, "the test report names other tests than the one run (%s): not trusted"
                       % ", ".join(n for n in names if n != name)[:200], excerpt, outcome)
    case = cases[0][1]
    status, result = case.get("status"), case.get("result")
    failures = [f.get("failure", "") if isinstance(f, dict) else str(f) for f in case.get("failures", [])]
    if result == "SKIPPED":
        # GoogleTest 1.12's JSON carries no skip message: take the reason from
        # the output. It only labels the skip; a skipped test scores 0 anyway.
        why = skip_message(case) or first_line_with(outcome.output, "needs a GPU") or "skipped"
        if outcome.exit_code != 0:
            return Verdict(FAILED, "skipped, then exited with code %s" % outcome.exit_code, excerpt, outcome)
        return Verdict(SKIPPED, why, "", outcome)
    if status != "RUN" or result != "COMPLETED":
        return Verdict(FAILED, "the test did not complete (status %s, result %s)" % (status, result),
                       excerpt, outcome)
    if failures:
        text = "\n".join(failures)
        own = output_excerpt(program_output(outcome.output, text))
        return Verdict(FAILED, failure_reason(text), clip(text, 2000) + excerpt_suffix(own), outcome)
    if outcome.exit_code != 0:
        return Verdict(FAILED, "the test finished but the process exited with code %s" % outcome.exit_code,
                       excerpt, outcome)
    own = output_excerpt(program_output(outcome.output), 600)
    note = ""
    if outcome.truncated_bytes:
        note = "its output was cut: %d bytes beyond the %d kept were dropped" % (
            outcome.truncated_bytes, len(outcome.output.encode()))
    return Verdict(PASSED, "passed" + ("; " + note if note else ""), excerpt_suffix(own) if own else "", outcome)


def test_cases(report):
    """(full name, testcase dict) for every test in a GoogleTest JSON report."""
    for suite in report["testsuites"]:
        for case in suite["testsuite"]:
            yield "%s.%s" % (case.get("classname", suite.get("name")), case["name"]), case


def skip_message(case):
    for key in ("skipped", "failures"):
        items = case.get(key)
        if isinstance(items, list):
            for item in items:
                text = item.get("message") or item.get("skipped") or item.get("failure") if isinstance(item, dict) else str(item)
                if text:
                    return first_line_with(text, "needs a GPU") or text.strip().splitlines()[-1][:300]
    return ""


def first_line_with(text, needle):
    for line in text.splitlines():
        if needle in line:
            return line[line.index(needle):].strip()[:300]
    return ""


def failure_reason(text):
    line = first_line_with(text, "not implemented:")
    if line:
        what = line[len("not implemented:"):].split("(look for")[0].strip()
        return "not implemented (%s)" % what if what else "not implemented"
    if "std::bad_alloc" in text:
        return "failed: ran out of memory (std::bad_alloc) under the grader's memory limit"
    if "C++ exception" in text or "threw an exception" in text or "Unknown C++ exception" in text:
        return "failed: an exception escaped: " + clip(first_line_with(text, "exception") or text, 200)
    return "failed: " + clip(" ".join(text.split()), 200)


def output_excerpt(output, n=1500):
    output = output.strip()
    if not output:
        return ""
    if len(output) > n:
        output = "[...]\n" + output[-n:]
    return output


def excerpt_suffix(excerpt):
    return "\n--- the program's own output (last lines) ---\n" + excerpt if excerpt else ""


def clip(text, n):
    return text if len(text) <= n else text[:n] + " [...]"
