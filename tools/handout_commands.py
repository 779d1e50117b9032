#!/usr/bin/env python3
"""Every command of every handout and README, run as written.

  tools/handout_commands.py --check            lint: every block and figure (no build, a second)
  tools/handout_commands.py --list             every command, with where and by whom it is checked
  tools/handout_commands.py --run [KINDS]      run the commands of KINDS (default: here)
        [--docs PATTERN...] [--keep DIR] [--timeout S] [--from-release DIR]

Documents: the labs' handouts (labs/*/README.md), every other README.md of
the tree, CONTRIBUTING.md, and the student release's README
(grading/hpcgrade/release.py writes it). Commands are the lines of their
```sh blocks; every fence names its language (sh for commands, text for
anything else), so nothing is a command by accident.

Where a command runs, as written, from the root of:
  - a student release whose student/ files are the reference solution's (a
    student who has finished): the handouts and the release README. It is
    the release that grading/export-release writes (release.export: no
    solutions/, hidden tests or mutants; --from-release DIR copies one it
    wrote), with solutions/LAB/* copied into labs/LAB/student/;
  - a copy of the instructor's tree: every other README.

A document's commands run in order in one bash, as a reader types them in
one terminal (an `export` holds for the commands after it), and stop at the
first that fails. A command succeeds when it exits 0, or as its trailing
comment says: `# ... exits 1` or `# ... exits non-zero`. `# ... exits 0 or
77` also lets it end with 77 where an optional package is absent (tools/plot
on a GPU host without matplotlib): it is reported as skipped, not as ok.

Which commands run where: a block with no marker runs here (CPU and MPI:
the Meson test `handout commands`, in CI's run and alone with `meson test
--suite handout-commands`, and tools/gpu-host-check.sh). A block that cannot says
why in an HTML comment on the line above its fence:

  <!-- check: KIND[, MODIFIER...]; reason -->

  KIND gpu-host  needs an NVIDIA GPU: tools/gpu-host-check.sh runs it (--run gpu-host,slow)
       slow      too slow for CI's two cores: tools/gpu-host-check.sh runs it too
       manual    no tool here can (two Slurm nodes): the reason says what it needs
  MODIFIER after-build    run after the document's first block with `meson compile`
           given-roster   the reader has a roster/ of students (the prose says so):
                          the tool makes one of lab 01 (the solution and the starter)
           given-slurm    a Slurm cluster is up: the tool starts tools/slurm-localhost

When KINDS are run, the document's unmarked blocks before them run too (a
handout is followed in order: its build comes first). The README's test
command (.ci/run runs it) is CI's and is not run again. Open MPI's settings
for root are taken out of the environment first: the commands must work for
root and for anyone else as written (tools/mpirun does), and as root the
cheapest tools/mpirun command of each document runs again as uid 65534.
"""
import argparse
import fnmatch
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "labs"))
sys.path.insert(0, os.path.join(ROOT, "grading"))

import lab_manifest  # noqa: E402
from hpcgrade import release  # noqa: E402

KINDS = ("here", "gpu-host", "slow", "manual")
MODIFIERS = ("after-build", "given-roster", "given-slurm")
RUNNERS = {"here": "meson test (CI)", "gpu-host": "tools/gpu-host-check.sh",
           "slow": "tools/gpu-host-check.sh", "manual": "nobody: by hand", "ci": ".ci/run"}
