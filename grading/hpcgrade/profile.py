"""Hardware counters from Nsight Compute (ncu) for a GPU lab's kernels:
shown beside the reference's, never scored.

A lab declares what to profile in lab.json's "profile" block (its schema
and checks: labs/lab_manifest/schema.py, check_profile). This module
  - builds ncu's command line for it (ncu_argv),
  - reads ncu's raw CSV (`ncu --csv --page raw`) into per-kernel values
    (parse): several launches of one kernel (a reduction's passes) give
    the mean of their values weighted by each launch's time (the long first
    pass counts, not the many tiny last ones),
  - evaluates the declared readings (a value above or below a constant, or
    above or below a factor times the reference's value), and
  - writes the side-by-side table (table).
Anything it cannot read (no header, a short row, no kernel) raises
ProfileError with a sentence; nothing here raises anything else on bad text.

ncu prints its CSV after the driver's own output, on the same stdout: the
LAST header line starts it (a driver printing a header of its own earlier
does not). A submission's process could still forge what ncu prints (it
runs under the same uid): the table is a hint for the student, not evidence.
"""
import csv
import math
import re

# The stall reasons: one metric per reason; "selected" is a warp issuing.
# Always read: the weight of a launch.
TIME = "gpu__time_duration.sum"
STALL_REGEX = r"regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
_STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
NOT_STALLS = {"selected"}
DEFAULT_LAUNCHES = 8
# ncu's own word for "counters are for admins only" (NVreg_RestrictProfilingToAdminUsers).
PERMISSION_ERROR = "ERR_NVGPUCTRPERM"
COULD_NOT_READ = "could not read the profile"
MAX_CELLS = 100000  # a bound on what a hostile CSV makes us hold


class ProfileError(Exception):
    """ncu's output could not be read; str() is the report's one line."""


class ProfileTimedOut(ProfileError):
    """ncu ran past its wall limit (with the GPU held: nothing more is run)."""


def key(m):
    """The name of a declared metric's value: "a" or, with "per", "a/b"."""
    return m["metric"] + ("/" + m["per"] if m.get("per") else "")


def metric_names(cfg):
    """Every ncu metric CFG's metrics read, each once, in order."""
    names = []
    for m in cfg["metrics"]:
        for n in (m["metric"], m.get("per")):
            if n and n not in names:
                names.append(n)
    return names


def ncu_argv(ncu, cfg, binary, extra_args=None):
    """ncu's command line for lab.json's profile block CFG on BINARY."""
    names = metric_names(cfg)
    metrics = names + ([TIME] if TIME not in names else []) + ([STALL_REGEX] if cfg.get("stalls") else [])
    args = cfg["args"] if extra_args is None else extra_args
    return [ncu, "--csv", "--page", "raw", "--metrics", ",".join(metrics), "--kernel-name",
            "regex:" + cfg["kernels"], "--launch-count", str(cfg.get("launches", DEFAULT_LAUNCHES)),
            binary] + list(args)


def why_not(output):
    """A line saying why ncu produced no profile, from its text (None: no known reason)."""
    if PERMISSION_ERROR in output:
        return ("not permitted: this host restricts GPU performance counters to administrators "
                "(%s; NVreg_RestrictProfilingToAdminUsers)" % PERMISSION_ERROR)
    for line in output.splitlines():
        if line.startswith("==ERROR=="):
            return "ncu failed: " + line[len("==ERROR=="):].strip()[:200]
    return None


def read_run(output, cfg, failure=None):
    """OUTPUT of one run under ncu -> parse's {kernel: Kernel}. A table is
    read even when the run then failed (FAILURE: how it ended, or None);
    without one, ProfileError says why: ncu's own reason where it gave one."""
    try:
        return parse(output, cfg)
    except ProfileError as e:
        reason = why_not(output or "")
        if reason:
            raise ProfileError(reason) from None
        raise ProfileError("%s%s" % (e, "; the run " + failure if failure else "")) from None


