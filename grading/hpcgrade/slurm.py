"""grading/slurm/grade-class-slurm: grade a class on a Slurm cluster.

It lists the students to grade into OUT/slurm/roster.txt (as grade-class, it
skips a student whose results.json is newer than their files), submits
grading/slurm/grade-array.sbatch as a job array (one task per batch of
students; each task runs grade_task() below, which grades every student of
its batch with grade-class's own grade_one(): OUT/students/NAME/results.json
and grade.log, the same wall limit, the same reaping of leftover processes)
and a collect job that runs after the array, however its tasks end
(afterany):
    grading/grade-class LAB ROSTER --out OUT --collect
which writes the same gradebook.csv, summary.json and histogram.png as a
local grade-class run. With --wait it waits for the collect job (sbatch
--wait), prints its output and the jobs' accounting lines, and exits with the
collect job's status.

Each task's request comes from lab.json: CPUs for the largest MPI rank count
(2 for a sequential lab: the build and the tests run in parallel; 4 for
OpenMP and oneTBB labs), memory for the grader's per-process limit plus 1 GiB
per CPU (compilers, the judge), one GPU (--gres=gpu:1) for CUDA labs (a
node's GPUs for a lab with every_gpu: its tests use all they see), and a
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

from . import classrun, cli, gradebook, inputs, manifest, pipeline, reaper, report

PROG = "grading/slurm/grade-class-slurm"
ARRAY_SCRIPT = os.path.join("grading", "slurm", "grade-array.sbatch")
SEQUENTIAL_CPUS = 2
THREADED_CPUS = 4
THREADED_NEEDS = {"openmp", "tbb"}
MARGIN_MINUTES = 10


# One kind of usage error for every command (one clear line, exit 2).
UsageError = inputs.UsageError


def roster_names(roster):
    """The students (gradebook.roster_names); one clear error when there is
    none, or a name roster.txt cannot hold."""
    inputs.require_directory(roster, "roster")
    names = gradebook.roster_names(roster)
    if not names:
        raise UsageError("the roster %s has no student sub-directories" % roster)
    bad = [n for n in names if "\n" in n]
    if bad:
        raise UsageError("a student directory name holds a newline: %r" % bad[0])
    return names


def task_request(lab_data, memory_gib, student_timeout, batch, cpus=None, node_gpus=1):
    """What one array task asks for: {cpus, mem_mb, gpus, minutes}. A lab
    whose tests use every GPU they see (lab.json every_gpu) asks for
    NODE_GPUS, the largest node's."""
    ranks = [int(r) for r in lab_data["mpi_ranks"] if str(r).isdigit()]
    if cpus is None:
        cpus = max(ranks) if ranks else THREADED_CPUS if THREADED_NEEDS & set(lab_data["needs"]) else SEQUENTIAL_CPUS
    return {"cpus": cpus,
            "mem_mb": int(math.ceil((memory_gib + cpus) * 1024)),
            "gpus": (max(1, node_gpus) if lab_data["every_gpu"] else 1) if lab_data["needs_gpu"] else 0,
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


def sbatch_array(repo, lab, roster, out, count, batch, request, partition, max_running, task_args, extra):
    tasks = (count + batch - 1) // batch
    array = "0-%d" % (tasks - 1) + ("%%%d" % max_running if max_running else "")
    cmd = ["sbatch", "--parsable", "--job-name=grade-" + lab, "--array=" + array,
           "--cpus-per-task=%d" % request["cpus"], "--mem=%d" % request["mem_mb"],
           "--time=%d" % request["minutes"], "--output=" + os.path.join(out, "slurm", "array-%A_%a.out")]
    if request["gpus"]:
        cmd.append("--gres=gpu:%d" % request["gpus"])
    if partition:
        cmd.append("--partition=" + partition)
    return cmd + list(extra) + [os.path.join(repo, ARRAY_SCRIPT), repo, str(batch), lab, roster,
                                "--out", out] + task_args


def sbatch_collect(repo, lab, roster, out, after, partition, wait, extra):
    cmd = ["sbatch", "--parsable", "--job-name=collect-" + lab, "--cpus-per-task=1", "--mem=1024", "--time=30",
           "--output=" + os.path.join(out, "slurm", "collect-%j.out")]
    if after:
        cmd += ["--dependency=afterany:" + after, "--kill-on-invalid-dep=yes"]
    if partition:
        cmd.append("--partition=" + partition)
    if wait:
        cmd.append("--wait")
    collect = [os.path.join(repo, "grading", "grade-class"), lab, roster, "--out", out, "--collect"]
    return cmd + list(extra) + ["--wrap", " ".join(shlex.quote(x) for x in collect)]


def run(cmd, check=True):
    """Run a Slurm client command, echoing it; return (status, stdout, stderr)."""
    print("+ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    if check and p.returncode != 0:
        raise UsageError("%s failed (exit %d): %s" % (cmd[0], p.returncode, err.strip()[:500]))
    return p.returncode, out, err


def job_id(sbatch_output):
    """sbatch --parsable prints "ID" or "ID;CLUSTER"."""
    return sbatch_output.strip().splitlines()[-1].split(";")[0] if sbatch_output.strip() else ""


def accounting(lab, array_id, collect_id):
    """The jobs' accounting lines: sacct from slurmdbd, or, on a cluster
    without it (tools/slurm-localhost), from the job completion log. There
    -j and --name do not filter, and an array's tasks have job ids of their
    own, given as they start: keep this run's job names from the array on."""
    fields = ["-o", "JobID,JobName%20,State,ExitCode,Elapsed,NodeList"]
    ids = [j for j in (array_id, collect_id) if j]
    rc, text, _ = run(["sacct", "-X", "-j", ",".join(ids)] + fields, check=False)
    if rc == 0 and len(text.strip().splitlines()) > 2:
        return text.rstrip()
    rc, text, err = run(["sacct", "--completion"] + fields, check=False)
    if rc != 0:
        return "sacct: " + err.strip()
    lines = text.rstrip().splitlines()
    first = min(int(j) for j in ids if j.isdigit()) if any(j.isdigit() for j in ids) else 0
    names = ("grade-" + lab, "collect-" + lab)
    mine = [x for x in lines[2:] if len(x.split()) > 1 and x.split()[0].isdigit()
            and int(x.split()[0]) >= first and x.split()[1] in names]
    return "\n".join(lines[:2] + mine)


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description="Grade a class on a Slurm cluster (see grading/slurm/README.md).")
    p.add_argument("lab", help="the lab (01, 01-sorting, sorting)")
    p.add_argument("roster", help="a directory with one sub-directory per student")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="class output: DIR/students/NAME/results.json, DIR/gradebook.csv, ... "
                   "(on a file system every node shares, as are ROSTER and this repository)")
    p.add_argument("--batch", type=cli.positive_int, default=1, metavar="K", help="students per array task (default 1)")
    p.add_argument("--partition", metavar="P", help="Slurm partition (default: the cluster's default)")
    p.add_argument("--max-running", type=cli.positive_int, metavar="N", help="at most N array tasks at once")
    p.add_argument("--wait", action="store_true", help="wait for the gradebook, print it and the jobs' accounting")
    p.add_argument("--no-perf", action="store_true", help="do not time the drivers")
    p.add_argument("--student-timeout", type=cli.positive_float, default=classrun.DEFAULT_STUDENT_TIMEOUT,
                   metavar="S", help="wall limit of one student's grade, seconds (default %(default)s)")
    p.add_argument("--cpus", type=cli.positive_int, help="CPUs per task (default: from lab.json)")
    p.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                   help="one more sbatch option for both jobs (--account=..., --qos=...); repeatable")
    return p.parse_args(argv)


