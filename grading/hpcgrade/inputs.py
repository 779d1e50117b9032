"""Where a grade's input comes from, and the one-line usage errors about it:
the submission's folder (or its student/), the starter's, the solution's;
the student files read from it, bounded."""
import os

from . import manifest, workspace


class UsageError(Exception):
    pass


def require_directory(path, what):
    """Raise UsageError with one line when PATH is not a directory: WHAT names
    it (a submission, a roster) and the line says whether it is missing or a file."""
    if os.path.isdir(path):
        return
    if os.path.exists(path):
        raise UsageError("the %s must be a directory, and %s is not one" % (what, path))
    raise UsageError("%s directory not found: %s" % (what, path))


def read_text(path):
    """A student file's text (bounded), or None when it is not a plain file."""
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    with open(path, "rb") as f:
        return f.read(workspace.MAX_STUDENT_FILE).decode("utf-8", "replace")


def read_student_files(directory, names):
    files = {}
    for n in names:
        text = read_text(os.path.join(directory, n))
        if text is not None:
            files[n] = text
    return files


def source_dir(root, lab, kind, submission):
    paths = manifest.lab_paths(root, lab)
    if kind == "solution":
        d = paths.solution_dir
        if not os.path.isdir(d):
            raise UsageError("no solutions/%s in this tree (a student release has none): "
                             "use --starter or --submission DIR" % lab)
        return d
    if kind == "starter":
        return paths.student_dir
    return submission_dir(submission, manifest.student_files(root, lab))


def submission_dir(submission, student_files):
    """The folder that holds the student files: SUBMISSION itself, or its
    student/ when SUBMISSION is a whole lab folder (labs/NN-name, or a copy)
    that holds none of them directly."""
    nested = os.path.join(submission, manifest.STUDENT_DIR)
    if os.path.isdir(nested) and not any(os.path.exists(os.path.join(submission, f)) for f in student_files):
        return nested
    return submission
