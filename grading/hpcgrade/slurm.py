"""grading/slurm/grade-class-slurm: grade a class on a Slurm cluster.

It lists the roster (one sub-directory per student) into OUT/slurm/roster.txt,
submits grading/slurm/grade-array.sbatch as a job array (one task per batch
of students; each task writes OUT/students/NAME/results.json and grade.log
exactly as grade-class does) and a collect job that runs after the array,
however its tasks end (afterany):
    grading/grade-class LAB ROSTER --out OUT --collect
which writes the same gradebook.csv, summary.json and histogram.png as a
local grade-class run. With --wait it waits for the collect job (sbatch
--wait), prints its output and the jobs' accounting lines, and exits with the
collect job's status.

Each task's request comes from lab.json: CPUs for the largest MPI rank count
(2 for a sequential lab: the build and the tests run in parallel; 4 for
OpenMP and oneTBB labs), memory for the grader's per-process limit plus 1 GiB
per CPU (compilers, the judge), one GPU (--gres=gpu:1) for CUDA labs, and a
time limit of BATCH times the per-student limit plus a margin. A request the
partition's largest node cannot meet is lowered to fit, and said so.
"""
import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys

from . import cli, manifest, pipeline

PROG = "grading/slurm/grade-class-slurm"
ARRAY_SCRIPT = os.path.join("grading", "slurm", "grade-array.sbatch")
SEQUENTIAL_CPUS = 2
THREADED_CPUS = 4
THREADED_NEEDS = {"openmp", "tbb"}
MARGIN_MINUTES = 10


class UsageError(Exception):
    pass


def roster_names(roster):
    """The students: ROSTER's sub-directories (hidden ones excepted), sorted."""
    if not os.path.isdir(roster):
        raise UsageError("roster directory not found: %s" % roster)
    names = sorted(d for d in os.listdir(roster) if not d.startswith(".") and os.path.isdir(os.path.join(roster, d)))
    bad = [n for n in names if "\n" in n]
    if bad:
        raise UsageError("a student directory name holds a newline: %r" % bad[0])
    if not names:
        raise UsageError("roster %s holds no student directory" % roster)
    return names


def task_request(lab_data, memory_gib, student_timeout, batch, cpus=None):
    """What one array task asks for: {cpus, mem_mb, gpus, minutes}."""
    ranks = [int(r) for r in lab_data["mpi_ranks"] if str(r).isdigit()]
    if cpus is None:
        cpus = max(ranks) if ranks else THREADED_CPUS if THREADED_NEEDS & set(lab_data["needs"]) else SEQUENTIAL_CPUS
    return {"cpus": cpus,
            "mem_mb": int(math.ceil((memory_gib + cpus) * 1024)),
            "gpus": 1 if lab_data["needs_gpu"] else 0,
            "minutes": int(math.ceil(batch * student_timeout / 60.0)) + MARGIN_MINUTES}


def parse_sinfo(text):
    """`sinfo -h -o '%c %m %G'` lines -> {cpus, mem_mb, gpus}: the largest node
    of the partition (a task runs on one node)."""
    best = {"cpus": 0, "mem_mb": 0, "gpus": 0}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2 or not parts[0].rstrip("+").isdigit():
            continue
        best["cpus"] = max(best["cpus"], int(parts[0].rstrip("+")))
        mem = parts[1].rstrip("+")
        if mem.isdigit():
            best["mem_mb"] = max(best["mem_mb"], int(mem))
        for gres in (parts[2] if len(parts) > 2 else "").split(","):
            fields = gres.split("(")[0].split(":")
            if fields[0] == "gpu" and fields[-1].isdigit():
                best["gpus"] = max(best["gpus"], int(fields[-1]))
    return best


def fit(request, largest):
    """REQUEST lowered to what the largest node offers; returns (request, notes).
    A GPU that no node has is not lowered: that is an error for the caller."""
    fitted, notes = dict(request), []
    for key, unit in (("cpus", "CPUs"), ("mem_mb", "MB")):
        if largest[key] and fitted[key] > largest[key]:
            notes.append("asked %d %s per task, the largest node has %d: asking %d" % (
                fitted[key], unit, largest[key], largest[key]))
            fitted[key] = largest[key]
    return fitted, notes


def sbatch_array(repo, lab, roster, out, count, batch, request, partition, max_running, grade_args, extra):
    tasks = (count + batch - 1) // batch
    array = "0-%d" % (tasks - 1) + ("%%%d" % max_running if max_running else "")
    cmd = ["sbatch", "--parsable", "--job-name=grade-" + lab, "--array=" + array,
           "--cpus-per-task=%d" % request["cpus"], "--mem=%d" % request["mem_mb"],
           "--time=%d" % request["minutes"], "--output=" + os.path.join(out, "slurm", "array-%A_%a.out")]
    if request["gpus"]:
        cmd.append("--gres=gpu:%d" % request["gpus"])
    if partition:
        cmd.append("--partition=" + partition)
    return cmd + list(extra) + [os.path.join(repo, ARRAY_SCRIPT), repo, lab, roster, out, str(batch)] + grade_args


def sbatch_collect(repo, lab, roster, out, array_id, partition, wait, extra):
    cmd = ["sbatch", "--parsable", "--job-name=collect-" + lab, "--dependency=afterany:" + array_id,
           "--kill-on-invalid-dep=yes", "--cpus-per-task=1", "--mem=1024", "--time=30",
           "--output=" + os.path.join(out, "slurm", "collect-%j.out")]
    if partition:
        cmd.append("--partition=" + partition)
    if wait:
        cmd.append("--wait")
    collect = " ".join(shlex.quote(x) for x in [os.path.join(repo, "grading", "grade-class"), lab, roster,
                                                "--out", out, "--collect"])
    return cmd + list(extra) + ["--wrap", collect]