COMMAND_LANGS = ("sh",)
RELEASE_README = "README.md (student release)"
# The maintainers' guide: a document of the instructor's tree like its READMEs.
CONTRIBUTING = "CONTRIBUTING.md"
FENCE = re.compile(r"^( *)(```+)\s*([\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*check:\s*(.*?)\s*-->\s*$")
IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
# A figure names the machine it was measured on.
MACHINE = re.compile(r"\b(H100|H200|A100)s?\b|\b\d+-core\b|\b\d+ cores\b")
# "exits 1", "exits non-zero", or "exits 0 or 77": a second status is one the
# command may end with where an optional package is absent (77, meson's
# "skipped": tools/plot without matplotlib).
EXPECT = re.compile(r"\bexits (\d+|non-zero)(?: or (\d+))?\b")
# Placeholders a reader must replace are not commands: DIR, P, on|off, [--flag].
PLACEHOLDER = re.compile(r"(?:^|\s)([A-Z][A-Z_]*|\w+\|\w+|\[--?\w[^\]]*\])(?=\s|$)")
# A command that runs what a build made (build/...), and one that builds.
USES_BUILD = re.compile(r"(?:^|[\s;&|(=<>])\.?/?build/")
BUILDS = re.compile(r"\bmeson (?:compile|test)\b|\bninja\b")
OPEN_MPI_ROOT = ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "OMPI_MCA_rmaps_base_oversubscribe")
NOBODY = 65534


class Command:
    def __init__(self, doc, line, text, block):
        self.doc, self.line, self.text, self.block = doc, line, text, block
        m = EXPECT.search(comment_of(text))
        self.expect = None if m is None else ("non-zero" if m.group(1) == "non-zero" else int(m.group(1)))
        if self.expect is None:
            self.expect = 0
        self.also = None if m is None or m.group(2) is None else int(m.group(2))
        self.kind = block.kind

    def accepts(self, status):
        """Whether STATUS (None: it did not end) is one this command may end with."""
        if status is None:
            return False
        return status != 0 if self.expect == "non-zero" else status in (self.expect, self.also)

    def skipped(self, status):
        """Whether STATUS is the second one the comment allows: the command
        found an optional package absent (reported as skipped, not as ok)."""
        return self.also is not None and status == self.also and status != self.expect

    def shell_check(self):
        """The bash test of $__hc that accepts() makes in Python."""
        if self.expect == "non-zero":
            return '[ "$__hc" != 0 ]'
        return " || ".join('[ "$__hc" = %d ]' % s for s in (self.expect, self.also) if s is not None)

    @property
    def code(self):
        """The command without its trailing comment, on one line."""
        return " ".join(strip_comment(l).rstrip("\\").strip() for l in self.text.splitlines()).strip()

    def where(self):
        return "%s:%d" % (self.doc, self.line)


class Block:
    def __init__(self, doc, line, lang, marker):
        self.doc, self.line, self.lang = doc, line, lang
        self.kind, self.modifiers, self.reason, self.errors = "here", [], "", []
        self.commands = []
        if marker is not None:
            self.parse_marker(marker)

    def parse_marker(self, text):
        words, _, reason = text.partition(";")
        self.reason = reason.strip()
        kinds = []
        for w in [w.strip() for w in words.split(",") if w.strip()]:
            if w in KINDS:
                kinds.append(w)
            elif w in MODIFIERS:
                self.modifiers.append(w)
            else:
                self.errors.append("unknown word %r in the check marker (kinds: %s; modifiers: %s)"
                                   % (w, ", ".join(KINDS), ", ".join(MODIFIERS)))
        if len(kinds) > 1:
            self.errors.append("a check marker names one kind, not %s" % ", ".join(kinds))
        self.kind = kinds[0] if kinds else "here"
        if not self.reason:
            self.errors.append("a check marker says why after a ';': <!-- check: %s; the reason -->" % words.strip())