def short_name(kernel):
    """The kernel's function name with its template arguments, without its
    parameters, return type or namespaces: "void (anonymous
    namespace)::reduce_sequential<float>(const T1 *, ...)" gives
    "reduce_sequential<float>"."""
    depth, cut = 0, len(kernel)
    for i, c in enumerate(kernel):  # the parameter list: the first "(" outside <...>
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif c == "(" and depth == 0 and i > 0 and not kernel[:i].endswith(("(anonymous", " ")):
            cut = i
            break
    name, depth, start = kernel[:cut], 0, 0
    for i, c in enumerate(name):  # the last part outside <...> after "::" or a space
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif depth == 0 and (c == " " or name.startswith("::", i)):
            start = i + (2 if c == ":" else 1)
    return name[start:].strip() or kernel.strip()


def number(cell):
    """A cell's value: a float, or None for "n/a", blank, NaN or infinity."""
    text = cell.strip().replace(",", "")
    if not text or text.lower() == "n/a":
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse(text, cfg):
    """ncu's raw CSV TEXT -> {kernel short name: Kernel}, in launch order,
    for lab.json's profile block CFG: its metrics (one ncu did not report
    reads as None; "per": the launch's ratio of the two), the top two stall
    reasons with "stalls", the kernels whose short name matches "kernels"
    (re.search). Raises ProfileError."""
    stalls, kernel_filter = cfg.get("stalls"), cfg.get("kernels")
    if not isinstance(text, str) or not text.strip():
        raise ProfileError(COULD_NOT_READ + ": ncu printed nothing")
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if l.startswith('"ID",')]
    if not starts:
        raise ProfileError(COULD_NOT_READ + ": ncu printed no CSV table")
    try:
        rows = list(csv.reader(lines[starts[-1]:], strict=True))
    except csv.Error as e:
        raise ProfileError(COULD_NOT_READ + ": %s" % e) from None
    header = rows[0]
    if "Kernel Name" not in header:
        raise ProfileError(COULD_NOT_READ + ": its header has no kernel name")
    if len(header) * len(rows) > MAX_CELLS:
        raise ProfileError(COULD_NOT_READ + ": more than %d cells" % MAX_CELLS)
    body = [r for r in rows[1:] if r]
    # The second row gives the units: its ID cell is empty.
    if body and body[0] and body[0][0] == "":
        body = body[1:]
    if not body:
        raise ProfileError(COULD_NOT_READ + ": no kernel was profiled (none matched, or the run failed first)")
    col = {name: i for i, name in enumerate(header)}
    stall_cols = {m.group(1): i for name, i in col.items() for m in [_STALL.match(name)]
                  if m and m.group(1) not in NOT_STALLS} if stalls else {}
    launches = {}
    for n, row in enumerate(body, 1):
        if len(row) != len(header):
            raise ProfileError(COULD_NOT_READ + ": launch %d has %d values for %d columns (cut short?)"
                               % (n, len(row), len(header)))
        name = short_name(row[col["Kernel Name"]])
        if kernel_filter and not re.search(kernel_filter, name):
            continue
        launches.setdefault(name, []).append(row)
    if not launches:
        raise ProfileError(COULD_NOT_READ + ": no profiled kernel matches %r" % kernel_filter)
    out = {}
    for name, rs in launches.items():
        weights = [number(r[col[TIME]]) if TIME in col else None for r in rs]
        if any(w is None or w <= 0 for w in weights):
            weights = [1.0] * len(rs)  # no time for every launch: all alike
        values = {key(m): mean([value(r, col, m) for r in rs], weights) for m in cfg["metrics"]}
        stall = {s: mean([number(r[i]) for r in rs], weights) for s, i in stall_cols.items()}
        top = sorted(((v, s) for s, v in stall.items() if v is not None and v > 0), reverse=True)[:2]
        out[name] = Kernel(name, len(rs), values, [(s, v) for v, s in top])
    return out


def value(row, col, m):
    """ROW's value of declared metric M (None: not reported, or 0/0)."""
    a = number(row[col[m["metric"]]]) if m["metric"] in col else None
    if not m.get("per"):
        return a
    b = number(row[col[m["per"]]]) if m["per"] in col else None
    return a / b if a is not None and b else None


def mean(values, weights):
    """The WEIGHTS-weighted mean of the VALUES known (None: none is)."""
    known = [(v, w) for v, w in zip(values, weights) if v is not None]
    total = sum(w for _, w in known)
    if not known or not total:
        return None
    v = sum(v * w for v, w in known) / total
    return v if math.isfinite(v) else None


