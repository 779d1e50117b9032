"""Read and check a lab's manifest (labs/NN-name/lab.json): the one
description of a lab, read by the build (labs/meson.build) and the grader
alike, so that no second list of labs, files or tests exists anywhere.

A lab is:
  labs/NN-name/lab.json     title, topic and status (the root README's lab
                            table: tools/readme_labs.py), needs, harness and
                            driver sources, tests and their points, driver
                            checks, driver runs on real and hostile files and
                            their memory bounds (driver_files, driver_memory:
                            labs/driver_files.py), benchmark, sanitizer,
                            profile (the Nsight Compute counters a grade
                            shows, never scored: check_profile), figures
                            and the runs that record them (figure_runs, below),
                            every_gpu (true: its tests use every GPU of the
                            host, so a grade leases them all; else one),
                            mpi_ranks (the rank counts every test runs with)
                            and one_rank_tests (names or globs of serial or
                            one-GPU tests the grader runs with the fewest)
  labs/NN-name/student/     the files a student edits, and nothing else: every
                            file in it is a student file
  labs/NN-name/*            the harness: the interface, given code, the driver
  labs/NN-name/tests/       the visible tests
  solutions/NN-name/        what a student must not see (the release leaves out
                            solutions/ whole): the reference versions of
                            student/, file for file, and
    hidden/                 the hidden tests (Meson reads the folder from the
                            manifest's hidden_dir line)
    mutants/NAME/           the planted-bug mutants (grading/selfcheck)
lab_paths(root, lab) names each of these paths; nothing else joins them.

Rubric: tests.visible.points and tests.hidden.points map test names to
points. A key may be a glob (fnmatch: *, ?, [...]) naming a family of tests
(Lab06/EveryKernel.*/grid_stride): each test it matches gets its points.
Every test of a binary must match exactly one key and every key at least one
test (check_rubric); `python3 labs/lab_manifest check-rubric` runs in every build's
tests, so a test added without points, or points for a test that is gone,
fails CI.

The package, a module a job:
  paths         where a lab's files live (lab_paths), the labs present
  schema        lab.json's fields and their checks (load)
  figures       the figure declarations and the runs that record them
  rubric        which test earns which points
  build_output  what Meson reads (meson_lines), Open MPI's settings for root
  cli           the command line: python3 labs/lab_manifest ...
Everything a reader of manifests uses is imported here: `import lab_manifest`.
"""
from .base import ManifestError
from .build_output import MESON_SKIPPED, MESON_TEST_ENV, MPI_AS_ROOT_ENV, meson_lines
from .figures import (FIGURE_FUNCTIONS, FIGURE_REDUCTIONS, FIGURE_RUN_KEYS, FIGURE_RUN_SETS, FIGURE_SCHEMA,
                      FIGURE_STYLES, check_figure_runs, check_figures, figure_panel_keys, figure_panels,
                      figure_run_command, parse_expression)
from .paths import (BUILD_DIRS, BUILD_FILES, LABS_DIR, SECRET_DIR, STUDENT_DIR, LabPaths, build_target, lab_paths,
                    list_labs, repo_root, resolve_lab, student_files)
from .rubric import expand_rubric, is_glob, list_tests, matches_any, parse_test_list
from .schema import (GPU_NEEDS, HIDDEN_VISIBILITIES, KNOWN_NEEDS, NEEDS_NAMES, PROFILE_COMPARISONS, PROFILE_KEYS,
                     check_driver_files, check_grading_fields, check_profile, load)

__all__ = ["ManifestError", "MESON_SKIPPED", "MESON_TEST_ENV", "MPI_AS_ROOT_ENV", "meson_lines", "FIGURE_FUNCTIONS", "FIGURE_REDUCTIONS",
           "FIGURE_RUN_KEYS", "FIGURE_RUN_SETS", "FIGURE_SCHEMA", "FIGURE_STYLES", "check_figure_runs",
           "check_figures", "figure_panel_keys", "figure_panels", "figure_run_command", "parse_expression",
           "BUILD_DIRS", "BUILD_FILES", "LABS_DIR", "SECRET_DIR", "STUDENT_DIR", "LabPaths", "build_target",
           "lab_paths", "list_labs", "repo_root", "resolve_lab", "student_files", "expand_rubric", "is_glob",
           "list_tests", "matches_any", "parse_test_list", "GPU_NEEDS", "HIDDEN_VISIBILITIES", "KNOWN_NEEDS",
           "NEEDS_NAMES", "PROFILE_COMPARISONS", "PROFILE_KEYS", "check_driver_files", "check_grading_fields",
           "check_profile", "load"]
