"""What the parts of the manifest reader share: its one error, and the
check that a key holds a list of strings."""


class ManifestError(ValueError):
    """A lab.json that is missing, malformed or inconsistent."""


def list_of_str(data, key, where):
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError("%s: '%s' must be a list of strings" % (where, key))
    return value