def strip_comment(line):
    """Pure: LINE without a trailing shell comment (a # that starts a word,
    outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def comment_of(text):
    return " ".join(l[len(strip_comment(l)):] for l in text.splitlines())


# An indented code block that holds a command: fenced blocks only, so that
# each says its language and can carry a marker.
INDENTED_COMMAND = re.compile(r"^ {4,}(meson |build/|\./build/|labs/|grading/|tools/|mpirun |sbatch |sudo )")


def parse(doc, text):
    """Pure: the fenced blocks of a Markdown TEXT ([Block]) and the lines of
    fences without a language or of indented code blocks ([line numbers])."""
    blocks, bare = [], []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if INDENTED_COMMAND.match(lines[i]) and i > 0 and not lines[i - 1].strip():
                bare.append(i + 1)
            i += 1
            continue
        indent, ticks, lang = len(m.group(1)), m.group(2), m.group(3)
        above = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        mk = MARKER.match(above)
        block = Block(doc, i + 1, lang, mk.group(1) if mk else None)
        if not lang:
            bare.append(i + 1)
        j, body = i + 1, []
        while j < len(lines) and not (lines[j].strip() == ticks and len(lines[j]) - len(lines[j].lstrip()) <= indent + 3):
            body.append((j + 1, lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j]))
            j += 1
        if lang in COMMAND_LANGS:
            pending, start = [], None
            for n, l in body:
                if not pending and not strip_comment(l).strip():
                    continue  # a blank or comment-only line
                if not pending:
                    start = n
                pending.append(l)
                if not strip_comment(l).rstrip().endswith("\\"):
                    block.commands.append(Command(doc, start, "\n".join(pending), block))
                    pending = []
            if pending:
                block.commands.append(Command(doc, start, "\n".join(pending), block))
        blocks.append(block)
        i = j + 1
    return blocks, bare


def ci_command(root):
    """The README's test command, which .ci/run reads (the second line of its
    first sh block) and runs: CI's, not run again here."""
    blocks, _ = parse("README.md", read(os.path.join(root, "README.md")))
    first = next((b for b in blocks if b.lang == "sh"), None)
    return first.commands[1].text if first and len(first.commands) > 1 else None


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def documents(root):
    """[(name, text, tree)]: tree 'release' (a finished student's release) or
    'instructor' (a copy of the instructor's tree)."""
    docs = []
    for lab in lab_manifest.list_labs(root):
        rel = lab_manifest.lab_paths("", lab).handout
        docs.append((rel, read(os.path.join(root, rel)), "release"))
    for rel in release.tree_files(root):
        if (os.path.basename(rel) == "README.md" or rel == CONTRIBUTING) and not rel.startswith(
                (lab_manifest.LABS_DIR + "/", lab_manifest.SECRET_DIR + "/")):
            docs.append((rel, read(os.path.join(root, rel)), "instructor"))
    # The release README lists the labs from their manifests, the same here.
    docs.append((RELEASE_README, release.release_readme(root), "release"))
    return docs


def used_before_built(doc, blocks):
    """Pure: problems of BLOCKS (one document's, in order) that run a build's
    output before the document's first block that builds, unmarked: a reader
    who types them in order has nothing to run yet (exit 127)."""
    problems = []
    for b in blocks:
        if any(BUILDS.search(c.code) for c in b.commands):
            break
        if "after-build" in b.modifiers:
            continue
        problems += ["%s: runs what the build below makes: move it after the build, or mark its block "
                     "<!-- check: %s, after-build; ... --> (and say so in the prose)" % (c.where(), b.kind)
                     for c in b.commands if USES_BUILD.search(c.code)]
    return problems


def gpu_labs(root):
    return {lab for lab in lab_manifest.list_labs(root) if lab_manifest.load(root, lab)["needs_gpu"]}


def invokes(program, code):
    """Whether CODE runs PROGRAM as one of its commands (first, or after ;, &, |)."""
    return re.search(r"(?:^|[;&|]\s*)%s\b" % re.escape(program), code) is not None


def plot_problems(c):
    """A tools/plot command must allow the status it ends with where
    matplotlib is absent (gpu-host-check.sh runs every handout on a bare GPU
    host)."""
    if invokes("tools/plot", c.code) and c.also != lab_manifest.MESON_SKIPPED:
        return ["%s: tools/plot exits 77 where matplotlib is absent (a GPU host, say): end the line with "
                "'# ... exits 0 or 77': %s" % (c.where(), c.code)]
    return []


