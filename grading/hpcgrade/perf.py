"""Performance of a submission relative to the reference, timed from outside.

The driver's own printed times come from the student's process and could be
forged, so they are never scored. Instead the grader times the whole driver
process at two repetition counts, R1 and R2 (the benchmark's --reps value
replaced): (t(R2) - t(R1)) / (R2 - R1) is the cost of one repetition;
start-up, data generation and checking cancel out. Reference and submission
run alternately for several rounds; for each program and repetition count
the minimum over the rounds is kept (load from other processes only ever adds
time, so the minimum is the cleanest figure).

What t is: for a lab that needs no parallel feature (no OpenMP, TBB, MPI or
CUDA) it is the CPU time (user + system) of the driver process as the kernel
counts it (os.wait4 in the monitor): for sequential code that is the wall time
without the interference of other work on a shared grading machine, which
made wall-time ratios swing by a factor of two on a busy 2-core host. For
parallel labs it is the wall time, since their point is to use more cores.

GPU labs are the exception ("reported"): their kernels take about a
millisecond, far below what whole-process timing resolves (creating a CUDA
context alone varies by tens of milliseconds), so the external difference is
noise and could even come out negative. For them the grader reads the CUDA
event median the driver reports for the benchmark's `measure` line, for the
reference and the submission alike, median over the rounds. That figure comes
from the submission's process: it is trusted only after every visible test
passed, and the report says which figure was used, so a reviewer can rerun it.

The anchor: a lab's driver may time its anchor (e.g. std::sort) in every
repetition, in the same process, so one repetition = anchor + the student's
part. When the trusted reference driver's JSON lines show the anchor and the
measured part both timed R2 times (evidence that the anchor runs per
repetition), the anchor's share of a repetition, a / (a + b) from those lines,
is taken off both per-repetition costs, so the ratio compares the student's
part only and is not diluted towards 1.
"""
import json
import statistics

REPS = (1, 4)
PARALLEL_NEEDS = {"openmp", "tbb", "mpi", "cuda", "cublas"}


GPU_NEEDS = {"cuda", "cublas"}


def metric_for(needs):
    if set(needs) & GPU_NEEDS:
        return "reported"
    return "wall" if set(needs) & PARALLEL_NEEDS else "cpu"


def with_reps(args, reps):
    """Pure: ARGS with the value after --reps replaced (appended if absent)."""
    out, i, done = [], 0, False
    while i < len(args):
        if args[i] == "--reps" and i + 1 < len(args):
            out += ["--reps", str(reps)]
            i += 2
            done = True
            continue
        if args[i].startswith("--reps="):
            out.append("--reps=%d" % reps)
            done = True
        else:
            out.append(args[i])
        i += 1
    return out if done else out + ["--reps", str(reps)]


def json_lines(output):
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield obj


def line_seconds(output, name, reps=None):
    """Pure: the median seconds of the JSON line named NAME (None if absent,
    or if REPS is given and the line was not timed REPS times)."""
    for obj in json_lines(output):
        if obj.get("name") == name:
            sec = obj.get("seconds")
            if isinstance(sec, dict) and isinstance(sec.get("median"), (int, float)):
                if reps is not None and sec.get("reps") != reps:
                    return None
                return float(sec["median"])
    return None


def anchor_seconds(output, anchor):
    return line_seconds(output, anchor)


def anchor_share(output, anchor, measure, reps):
    """Pure: the anchor's share of one repetition, from the reference's JSON."""
    a = line_seconds(output, anchor, reps)
    b = line_seconds(output, measure, reps)
    if a is None or b is None or a + b <= 0:
        return None
    return a / (a + b)


class PerfResult:
    def __init__(self):
        self.t_ref = None
        self.t_sub = None
        self.raw_ref = None
        self.raw_sub = None
        self.share = None
        self.ratio = None
        self.metric = "wall"
        self.error = ""
        self.rounds = 0


def per_rep(walls, r1, r2):
    """Pure: cost per repetition from the times measured at R1 and R2
    repetitions over several rounds (the minimum of each, see above)."""
    return max(min(walls[r2]) - min(walls[r1]), 0.0) / (r2 - r1)


def measure(run_driver, sub_binary, ref_binary, args, anchor_name=None, measure_name=None, rounds=3,
            reps=REPS, metric="wall"):
    """RUN_DRIVER(binary, argv) -> sandbox.Outcome. Returns a PerfResult."""
    if metric == "reported":
        return measure_reported(run_driver, sub_binary, ref_binary, args, measure_name, rounds)
    res = PerfResult()
    res.metric = metric
    times = {"ref": {r: [] for r in reps}, "sub": {r: [] for r in reps}}
    shares = []
    r1, r2 = reps
    for rnd in range(rounds):
        order = [("ref", ref_binary), ("sub", sub_binary)]
        if rnd % 2:
            order.reverse()
        for who, binary in order:
            for r in (r1, r2):
                out = run_driver(binary, with_reps(args, r))
                if not out.ok:
                    whose = "the reference driver" if who == "ref" else "your driver"
                    res.error = "%s %s with --reps %d" % (whose, out.describe(), r)
                    if out.exit_code not in (None, 0):
                        res.error += ": " + " ".join(out.output.strip().splitlines()[-2:])[:300]
                    return res
                t = out.cpu_s if metric == "cpu" and out.cpu_s is not None else out.wall_s
                times[who][r].append(t)
                if who == "ref" and r == r2 and anchor_name and measure_name:
                    s = anchor_share(out.output, anchor_name, measure_name, r2)
                    if s is not None:
                        shares.append(s)
        res.rounds += 1
    res.raw_ref = per_rep(times["ref"], r1, r2)
    res.raw_sub = per_rep(times["sub"], r1, r2)
    res.share = statistics.median(shares) if shares else None
    anchor = (res.share or 0.0) * res.raw_ref
    # Never let noise make a time vanish: keep at least 5% of the raw figure.
    res.t_ref = max(res.raw_ref - anchor, 0.05 * res.raw_ref)
    res.t_sub = max(res.raw_sub - anchor, 0.05 * res.raw_sub)
    res.ratio = res.t_ref / res.t_sub if res.t_sub > 0 else None
    if res.ratio is None:
        res.error = "the timings were too noisy to compare (a repetition cost nothing measurable)"
    return res


def measure_reported(run_driver, sub_binary, ref_binary, args, measure_name, rounds):
    """The GPU path (see the module's docstring): the median of the reported
    medians of MEASURE_NAME, reference and submission run alternately."""
    res = PerfResult()
    res.metric = "reported"
    times = {"ref": [], "sub": []}
    for rnd in range(rounds):
        order = [("ref", ref_binary), ("sub", sub_binary)]
        if rnd % 2:
            order.reverse()
        for who, binary in order:
            whose = "the reference driver" if who == "ref" else "your driver"
            out = run_driver(binary, list(args))
            if not out.ok:
                res.error = "%s %s" % (whose, out.describe())
                if out.exit_code not in (None, 0):
                    res.error += ": " + " ".join(out.output.strip().splitlines()[-2:])[:300]
                return res
            t = line_seconds(out.output, measure_name) if measure_name else None
            if t is None or t <= 0:
                res.error = "%s printed no timing for '%s' in its --json output" % (whose, measure_name)
                return res
            times[who].append(t)
        res.rounds += 1
    res.t_ref = res.raw_ref = statistics.median(times["ref"])
    res.t_sub = res.raw_sub = statistics.median(times["sub"])
    res.ratio = res.t_ref / res.t_sub
    return res
