"""What the build reads from a manifest: Meson's lines, and the environment
Open MPI needs to run as root."""
from .base import ManifestError
from .paths import lab_paths

# Open MPI refuses to run as root (CI and GPU hosts run as root) unless told;
# oversubscription lets 4 ranks run on a 2-core CI machine.
MPI_AS_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                   "OMPI_MCA_rmaps_base_oversubscribe": "1"}

# What `meson test` adds to a test's environment and everything the test
# starts inherits: a reader's terminal has none of it. MALLOC_PERTURB_
# makes glibc write every byte it allocates, so memory reserved but never
# used becomes resident (lab 15's index of a 64 MiB line: 741 MiB, 1,053
# MiB with it): a measured run or a handout command goes without them.
MESON_TEST_ENV = ("MESON_TEST_ITERATION", "MALLOC_PERTURB_", "ASAN_OPTIONS", "UBSAN_OPTIONS", "MSAN_OPTIONS")

# The exit status Meson reads as "skipped": a test, a tool or a handout
# command that found an optional package or a file this host lacks.
MESON_SKIPPED = 77


def meson_lines(data):
    """The manifest as lines Meson can split: a key, then its values, all
    separated by tabs; one `check` line per driver check (pass or fail, then
    the arguments)."""
    def line(key, values):
        for v in values:
            v = str(v)
            if "\t" in v or "\n" in v or v == "":
                raise ManifestError("labs/%s/lab.json: %s: values may not be empty or hold tabs or newlines"
                                    % (data["name"], key))
        return "\t".join([key] + [str(v) for v in values])
    lines = [
        line("needs", data["needs"]),
        line("student_files", data["student_files"]),
        line("harness", data["harness"]),
        line("driver", data["driver"]),
        line("visible_tests", data["tests"]["visible"]["sources"]),
        line("hidden_tests", data["tests"]["hidden"]["sources"]),
        line("hidden_dir", [lab_paths("", data["name"]).hidden_dir]),
        line("mpi_ranks", data["mpi_ranks"]),
        line("test_main", [data["test_main"]]),
        line("figures", [f["file"] for f in data["figures"]]),
    ]
    for check in data["driver_checks"]:
        expect = check.get("expect", "pass")
        if expect not in ("pass", "fail"):
            raise ManifestError("labs/%s/lab.json: driver_checks: expect must be 'pass' or 'fail'" % data["name"])
        if any(a.strip() != a for a in check.get("args", [])):
            raise ManifestError("labs/%s/lab.json: driver_checks: arguments may not have edge spaces" % data["name"])
        lines.append(line("check", [expect] + check.get("args", [])))
    # One test per run and file kind: its index, the kind, the ranks, and
    # how the test is named (the arguments, the file shown as {kind}).
    for i, run in enumerate(data["driver_files"]):
        for kind in run["files"]:
            label = " ".join(a.replace("{file}", "{%s}" % kind) for a in run["args"])
            if run["expect"] == "fail":
                label += " (refused)"
            lines.append(line("file_run", [i, kind, run["ranks"], label]))
    for i, run in enumerate(data["driver_memory"]):
        lines.append(line("memory", [i, run["ranks"], run["name"]]))
    return lines

