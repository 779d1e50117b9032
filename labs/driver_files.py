#!/usr/bin/env python3
"""A driver that reads files, run on real and hostile ones (lab.json
"driver_files" and "driver_memory"): the files are made at run time in a
temporary folder, from Debian packages every host of the course has or from
a seed, never committed.

Real files (a test skips, exit 77, naming what is missing, on a host without them):
  licenses        /usr/share/common-licenses/* joined (base-files: every Debian system)
  copyrights      /usr/share/doc/*/copyright joined, the first 4 MiB (every package ships one)
  man-pages       gzipped man pages of /usr/share/man/man1, unpacked: troff text, 4 MiB
  man-pages-gz    the same pages as shipped, gzipped: binary data, 4 MiB
  word-list       /usr/share/dict/words (wamerican, in .ci/packages.txt)
Hostile files (made from a seed; never skipped):
  binary          4 MiB of random bytes, every byte value
  nul             text with NUL bytes inside words, as words, in runs, first and last
  crlf            text whose lines end in "\\r\\n"
  utf8            UTF-8 text: accents, CJK, emoji (bytes above 0x7f in every word)
  empty           no byte at all
  separators      whitespace only: space, \\t, \\n, \\v, \\f, \\r
  no-final-newline  text whose last byte is the end of a word
  huge-line       64 MiB on one line: no "\\n" at all, no final newline
  long-line       the same, 8 MiB: for a job that costs more per word
  word-list-crlf  a word list of the letters a-z, one a line, "\\r\\n" line ends

lab.json (read by labs/meson.build, which makes one test per run and file):
  "driver_files": [{"args": [..., "{file}", ...], "files": [KIND, ...],
                    "ranks": P (default 1: no mpirun), "expect": "pass" or "fail",
                    "facts": {ROW NAME: {FIELD: FACT}}}]
      pass: exit 0, and each --json row named ROW NAME has FIELD equal to
      FACT of the file, counted here (bytes, words, distinct_words,
      distinct_line_words: sum over lines of the distinct words of each line;
      a word is a maximal run of bytes other than space, \\t, \\n, \\v, \\f, \\r).
      fail: a non-zero exit that is not a crash, with "error:" on stderr.
  "driver_memory": [{"name": LABEL, "args": [...], "file": KIND (optional),
                     "ranks": P, "max_mib": BOUND}]
      a Meson benchmark: the largest resident set of one process of the
      driver (each process, each rank under mpirun, measured by `peak`
      around it: never mpirun itself, which holds 85 MiB on a 16-core host),
      printed and checked against BOUND, which the lab's README states on a
      line holding `LABEL` and "BOUND MiB".

Command line:
  driver_files.py run LAB INDEX KIND [--mpirun MPIRUN] -- DRIVER
  driver_files.py memory LAB INDEX [--mpirun MPIRUN] -- DRIVER
  driver_files.py check LAB             the declarations: known kinds, bounds stated in the README
  driver_files.py peak DIR -- COMMAND   run COMMAND (one process), then write its peak (KiB) to a new file in DIR
  driver_files.py make KIND DIR         write one file, print its path
"""
import gzip
import json
import os
import random
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab_manifest  # noqa: E402

SKIP = lab_manifest.MESON_SKIPPED
MIB = 1 << 20
SEPARATORS = b" \t\n\x0b\x0c\r"  # the handouts' whitespace; bytes.split() splits at exactly these


class Unavailable(Exception):
    """A real file this host lacks: the test skips."""


# ---- the files ------------------------------------------------------------------------

def _regular_files(paths):
    return [p for p in sorted(paths) if os.path.isfile(p) and not os.path.islink(p)]