def prepare(a, repo):
    """Check everything before anything is submitted; returns (lab, roster,
    out, students to grade, roster names, request, notes). Raises UsageError."""
    try:
        lab = manifest.resolve_lab(repo, a.lab)
        data = manifest.load(repo, lab)
    except manifest.ManifestError as e:
        raise UsageError(str(e))
    roster, out = os.path.abspath(a.roster), os.path.abspath(a.out)
    names = roster_names(roster)
    missing = [t for t in ("sbatch", "sinfo", "sacct") if shutil.which(t) is None]
    if missing:
        raise UsageError("not a Slurm client: %s not found (apt-get install slurm-client; "
                         "tools/slurm-localhost start for a cluster on this machine)" % ", ".join(missing))
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError("--out %s exists and is not a directory" % a.out)
    why = report.unwritable(os.path.join(out, "slurm", "roster.txt"))
    if why:
        raise UsageError("cannot write to %s: %s" % (a.out, why))
    where = " of partition %s" % a.partition if a.partition else ""
    largest = parse_sinfo(run(["sinfo", "-h", "-o", "%c %m %G"] + (["-p", a.partition] if a.partition else []))[1])
    if not largest["cpus"]:
        raise UsageError("sinfo lists no node%s" % where)
    request = task_request(data, pipeline.DEFAULT_MEMORY_GIB, a.student_timeout, a.batch, a.cpus, largest["gpus"])
    if request["gpus"] and not largest["gpus"]:
        raise UsageError("lab %s needs a GPU and no node%s has gres/gpu (sinfo -o %%G)" % (lab, where))
    request, notes = fit(request, largest)
    todo = [n for n in names if not classrun.up_to_date(lab, os.path.join(roster, n),
                                                          gradebook.results_path(out, n))]
    return lab, roster, out, todo, names, request, notes


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    repo = manifest.repo_root()
    try:
        lab, roster, out, todo, names, request, notes = prepare(a, repo)
        for note in notes:
            print("%s: %s" % (PROG, note))
        os.makedirs(os.path.join(out, "slurm"), exist_ok=True)
        with open(os.path.join(out, "slurm", "roster.txt"), "w", encoding="utf-8") as f:
            f.write("".join(n + "\n" for n in todo))
        print("%s: %d students, %d up to date, %d to grade" % (lab, len(names), len(names) - len(todo), len(todo)))
        array_id = ""
        if todo:
            task_args = ["--student-timeout", repr(a.student_timeout)] + (["--no-perf"] if a.no_perf else [])
            array_id = job_id(run(sbatch_array(repo, lab, roster, out, len(todo), a.batch, request, a.partition,
                                               a.max_running, task_args, a.sbatch_arg))[1])
            print("array job %s: %d tasks of %d students at most; %d CPUs, %d MB%s per task" % (
                array_id, (len(todo) + a.batch - 1) // a.batch, a.batch, request["cpus"], request["mem_mb"],
                ", %d GPU%s" % (request["gpus"], "s" if request["gpus"] > 1 else "") if request["gpus"] else ""))
        rc, text, err = run(sbatch_collect(repo, lab, roster, out, array_id, a.partition, a.wait, a.sbatch_arg),
                            check=not a.wait)
    except (UsageError, OSError) as e:
        print("%s: error: %s" % (PROG, e), file=sys.stderr)
        return 2
    collect_id = job_id(text)
    print("collect job %s%s: %s" % (collect_id, " runs after the array" if array_id else "",
                                    os.path.join(out, gradebook.CSV_NAME)))
    if not a.wait:
        return 0
    log = os.path.join(out, "slurm", "collect-%s.out" % collect_id)
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            print(f.read().rstrip())
    except OSError:
        print("%s: no output from the collect job (%s)" % (PROG, log))
    print(accounting(lab, array_id, collect_id))
    if rc != 0 or not collect_id:
        print("%s: error: the collect job failed (sbatch --wait exit %d) %s" % (PROG, rc, err.strip()),
              file=sys.stderr)
        return 1
    return 0