def run(cmd, check=True):
    """Run a Slurm client command, echoing it; return its stdout."""
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    text = p.stdout.decode("utf-8", "replace")
    if check and p.returncode != 0:
        raise UsageError("%s failed (exit %d): %s" % (cmd[0], p.returncode,
                                                       p.stderr.decode("utf-8", "replace").strip()[:500]))
    return p.returncode, text, p.stderr.decode("utf-8", "replace")


def accounting(job_ids):
    """The jobs' accounting lines: sacct from slurmdbd, or, on a cluster
    without it (tools/slurm-localhost), from the job completion log."""
    fields = "JobID,JobName%20,State,ExitCode,Elapsed,NodeList"
    jobs = ",".join(job_ids)
    rc, text, _ = run(["sacct", "-X", "-j", jobs, "-o", fields], check=False)
    if rc != 0 or not text.strip():
        rc, text, _ = run(["sacct", "--completion", "-j", jobs, "-o", fields], check=False)
    return text.rstrip()


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description="Grade a class on a Slurm cluster (see %s/README.md)."
                                % os.path.dirname(ARRAY_SCRIPT))
    p.add_argument("lab", help="the lab (01, 01-sorting, sorting)")
    p.add_argument("roster", help="a directory with one sub-directory per student")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="class output: DIR/students/NAME/results.json, DIR/gradebook.csv, ... "
                   "(on a file system every node shares)")
    p.add_argument("--batch", type=cli.positive_int, default=1, metavar="K", help="students per array task (default 1)")
    p.add_argument("--partition", metavar="P", help="Slurm partition (default: the cluster's default)")
    p.add_argument("--max-running", type=cli.positive_int, metavar="N", help="at most N array tasks at once")
    p.add_argument("--wait", action="store_true", help="wait for the gradebook, print it and the jobs' accounting")
    p.add_argument("--no-perf", action="store_true", help="do not time the driver (grading/grade --no-perf)")
    p.add_argument("--student-timeout", type=cli.positive_float, default=pipeline.DEFAULT_TIME_LIMIT, metavar="S",
                   help="wall-time limit per student, seconds (default %(default)s)")
    p.add_argument("--memory", type=cli.positive_float, default=pipeline.DEFAULT_MEMORY_GIB, metavar="GIB",
                   help="the grader's memory limit per process, GiB (default %(default)s)")
    p.add_argument("--cpus", type=cli.positive_int, help="CPUs per task (default: from lab.json)")
    p.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   help="one more sbatch option for both jobs (--account=..., --qos=...); repeatable")
    return p.parse_args(argv)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    repo = manifest.repo_root()
    try:
        lab = manifest.resolve_lab(repo, a.lab)
        data = manifest.load(repo, lab)
        roster = os.path.abspath(a.roster)
        names = roster_names(roster)
        missing = [t for t in ("sbatch", "sinfo", "sacct") if shutil.which(t) is None]
        if missing:
            raise UsageError("not on a Slurm client: %s not found (apt-get install slurm-client; "
                             "tools/slurm-localhost start for a cluster on this machine)" % ", ".join(missing))
        out = os.path.abspath(a.out)
        os.makedirs(os.path.join(out, "slurm"), exist_ok=True)
        os.makedirs(os.path.join(out, "students"), exist_ok=True)
        request = task_request(data, a.memory, a.student_timeout, a.batch, a.cpus)
        sinfo = ["sinfo", "-h", "-o", "%c %m %G"] + (["-p", a.partition] if a.partition else [])
        largest = parse_sinfo(run(sinfo)[1])
        if not largest["cpus"]:
            raise UsageError("sinfo lists no node%s" % (" in partition %s" % a.partition if a.partition else ""))
        if request["gpus"] and not largest["gpus"]:
            raise UsageError("lab %s needs a GPU and no node%s has gres/gpu (sinfo -o %%G)" % (
                lab, " of partition %s" % a.partition if a.partition else ""))
        request, notes = fit(request, largest)
    except (UsageError, manifest.ManifestError, OSError) as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 2
    for note in notes:
        print("%s: %s" % (PROG, note))
    with open(os.path.join(out, "slurm", "roster.txt"), "w", encoding="utf-8") as f:
        f.write("".join(n + "\n" for n in names))
    grade_args = ["--time-limit", "%g" % a.student_timeout, "--memory", "%g" % a.memory, "--quiet"]
    if a.no_perf:
        grade_args.append("--no-perf")
    try:
        array_id = run(sbatch_array(repo, lab, roster, out, len(names), a.batch, request, a.partition,
                                    a.max_running, grade_args, a.sbatch_arg))[1].strip().split(";")[0]
        print("array job %s: %d students, %d per task, %d CPUs, %d MB%s per task" % (
            array_id, len(names), a.batch, request["cpus"], request["mem_mb"], ", 1 GPU" if request["gpus"] else ""))
        cmd = sbatch_collect(repo, lab, roster, out, array_id, a.partition, a.wait, a.sbatch_arg)
        rc, text, err = run(cmd, check=not a.wait)
    except UsageError as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 2
    collect_id = text.strip().split(";")[0]
    print("collect job %s runs after the array: %s" % (collect_id, os.path.join(out, "gradebook.csv")))
    if not a.wait:
        return 0
    log = os.path.join(out, "slurm", "collect-%s.out" % collect_id)
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            print(f.read().rstrip())
    except OSError:
        print("%s: no output from the collect job (%s)" % (PROG, log))
    print(accounting([array_id, collect_id]))
    if rc != 0:
        print("%s: error: the collect job failed (exit %d) %s" % (PROG, rc, err.strip()), file=sys.stderr)
        return 1
    return 0