def _joined(paths, limit, read):
    out, size = [], 0
    for p in paths:
        try:
            data = read(p)
        except (OSError, EOFError, gzip.BadGzipFile):
            continue
        out.append(data)
        size += len(data)
        if size >= limit:
            break
    return b"".join(out)[:limit]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _real(kind):
    if kind == "licenses":
        base = "/usr/share/common-licenses"
        paths = _regular_files(os.path.join(base, n) for n in os.listdir(base)) if os.path.isdir(base) else []
        if not paths:
            raise Unavailable("no license texts in %s (Debian's base-files)" % base)
        return _joined(paths, 1 << 62, _read)
    if kind == "copyrights":
        base = "/usr/share/doc"
        paths = _regular_files(os.path.join(base, d, "copyright") for d in os.listdir(base)) \
            if os.path.isdir(base) else []
        if len(paths) < 10:
            raise Unavailable("fewer than 10 copyright files in %s/*/copyright" % base)
        return _joined(paths, 4 * MIB, _read)
    if kind in ("man-pages", "man-pages-gz"):
        base = "/usr/share/man/man1"
        paths = _regular_files(os.path.join(base, n) for n in os.listdir(base) if n.endswith(".gz")) \
            if os.path.isdir(base) else []
        if len(paths) < 10:
            raise Unavailable("fewer than 10 gzipped man pages in %s (a container image without manuals?)" % base)
        return _joined(paths, 4 * MIB, _read if kind == "man-pages-gz" else lambda p: gzip.decompress(_read(p)))
    if kind == "word-list":
        path = "/usr/share/dict/words"
        if not os.path.isfile(path):
            raise Unavailable("no %s (the Debian package wamerican)" % path)
        return _read(path)
    raise KeyError(kind)


def _words(rng, count, alphabet="abcdefghijklmnopqrstuvwxyz"):
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(count)]


def _text(rng, lines, vocabulary):
    """Lines of 1 to 15 words drawn from VOCABULARY, "\\n" after each."""
    return "".join(" ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 15))) + "\n"
                   for _ in range(lines)).encode()


