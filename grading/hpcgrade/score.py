"""Rubric -> points. Pure functions only."""

VISIBLE, HIDDEN, PERFORMANCE, SANITIZER = "visible", "hidden", "performance", "sanitizer"
# A written answer: shown with the scores, graded by a person (answers.py).
WRITTEN = "written"
# Nsight Compute's counters beside the reference's: shown, never scored (profile.py).
PROFILE = "profile"
KINDS = (VISIBLE, HIDDEN, PERFORMANCE, SANITIZER, WRITTEN, PROFILE)
# How an item ended, as data (the report and the self-check read these,
# never the wording of a message).
OUTCOMES = ("passed", "failed", "skipped", "needs_gpu", "needs", "not run", "manual")


class Item:
    """One line of results.json: a test, the performance or a GPU check."""

    def __init__(self, name, max_score, kind, test=None):
        assert kind in KINDS, kind
        self.name = name          # shown to the student
        self.test = test          # GoogleTest full name, when a test
        self.kind = kind
        self.max_score = float(max_score)
        self.score = 0.0
        self.outcome = "not run"
        self.output = ""
        self.execution_time = 0.0

    def set(self, score, outcome, output):
        assert outcome in OUTCOMES, outcome
        self.score = round(max(0.0, min(float(score), self.max_score)), 4)
        self.outcome = outcome
        self.output = output

    @property
    def status(self):
        """Gradescope's passed/failed: passed when it earned all it could
        (None for a written answer: a person grades it)."""
        if self.kind == WRITTEN:
            return None
        return "passed" if self.outcome == "passed" and self.score >= self.max_score else "failed"


def rubric(assigned):
    """Items for the tests: ASSIGNED = {kind: [(test, points, rubric key)]},
    as lab_manifest.expand_rubric gives them for the tests the judge's
    binaries list (visible first, then hidden)."""
    items = []
    for kind in (VISIBLE, HIDDEN):
        for test, points, _ in assigned.get(kind, []):
            items.append(Item(("hidden: " if kind == HIDDEN else "") + test, points, kind, test))
    return items


def rubric_unexpanded(manifest, include_hidden=True):
    """Items straight from the rubric's keys, where no test list exists (the
    lab cannot be built here): a glob stands for its family, its points
    per test (the family's size is unknown)."""
    items = []
    for kind in (VISIBLE, HIDDEN):
        if kind == HIDDEN and not include_hidden:
            continue
        for key, points in manifest["tests"][kind]["points"].items():
            items.append(Item(("hidden: " if kind == HIDDEN else "") + key, points, kind, key))
    return items


def gates(items, kind=VISIBLE):
    """Pure: the tests of KIND whose passing opens what depends on them (the
    speed points, the sanitizer's): those worth points. A test worth 0 points
    is one whose verdict rests on something the submission's process reports
    about itself (lab.json and the test say why): it must not gate points
    either way, or a lie that turns it green would unlock them."""
    return [it for it in items if it.kind == kind and it.test and it.max_score > 0]


def speed_gate(items):
    """Pure: (open, the names of the gating visible tests that did not pass).
    Speed is timed only when every visible test worth points passed."""
    failing = [it.name for it in gates(items) if it.outcome != "passed"]
    return not failing, failing


def ratio_points(ratio, points, full_ratio, floor_ratio):
    """Full POINTS at RATIO >= FULL_RATIO, linear down to 0 at FLOOR_RATIO."""
    if ratio is None or ratio != ratio:  # None or NaN
        return 0.0
    if ratio >= full_ratio:
        return float(points)
    if ratio <= floor_ratio or full_ratio <= floor_ratio:
        return 0.0
    return float(points) * (ratio - floor_ratio) / (full_ratio - floor_ratio)


def total(items):
    return round(sum(i.score for i in items), 4), round(sum(i.max_score for i in items), 4)
