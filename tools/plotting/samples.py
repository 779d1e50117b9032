"""The one reader of the drivers' --json output: JSON Lines, one object per
measurement. Lines that are not objects (a human note some drivers print
after the measurements, mpirun's own lines) are skipped; a line that looks
like an object but is not valid JSON is an error, so a truncated sample is
not silently drawn short."""
import json


class SampleError(ValueError):
    """A samples file that cannot be read."""


def load_rows(paths):
    """Every JSON object of the files PATHS, in order."""
    rows = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    line = line.strip()
                    if not line.startswith("{"):
                        continue
                    try:
                        row = json.loads(line)
                    except json.JSONDecodeError as e:
                        raise SampleError("%s:%d: not a JSON object: %s" % (path, number, e.msg)) from None
                    if isinstance(row, dict):
                        rows.append(row)
        except OSError as e:
            raise SampleError("cannot read %s: %s" % (path, e.strerror)) from None
    return rows