def _hostile(kind):
    rng = random.Random("driver_files " + kind)  # a fixed seed per kind: the same file on every host
    vocabulary = _words(rng, 2000)
    if kind == "binary":
        return rng.randbytes(4 * MIB)
    if kind == "nul":
        text = bytearray(_text(rng, 5000, vocabulary))
        for _ in range(3000):  # inside words, beside separators, in runs
            at = rng.randrange(len(text))
            text[at:at] = b"\0" * rng.choice((1, 1, 1, 2, 5))
        return b"\0" + bytes(text) + b"\0a\0 \0"
    if kind == "crlf":
        return _text(rng, 5000, vocabulary).replace(b"\n", b"\r\n")
    if kind == "utf8":
        extra = ["caf\u00e9", "na\u00efve", "\u00fcber", "\u5927\u898f\u6a21", "\u8a08\u7b97", "\U0001f600",
                 "\u00e9t\u00e9", "\u0441\u043b\u043e\u0432\u043e", "\u03bb\u03cc\u03b3\u03bf\u03c2", "a\u00a0b"]
        return _text(rng, 5000, vocabulary[:200] + extra * 20)
    if kind == "empty":
        return b""
    if kind == "separators":
        return bytes(rng.choice(SEPARATORS) for _ in range(100000))
    if kind == "no-final-newline":
        return _text(rng, 5000, vocabulary).rstrip() + b" lastword"
    if kind in ("huge-line", "long-line"):
        size = (64 if kind == "huge-line" else 8) * MIB
        line = _text(rng, 20000, vocabulary).replace(b"\n", b" ")
        return (line * (size // len(line) + 1))[:size - 3].rstrip() + b"end"
    if kind == "word-list-crlf":
        return "".join(w + "\r\n" for w in sorted(set(vocabulary))).encode()
    raise KeyError(kind)


REAL = ("licenses", "copyrights", "man-pages", "man-pages-gz", "word-list")
HOSTILE = ("binary", "nul", "crlf", "utf8", "empty", "separators", "no-final-newline", "huge-line", "long-line",
           "word-list-crlf")
KINDS = REAL + HOSTILE


def make(kind, directory):
    """Write file KIND into DIRECTORY; return its path. Raises Unavailable for
    a real file this host lacks, KeyError for an unknown kind."""
    if kind not in KINDS:
        raise KeyError(kind)
    data = _real(kind) if kind in REAL else _hostile(kind)
    path = os.path.join(directory, kind)
    with open(path, "wb") as f:
        f.write(data)
    return path


# ---- what the file holds, counted independently of the lab's code -------------------------

def facts(path):
    with open(path, "rb") as f:
        data = f.read()
    words = data.split()  # splits at SEPARATORS exactly
    return {
        "bytes": len(data),
        "words": len(words),
        "distinct_words": len(set(words)),
        "distinct_line_words": sum(len(set(line.split())) for line in data.split(b"\n")),
    }


# ---- running the driver ---------------------------------------------------------------

def _command(driver, entry, path, mpirun, wrapper=()):
    """The driver's command line; each process of it (each rank under
    mpirun) started through WRAPPER, a command prefix, when one is given."""
    args = [a.replace("{file}", path) for a in entry["args"]]
    ranks = entry.get("ranks", 1)
    process = list(wrapper) + [driver] + args
    if ranks > 1:
        if not mpirun:
            raise Unavailable("no mpirun for %d ranks" % ranks)
        return [mpirun, "-np", str(ranks), "--oversubscribe"] + process
    return process


def _env():
    return dict(os.environ, **lab_manifest.MPI_AS_ROOT_ENV)


def _crashed(code):
    # A signal: negative from subprocess, 128 + n from a shell, or Open MPI's
    # report of a rank killed by one.
    return code < 0 or code > 128


def run(lab, index, kind, driver, mpirun):
    entry = lab_manifest.load(lab_manifest.repo_root(), lab)["driver_files"][index]
    with tempfile.TemporaryDirectory(prefix="driver-files-") as tmp:
        path = make(kind, tmp)
        command = _command(driver, entry, path, mpirun)
        print("+ " + " ".join(command).replace(path, "{%s: %d bytes}" % (kind, os.path.getsize(path))), flush=True)
        p = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           env=_env())
        out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        sys.stdout.write(out[-4000:])
        sys.stdout.write(err[-4000:])
        if entry.get("expect", "pass") == "fail":
            if p.returncode == 0:
                return "the driver accepted it (exit 0); it should refuse it with one line and a non-zero exit"
            if _crashed(p.returncode) or "error:" not in err:
                return "exit %d without an 'error:' line: a crash, not a refusal" % p.returncode
            return ""
        if p.returncode != 0:
            return "exit %d" % p.returncode
        want = entry.get("facts", {})
        if not want:
            return ""
        counted = facts(path)
        rows = {}
        for line in out.splitlines():
            if line.startswith("{"):
                row = json.loads(line)
                rows[row.get("name")] = row
        for name, fields in sorted(want.items()):
            if name not in rows:
                return "no --json row named %r" % name
            for field, fact in sorted(fields.items()):
                got = rows[name].get(field)
                if got != counted[fact]:
                    return "row %r: %s = %r, but the file's %s is %d (counted by %s)" % (
                        name, field, got, fact, counted[fact], os.path.basename(__file__))
                print("checked: row %r: %s = %d, the file's %s" % (name, field, counted[fact], fact))
        return ""


def memory_env():
    """The environment of a measured run: without what meson test adds
    (lab_manifest.MESON_TEST_ENV), whose MALLOC_PERTURB_ inflates it."""
    return {k: v for k, v in _env().items() if k not in lab_manifest.MESON_TEST_ENV}


def peak(directory, command):
    """Runs COMMAND (one process of a measured run), then writes the largest
    resident set of what it waited for, in KiB, to a file of its own in
    DIRECTORY. Its exit status is the command's."""
    if not os.path.isdir(directory):
        raise ValueError("peak: %s is not a directory" % directory)
    try:
        code = subprocess.call(command)
    except OSError as e:
        raise ValueError("peak: cannot run %s: %s" % (command[0], e.strerror)) from None
    kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    fd, _ = tempfile.mkstemp(prefix="peak-", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write("%d\n" % kib)
    return code if code >= 0 else 128 - code


def _peaks(directory):
    peaks = []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name)) as f:
            peaks.append(int(f.read()))
    return peaks


