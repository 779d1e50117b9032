"""The grader's view of lab manifests: labs/lab_manifest, the one reader
that the build and the grader share (this module only finds it)."""
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(_ROOT, "labs"))

from lab_manifest import (  # noqa: E402
    BUILD_DIRS, BUILD_FILES, GPU_NEEDS, HIDDEN_VISIBILITIES, KNOWN_NEEDS, LABS_DIR, MPI_AS_ROOT_ENV, SECRET_DIR,
    STUDENT_DIR, LabPaths, ManifestError, build_target, check_grading_fields, check_profile, expand_rubric, is_glob,
    lab_paths, list_labs, list_tests, load, matches_any, meson_lines, parse_test_list, resolve_lab, student_files)

# What the grader's modules take from here (re-exported, so a linter sees them used).
__all__ = ["BUILD_DIRS", "BUILD_FILES", "GPU_NEEDS", "HIDDEN_VISIBILITIES", "KNOWN_NEEDS", "LABS_DIR", "MPI_AS_ROOT_ENV",
           "SECRET_DIR", "STUDENT_DIR", "LabPaths", "ManifestError", "build_target", "check_grading_fields",
           "check_profile", "expand_rubric", "is_glob", "lab_paths", "list_labs", "list_tests", "load", "matches_any",
           "meson_lines", "parse_test_list", "resolve_lab", "student_files", "repo_root"]


def repo_root():
    return _ROOT