class Kernel:
    def __init__(self, name, launches, values, stalls):
        self.name, self.launches, self.values, self.stalls = name, launches, values, stalls

    def __repr__(self):
        return "Kernel(%r, %d, %r, %r)" % (self.name, self.launches, self.values, self.stalls)


# ---- readings ---------------------------------------------------------------

# A reading: exactly one of these keys and "say". "above": 4 fires when the
# value is above 4; "above_reference": 2 when it is above 2 times the
# reference's value for the same kernel (only where a reference was profiled).
COMPARISONS = ("above", "below", "above_reference", "below_reference")


def fires(reading, value, ref):
    """Whether READING holds for VALUE (REF: the reference's value or None)."""
    if value is None:
        return False
    key = next(k for k in COMPARISONS if k in reading)
    limit = reading[key]
    if key.endswith("_reference"):
        if ref is None:
            return False
        limit = limit * ref
    return value > limit if key.startswith("above") else value < limit


def readings(cfg, kernel, ref_kernel=None):
    """The lines of CFG's readings that fire for KERNEL."""
    said = []
    for m in cfg["metrics"]:
        v = kernel.values.get(key(m))
        r = ref_kernel.values.get(key(m)) if ref_kernel else None
        for reading in m.get("readings", []):
            if fires(reading, v, r):
                said.append("%s: %s" % (m["label"], reading["say"]))
    return said


# ---- the table --------------------------------------------------------------

def fmt(v):
    if v is None:
        return "n/a"
    if abs(v) >= 1000:
        return "{:,.0f}".format(v)
    return "%.3g" % v


def fmt_stalls(k):
    return ", ".join("%s %.3g" % (s, v) for s, v in k.stalls) if k and k.stalls else "n/a"


def base_name(name):
    """Pure: a short kernel name without its template arguments."""
    return name.split("<", 1)[0]


def pairs(sub, ref):
    """Pure: [(name, sub's name or None, ref's name or None)] in SUB's order,
    then REF's kernels that SUB lacks. A kernel is paired with the one of the
    same name or, failing that, with the only other one of the same base
    name (a student who changed a template argument still sees the
    reference's figures beside theirs)."""
    lone_sub = [n for n in sub if n not in ref]
    lone_ref = [n for n in ref if n not in sub]
    partner = {}
    for n in lone_sub:
        mine = [m for m in lone_sub if base_name(m) == base_name(n)]
        theirs = [m for m in lone_ref if base_name(m) == base_name(n)]
        if len(mine) == 1 and len(theirs) == 1:
            partner[n] = theirs[0]
    out = [(n, n, n if n in ref else partner.get(n)) for n in sub]
    taken = set(partner.values())
    return out + [(n, None, n) for n in lone_ref if n not in taken]


def table(cfg, sub, ref=None, sub_title="yours", ref_title="reference"):
    """The report's text for SUB (and REF): {name: Kernel} each, or None."""
    width = max([len(m["label"]) for m in cfg["metrics"]] + [len("top stalls")])
    lines = []
    for name, sub_name, ref_name in pairs(sub, ref or {}):
        s, r = sub.get(sub_name), (ref or {}).get(ref_name)
        counts = "; ".join("%s: %s%s" % (t, "%d launches, weighted by time" % k.launches if k.launches > 1
                                          else "1 launch", "" if n == name else ", as " + n)
                           for t, k, n in ((sub_title, s, sub_name), (ref_title, r, ref_name))
                           if k is not None and (ref or t == sub_title))
        lines.append("kernel %s (%s)" % (name, counts or "not run"))
        head = "  %-*s  %14s" % (width, "metric", sub_title) + ("  %14s" % ref_title if ref is not None else "")
        lines.append(head)
        for m in cfg["metrics"]:
            row = "  %-*s  %14s" % (width, m["label"], fmt(s.values.get(key(m))) if s else "-")
            if ref is not None:
                row += "  %14s" % (fmt(r.values.get(key(m))) if r else "-")
            lines.append(row)
        if cfg.get("stalls"):
            lines.append("  %-*s  %s" % (width, "top stalls", fmt_stalls(s)))
            if ref is not None:
                lines.append("  %-*s  %s" % (width, "  reference", fmt_stalls(r)))
        said = readings(cfg, s, r) if s else []
        lines += ["  -> " + x for x in said]
    return "\n".join(lines)