def memory(lab, index, driver, mpirun):
    entry = lab_manifest.load(lab_manifest.repo_root(), lab)["driver_memory"][index]
    with tempfile.TemporaryDirectory(prefix="driver-memory-") as tmp:
        path = make(entry["file"], tmp) if "file" in entry else ""
        peaks_dir = os.path.join(tmp, "peaks")
        os.mkdir(peaks_dir)
        # Each process of the driver (each rank under mpirun) runs inside
        # `peak`, which measures that process alone, from getrusage of its
        # one child: neither mpirun's own resident set (which grows with the
        # host's topology) nor an earlier child of this script counts.
        wrapper = [sys.executable, os.path.abspath(__file__), "peak", peaks_dir, "--"]
        command = _command(driver, entry, path, mpirun, wrapper)
        print("+ " + " ".join(command), flush=True)
        p = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                           env=memory_env())
        if p.returncode != 0:
            sys.stdout.write(p.stderr.decode("utf-8", "replace")[-4000:])
            return "exit %d" % p.returncode
        peaks, processes = _peaks(peaks_dir), entry.get("ranks", 1)
        if len(peaks) != processes:
            return "%d of %d processes reported their peak" % (len(peaks), processes)
        mib = max(peaks) / 1024.0
        print("peak resident memory of one process: %.1f MiB (bound %d MiB, labs/%s/README.md)"
              % (mib, entry["max_mib"], lab))
        if mib > entry["max_mib"]:
            return "%.1f MiB is above the bound of %d MiB" % (mib, entry["max_mib"])
        return ""


def check(lab):
    root = lab_manifest.repo_root()
    m = lab_manifest.load(root, lab)
    problems = []
    for i, entry in enumerate(m["driver_files"]):
        for kind in entry["files"]:
            if kind not in KINDS:
                problems.append("driver_files[%d]: unknown file kind %r (known: %s)" % (i, kind, ", ".join(KINDS)))
    readme = lab_manifest.lab_paths(root, lab).handout
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for i, entry in enumerate(m["driver_memory"]):
        if entry.get("file", "empty") not in KINDS:
            problems.append("driver_memory[%d]: unknown file kind %r" % (i, entry["file"]))
        label, bound = "`%s`" % entry["name"], "%d MiB" % entry["max_mib"]
        if not any(label in line and bound in line for line in lines):
            problems.append("driver_memory[%d]: labs/%s/README.md has no line holding %s and %s"
                            % (i, lab, label, bound))
    for p in problems:
        print("labs/%s/lab.json: %s" % (lab, p))
    if not problems:
        print("labs/%s/lab.json: %d file runs and %d memory bounds, every bound stated in the handout"
              % (lab, sum(len(e["files"]) for e in m["driver_files"]), len(m["driver_memory"])))
    return 1 if problems else 0


def _split(argv):
    """Options before "--" (--mpirun PATH), the driver after it."""
    if "--" not in argv or argv.index("--") + 1 >= len(argv):
        raise ValueError("give the driver after --")
    i = argv.index("--")
    head, driver = argv[:i], argv[i + 1]
    mpirun = ""
    if head[-2:-1] == ["--mpirun"]:
        mpirun, head = head[-1], head[:-2]
    return head, mpirun, driver


def main(argv):
    try:
        if len(argv) >= 2 and argv[1] in ("run", "memory"):
            head, mpirun, driver = _split(argv[2:])
            if argv[1] == "run" and len(head) == 3:
                problem = run(head[0], int(head[1]), head[2], driver, mpirun)
            elif argv[1] == "memory" and len(head) == 2:
                problem = memory(head[0], int(head[1]), driver, mpirun)
            else:
                raise ValueError("bad arguments")
        elif argv[1:2] == ["peak"] and len(argv) >= 5 and argv[3] == "--":
            return peak(argv[2], argv[4:])
        elif argv[1:2] == ["check"] and len(argv) == 3:
            return check(argv[2])
        elif argv[1:2] == ["make"] and len(argv) == 4:
            print(make(argv[2], argv[3]))
            return 0
        else:
            raise ValueError("bad arguments")
    except Unavailable as e:
        print("skipped: %s" % e)
        return SKIP
    except (ValueError, KeyError, lab_manifest.ManifestError) as e:
        print("driver_files: error: %s (usage: see the top of %s)" % (e, __file__), file=sys.stderr)
        return 2
    if problem:
        print("FAILED: " + problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