def lint(root):
    """Problems of the documents' blocks, commands and figures ([str])."""
    problems = []
    gpu = gpu_labs(root)
    ci = ci_command(root)
    for doc, text, tree in documents(root):
        blocks, bare = parse(doc, text)
        problems += ["%s:%d: a fence without a language, or an indented code block: ```sh for commands, "
                     "```text for anything else" % (doc, n) for n in bare]
        lab = doc.split("/")[1] if doc.startswith("labs/") else None
        problems += used_before_built(doc, [b for b in blocks if b.lang in COMMAND_LANGS])
        for b in blocks:
            problems += ["%s:%d: %s" % (doc, b.line, e) for e in b.errors]
            if b.lang not in COMMAND_LANGS:
                continue
            if lab in gpu and b.kind == "here":
                problems.append("%s:%d: lab %s needs a GPU: mark the block <!-- check: gpu-host; ... -->"
                                % (doc, b.line, lab))
            for c in b.commands:
                code = c.code
                if tree == "release" and re.search(r"-solution\b|\bsolutions/|--solution\b", code):
                    problems.append("%s: a student's release has no solutions: %s" % (c.where(), code))
                if invokes("mpirun", code):
                    problems.append("%s: use tools/mpirun (it runs as root and with more ranks than cores): %s"
                                    % (c.where(), code))
                problems += plot_problems(c)
                if b.kind != "manual":
                    for p in PLACEHOLDER.findall(code):
                        problems.append("%s: %r is a placeholder, not part of a command: write a runnable "
                                        "one or fence it as text: %s" % (c.where(), p, code))
                if c.text == ci and doc == "README.md":
                    c.kind = "ci"
        for m in IMAGE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            if not MACHINE.search(m.group(1)):
                problems.append("%s:%d: the figure %s does not say which machine it comes from (name it in "
                                "its text: H100, H200, N-core ...): ![%s]" % (doc, line, m.group(2), m.group(1)))
    return problems


def all_commands(root):
    ci = ci_command(root)
    out = []
    for doc, text, tree in documents(root):
        blocks, _ = parse(doc, text)
        for b in blocks:
            for c in b.commands:
                if doc == "README.md" and c.text == ci:
                    c.kind = "ci"
                out.append((c, tree))
    return out


# ---- running ---------------------------------------------------------------

def release_layout(root, dest, base=None):
    """A finished student's release in DEST: what export-release writes (or
    a copy of BASE, a release it wrote), with the reference solution's files
    as the student's."""
    if base:
        shutil.copytree(base, dest, symlinks=True, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("build", "__pycache__", "results.json"))
    else:
        release.export(root, dest)
        with open(os.path.join(dest, "README.md"), "w", encoding="utf-8") as f:
            f.write(release.release_readme(dest))
    for lab in lab_manifest.list_labs(root):
        for name in lab_manifest.load(root, lab)["student_files"]:
            src = os.path.join(lab_manifest.lab_paths(root, lab).solution_dir, name)
            if os.path.isfile(src):
                shutil.copy(src, os.path.join(lab_manifest.lab_paths(dest, lab).student_dir, name))


def instructor_layout(root, dest):
    for rel in release.tree_files(root):
        if rel.startswith("build"):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(os.path.join(root, rel), os.path.join(dest, rel))


def given_roster(layout):
    """roster/ of two students of lab 01: the solution and the starter."""
    lab = "01-sorting"
    paths = lab_manifest.lab_paths(layout, lab)
    for name, src in (("alice", paths.solution_dir), ("bob", paths.student_dir)):
        dst = os.path.join(layout, "roster", name)
        if not os.path.isdir(dst):  # the student files alone (solutions/LAB holds more)
            for f in lab_manifest.student_files(layout, lab):
                os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
                shutil.copy2(os.path.join(src, f), os.path.join(dst, f))


SLURM_DIR = "/tmp/hpc-labs-handout-slurm"


def selected(blocks, kinds):
    """Pure: the blocks to run for KINDS: the selected ones, and the 'here'
    blocks before the last selected one (a handout is followed in order);
    after-build blocks move behind the first block that compiles."""
    last = max([i for i, b in enumerate(blocks) if b.kind in kinds] + [-1])
    chosen = [b for i, b in enumerate(blocks) if b.commands and i <= last and (b.kind in kinds or b.kind == "here")]
    build = next((b for b in chosen if any(re.search(r"\bmeson compile\b", c.code) for c in b.commands)), None)
    later = [b for b in chosen if "after-build" in b.modifiers]
    if build is not None:
        chosen = [b for b in chosen if b not in later]
        k = chosen.index(build) + 1
        chosen[k:k] = later
    return chosen


