"""compute-sanitizer on a GPU lab's tests: its points need a clean run.

The sanitizer runs the submission's test binary directly (as `meson test`
does: the same calls as the graded recording, without its record, which
nothing would read, and without the settle step of a recording, whose waits
for a call's threads the sanitizer's own threads would upset) on the lab's
chosen tests. The verdict comes
from the sanitizer's own exit status (99 = errors found), from a process
the submission's code runs inside of, and is paired with the trusted
judge's verdicts: the points need no sanitizer error AND those tests passed
the judge. The sanitizer's text only supplies the first error to show.
"""
import os

from . import host
from . import sandbox as sb_mod
from .build import SYSTEM_PREFIXES
from .judging import test_limits
from .manifest import matches_any


def run(ctx, cfg, item, judged):
    """Score ITEM from compute-sanitizer; JUDGED: {test: Verdict}."""
    if not ctx.gpu:
        item.set(0, "needs_gpu", "needs a GPU: compute-sanitizer runs on a GPU host")
        return
    tool = host.find_tool("compute-sanitizer")
    if not tool:
        item.set(0, "needs", "not run: compute-sanitizer is not installed on this host")
        return
    binary = ctx.ws.binary("-tests")
    if not os.path.isfile(binary):
        item.set(0, "failed", "not run: the test binary was not built")
        return
    pattern = cfg.get("gtest_filter", "*")
    chosen = [t for t, v in judged.items() if matches_any(t, pattern.split(":"))]
    not_passed = [t for t in chosen if judged[t].status != "passed"]
    if not chosen or not_passed:
        item.set(0, "failed", "not run: the tests it checks must pass first (%s)"
                 % (", ".join(not_passed[:5]) if not_passed else "none matched " + pattern))
        return
    ro = [] if tool.startswith(SYSTEM_PREFIXES) else [os.path.dirname(os.path.dirname(os.path.realpath(tool)))]
    reports = []
    tools = cfg.get("tools", ["memcheck"])
    for which in tools:
        why = run_one(ctx, tool, which, binary, pattern, ro)
        if why:
            reports.append("%s: %s" % (which, why))
    if reports:
        item.set(0, "failed", "\n".join(reports))
    else:
        item.set(item.max_score, "passed", "no errors (%s)" % ", ".join(tools))


def run_one(ctx, tool, which, binary, gtest_filter, ro):
    """None when clean, else a one-paragraph reason with the first error."""
    run_dir = ctx.ws.new_run_dir()
    env = sb_mod.base_env({"GTEST_COLOR": "no", "HPCLAB_SEED": str(ctx.seed)})
    argv = [tool, "--tool", which, "--error-exitcode", "99", binary, "--gtest_filter=" + gtest_filter]
    timeout = min(10 * ctx.opts.test_timeout, max(1.0, ctx.deadline.remaining()))
    o = ctx.sandbox.execute(argv, test_limits(timeout, ctx.opts.memory_bytes), ro=[ctx.ws.build] + list(ro),
                            rw=[run_dir], cwd=run_dir, env=env)
    if o.exit_code == 99:
        return "errors found; first: " + first_error(o.output)
    if not o.ended_by_itself:
        return "the run " + o.describe()
    return None


def first_error(text):
    lines = [l for l in text.splitlines() if l.startswith("=========")]
    for i, l in enumerate(lines):
        body = l.strip("= ").strip()
        if body and not body.startswith(("COMPUTE-SANITIZER", "ERROR SUMMARY")):
            return "\n".join(x.strip() for x in lines[i:i + 4])
    return "(no error text found)"