def grade_task(argv=None):
    """grading/slurm/grade-task TASK BATCH LAB ROSTER --out DIR [grade-class options]:
    one array task. Grades lines TASK*BATCH+1 .. (TASK+1)*BATCH of
    DIR/slurm/roster.txt one after the other with grade-class's grade_one,
    then kills whatever those grades left running below it. Exit 0 whatever
    the students' code did (the collect step reports each student)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2 or not all(x.isdigit() for x in argv[:2]) or int(argv[1]) < 1:
        print("usage: grade-task TASK BATCH LAB ROSTER --out DIR [grade-class options]", file=sys.stderr)
        return 2
    task, batch = int(argv[0]), int(argv[1])
    a = classrun.parse_args(argv[2:])
    lab = manifest.resolve_lab(manifest.repo_root(), a.lab)
    roster, out = os.path.abspath(a.roster), os.path.abspath(a.out)
    with open(os.path.join(out, "slurm", "roster.txt"), encoding="utf-8") as f:
        names = f.read().splitlines()[task * batch:(task + 1) * batch]
    # The CPUs Slurm gave this task (os.cpu_count() sees the whole node).
    jobs = a.jobs or int(os.environ.get("SLURM_CPUS_PER_TASK", "1"))
    reaper.become_subreaper()
    try:
        for name in names:
            name, seconds, data, why = classrun.grade_one(lab, roster, out, name, a, jobs)
            text = why or "%s/%s" % (report.fmt_points(data["score"]),
                                     report.fmt_points(data["extra_data"].get("max_score", 0)))
            print("task %d: %s: %s in %.0f s" % (task, name, text, seconds), flush=True)
    finally:
        left = reaper.kill_descendants()
        if left:
            print("task %d: killed %d processes left running" % (task, left), flush=True)
    return 0