def script_for(commands, status_path):
    """Pure: the bash script that runs COMMANDS in order, noting each one's
    start and exit status in STATUS_PATH, and stops at the first whose status
    is not the expected one."""
    lines = ["exec 3>>%s" % sh_quote(status_path)]
    for i, c in enumerate(commands):
        # `times` adds the children's CPU seconds so far (user, then system):
        # a command's CPU time is the difference, whatever the load.
        lines += ["# %s" % c.where(),
                  'echo "start %d $EPOCHREALTIME" >&3' % i,
                  c.text,
                  '__hc=$?; { echo "end %d $__hc $EPOCHREALTIME"; times; } >&3' % i,
                  "{ %s; } || exit 100" % c.shell_check()]
    return "\n".join(lines) + "\n"


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def clean_env():
    """The environment a reader types the commands in: without Open MPI's
    settings for root (the commands must work without them) or what meson
    test adds."""
    return {k: v for k, v in os.environ.items() if k not in OPEN_MPI_ROOT + lab_manifest.MESON_TEST_ENV}


def results_of(events):
    """Pure: read_status's EVENTS -> [(i, status, seconds, CPU seconds)] of
    the commands that ended."""
    started, results, cpu_before = {}, [], 0.0
    for kind, i, *rest in events:
        if kind == "start":
            started[i] = rest[-1]
        else:
            results.append((i, rest[0], rest[1] - started.get(i, rest[1]), rest[2] - cpu_before))
            cpu_before = rest[2]
    return results


def run_script(script, cwd, log_path, status_path, timeout, env, on_result=lambda r: None):
    """Run SCRIPT; return (exit status or None on timeout, [(i, status,
    seconds, CPU seconds)]). ON_RESULT is called with each as its command
    ends, so a run cut short from outside still says what passed."""
    with open(status_path, "w"):
        pass
    path = status_path + ".sh"
    with open(path, "w") as f:
        f.write(script)
    with open(log_path, "ab") as log:
        p = subprocess.Popen(["bash", path], cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                             env=env, start_new_session=True)
        current, code, reported = None, None, 0
        try:
            while True:
                try:
                    code = p.wait(timeout=1.0)
                    break
                except subprocess.TimeoutExpired:
                    pass
                events = read_status(status_path)
                current = events[-1] if events else None
                # The newest end is complete (its CPU times written) once the next command started.
                done = results_of(events)[:None if current and current[0] == "start" else -1]
                for r in done[reported:]:
                    on_result(r)
                reported = max(reported, len(done))
                if current and current[0] == "start" and time.time() - current[2] > timeout:
                    code = None
                    break
        finally:
            # A command past its time, or this tool stopped (meson's timeout
            # sends SIGTERM): nothing the commands started outlives it.
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    results = results_of(read_status(status_path))
    if code is None and current and current[0] == "start":
        results.append((current[1], None, time.time() - current[2], 0.0))
    for r in results[reported:]:
        on_result(r)
    return code, results


def seconds_of(text):
    """Pure: bash's `times` field '1m2.500s' in seconds."""
    m = re.fullmatch(r"(\d+)m([\d.]+)s", text)
    return int(m.group(1)) * 60 + float(m.group(2)) if m else 0.0


def read_status(path):
    """The events a script wrote: ("start", i, epoch seconds) and ("end", i,
    status, epoch seconds, the children's CPU seconds so far). EPOCHREALTIME
    is the clock of time.time()."""
    events = []
    with open(path) as f:
        lines = f.read().splitlines()
    for k, line in enumerate(lines):
        parts = line.split()
        try:
            if parts[0] == "start" and len(parts) == 3:
                events.append(("start", int(parts[1]), float(parts[2])))
            elif parts[0] == "end" and len(parts) == 4:
                children = lines[k + 2].split() if k + 2 < len(lines) else []
                cpu = sum(seconds_of(t) for t in children[:2])
                events.append(("end", int(parts[1]), int(parts[2]), float(parts[3]), cpu))
        except (ValueError, IndexError):
            continue
    return events


def as_nobody(command, cwd, env, timeout):
    """Run COMMAND as uid 65534 (not root): Open MPI's root settings unset."""
    env = dict(env, HOME="/tmp")
    argv = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", "bash", "-c", command]
    try:
        p = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           env=env, timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "timed out"


def run(root, kinds, patterns, keep, timeout, from_release=None):
    ci = ci_command(root)
    work = keep or tempfile.mkdtemp(prefix="hpc-handouts-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    layouts = {"release": os.path.join(work, "release"), "instructor": os.path.join(work, "instructor")}
    plan = []
    for doc, text, tree in documents(root):
        if patterns and not any(fnmatch.fnmatch(doc, p) for p in patterns):
            continue
        blocks, _ = parse(doc, text)
        for b in blocks:
            for c in b.commands:
                if doc == "README.md" and c.text == ci:
                    c.kind = "ci"
        chosen = selected(blocks, kinds)
        commands = [c for b in chosen for c in b.commands if c.kind in kinds or c.kind == "here"]
        if any(c.kind in kinds for c in commands):
            plan.append((doc, tree, chosen, commands))
    env = clean_env()
    failures, total_t0, rows = [], time.monotonic(), []
    for tree in ("release", "instructor"):
        if any(t == tree for _, t, _, _ in plan) and not os.path.isdir(layouts[tree]):
            os.makedirs(layouts[tree])
            if tree == "release":
                release_layout(root, layouts[tree], from_release)
            else:
                instructor_layout(root, layouts[tree])
            print("%s layout: %s" % (tree, layouts[tree]), flush=True)
    for doc, tree, chosen, commands in plan:
        layout = layouts[tree]
        slug = re.sub(r"[^\w.-]+", "_", doc)
        log_path = os.path.join(work, slug + ".log")
        status_path = os.path.join(work, slug + ".status")
        prefix = []
        if any("given-roster" in b.modifiers for b in chosen):
            given_roster(layout)
        slurm = any("given-slurm" in b.modifiers for b in chosen)
        if slurm:
            prefix = ["SLURM_LOCALHOST_DIR=%s tools/slurm-localhost start >/dev/null || exit 101" % SLURM_DIR,
                      "export SLURM_CONF=%s/slurm.conf" % SLURM_DIR]
        print("%s (%s, in the %s layout):" % (doc, ", ".join(sorted({c.kind for c in commands})), tree), flush=True)
        t0 = time.monotonic()
        script = "\n".join(prefix) + "\n" + script_for(commands, status_path)

        def report(result, commands=commands, log_path=log_path):
            i, status, seconds, cpu = result
            c = commands[i]
            ok, skipped = c.accepts(status), c.skipped(status)
            what = "TIME" if status is None else ("FAIL" if not ok else ("skip" if skipped else "ok  "))
            print("  %s %6.1f s %6.1f s CPU  %s  %s%s" % (what, seconds, cpu, c.where(), c.code[:100],
                                                         "" if ok and not skipped
                                                         else "  (exit %s, expected %s)" % (status, c.expect)),
                  flush=True)
            rows.append((c, seconds, cpu, ok, skipped))
            if not ok:
                failures.append(c.where())
                print(tail(log_path, 40))

        try:
            code, results = run_script(script, layout, log_path, status_path, timeout, env, report)
        finally:
            if slurm:
                subprocess.run(["tools/slurm-localhost", "stop"], cwd=layout, env=dict(env, SLURM_LOCALHOST_DIR=SLURM_DIR),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ran = {r[0] for r in results}
        if code not in (0, 100) and not failures:
            failures.append("%s: the script ended with status %s (a given failed?)" % (doc, code))
            print(tail(log_path, 40))
        missing = [c for i, c in enumerate(commands) if i not in ran]
        if code == 0 and missing:
            failures.append("%s: %d commands did not run" % (doc, len(missing)))
        # As root, the cheapest tools/mpirun command (CPU seconds in this
        # run) once more as another user; one that writes into the layout
        # (a redirection) cannot, the layout being root's.
        mpi = sorted((cpu, i) for i, status, _, cpu in results
                     if "tools/mpirun" in commands[i].code and ">" not in commands[i].code)
        if os.geteuid() == 0 and mpi and code == 0 and shutil.which("setpriv"):
            c = commands[mpi[0][1]]
            t1 = time.monotonic()
            status, out = as_nobody(c.text, layout, env, timeout)
            ok = c.accepts(status)
            print("  %s %6.1f s  %s  (again as uid %d)" % ("ok  " if ok else "FAIL", time.monotonic() - t1,
                                                          c.where(), NOBODY), flush=True)
            if not ok:
                failures.append(c.where() + " as uid %d" % NOBODY)
                print(out[-3000:])
        print("  %s: %.0f s, %.0f s of CPU" % (doc, time.monotonic() - t0, sum(r[3] for r in results)), flush=True)
    print("%d commands in %d documents, %d failed, %d skipped (an optional package absent), %.0f s, %.0f s of CPU" % (
        len(rows), len(plan), len(failures), sum(r[4] for r in rows), time.monotonic() - total_t0,
        sum(r[2] for r in rows)))
    if failures:
        print("failed: " + "; ".join(failures))
        print("logs and layouts kept in " + work)
    elif not keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def tail(path, n):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def main(argv=None):
    # SIGTERM (meson test's timeout) unwinds like an exception, so that the
    # commands' process groups are ended on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    p = argparse.ArgumentParser(prog="tools/handout_commands.py",
                                description="Every command of every handout and README, run as written.")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--check", action="store_true", help="lint the documents (no build)")
    g.add_argument("--list", action="store_true", help="list every command and where it is checked")
    g.add_argument("--run", nargs="?", const="here", metavar="KINDS",
                   help="run the commands of KINDS (comma-separated: here, gpu-host, slow; default here)")
    p.add_argument("--docs", nargs="+", default=[], metavar="PATTERN", help="only these documents (glob)")
    p.add_argument("--keep", metavar="DIR", help="build the layouts in DIR and keep them")
    p.add_argument("--from-release", metavar="DIR",
                   help="start the release layout from a copy of DIR, a release grading/export-release wrote")
    p.add_argument("--timeout", type=float, default=1200, help="seconds one command may take (default 1200)")
    a = p.parse_args(argv)
    if a.check:
        problems = lint(ROOT)
        for pr in problems:
            print(pr, file=sys.stderr)
        return 1 if problems else 0
    if a.list:
        for c, tree in all_commands(ROOT):
            print("%-10s %-10s %-40s %s%s" % (c.kind, tree, c.where(), c.code[:100],
                                              ("  [%s]" % c.block.reason) if c.block.reason else ""))
        return 0
    kinds = [k.strip() for k in a.run.split(",") if k.strip()]
    bad = [k for k in kinds if k not in ("here", "gpu-host", "slow")]
    if bad:
        print("handout_commands.py: error: --run takes here, gpu-host and slow, not %s" % ", ".join(bad),
              file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.join(ROOT, lab_manifest.SECRET_DIR)):
        print("handout_commands.py: error: this tree has no solutions/ (a student release): the commands "
              "run as a finished student's, with the reference solution's files", file=sys.stderr)
        return 2
    problems = lint(ROOT)
    if problems:
        for pr in problems:
            print(pr, file=sys.stderr)
        return 1
    if a.from_release and not os.path.isfile(os.path.join(a.from_release, "grading", "grade")):
        print("handout_commands.py: error: --from-release %s: not a release (no grading/grade)" % a.from_release,
              file=sys.stderr)
        return 2
    return run(ROOT, kinds, a.docs, a.keep and os.path.abspath(a.keep), a.timeout,
               a.from_release and os.path.abspath(a.from_release))


if __name__ == "__main__":
    sys.exit(main())
