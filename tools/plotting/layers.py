"""A layer's rows into series of points: pick the rows (where, if), split
them into series, find each series' reference row, keep the best row, and
evaluate x and y. Pure: no drawing here."""
import fnmatch
import functools
import math
import re
import statistics

from lab_manifest import parse_expression

from .expressions import Missing, Scope, evaluate, field


class Series:
    """One line (or set of bars) of a layer: its key (the series values),
    its legend label and its points (x, y, row); y is a list for stacked bars."""

    def __init__(self, key, label):
        self.key, self.label, self.points = key, label, []


def _matches(value, wanted):
    if isinstance(wanted, list):
        return any(_matches(value, w) for w in wanted)
    if isinstance(wanted, str) and isinstance(value, str) and any(c in wanted for c in "*?["):
        return fnmatch.fnmatchcase(value, wanted)
    return value == wanted


def matches(row, where):
    """Whether ROW has every field of WHERE at one of its values."""
    for name, wanted in where.items():
        try:
            value = field(row, name)
        except Missing:
            return False
        if not _matches(value, wanted):
            return False
    return True


@functools.lru_cache(maxsize=None)
def _parsed(text):
    return parse_expression(text, "figure")  # checked already when the manifest was loaded


def value(text, row, ref=None, x=None):
    return evaluate(_parsed(text), Scope(row, ref, x))


def _as_list(v):
    return v if isinstance(v, list) else [] if v is None else [v]


def selected(layer, rows):
    """The rows of LAYER: its where, then its if."""
    out = []
    for row in rows:
        if not matches(row, layer.get("where", {})):
            continue
        if "if" in layer:
            try:
                if not value(layer["if"], row):
                    continue
            except Missing:
                continue
        out.append(row)
    return out


def tidy(v):
    """Series values and labels read best as 10, not 10.0."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _label(layer, key):
    template = layer.get("label")
    if isinstance(template, list):
        return template
    if template is None or template == "":
        return ", ".join(str(k) for k in key) if key else ""
    return template.format(*key)


def choose_x(layer, rows):
    """The x expression: a list names candidates, and the first that takes
    more than one value over ROWS is used (a sweep over threads or over n)."""
    candidates = _as_list(layer.get("x"))
    for text in candidates:
        seen = set()
        for row in rows:
            try:
                seen.add(value(text, row))
            except Missing:
                pass
        if len(seen) > 1:
            return text
    return candidates[0] if candidates else None


def series_of(layer, rows, x_text=None):
    """LAYER's series over ROWS (already limited to the panel or facet)."""
    rows = selected(layer, rows)
    groups = {}
    for row in rows:
        try:
            key = tuple(tidy(value(s, row)) for s in _as_list(layer.get("series")))
        except Missing:
            continue
        groups.setdefault(key, []).append(row)
    if "best" in layer:
        for key, members in groups.items():
            scored = []
            for row in members:
                try:
                    scored.append((value(layer["best"], row), row))
                except Missing:
                    pass
            groups[key] = [max(scored, key=lambda s: s[0])[1]] if scored else []
    x_text = x_text or choose_x(layer, rows)
    style = layer.get("style", "line")
    out = []
    for key, members in groups.items():
        ref = None
        if "ref" in layer:
            ref = next((r for r in members if matches(r, layer["ref"])), None)
            if ref is None:  # a series without its reference row has no relative values
                continue
        s = Series(key, _label(layer, key))
        for row in members:
            s.points += _points(layer, style, row, ref, x_text)
        if s.points:
            out.append(s)
    return out


def _points(layer, style, row, ref, x_text):
    """The points one row gives: one, none (a field missing), or many (a
    curve, an unpivoted row)."""
    try:
        if "unpivot" in layer:
            prefix = layer["unpivot"]
            found = []
            for name, v in row.items():
                m = re.fullmatch(re.escape(prefix) + r"(-?\d+(?:\.\d+)?)", name)
                if m and isinstance(v, (int, float)):
                    found.append((float(m.group(1)), v, row))
            return sorted(found, key=lambda p: p[0])
        if "curve" in layer:
            low, high = layer["curve"]
            xs = [low * (high / low) ** (i / 199) for i in range(200)]
            return [(x, value(layer["y"], row, ref, x), row) for x in xs]
        ys = layer.get("y")
        y = [value(t, row, ref) for t in ys] if isinstance(ys, list) else value(ys, row, ref) if ys else None
        x = value(x_text, row, ref) if x_text else None
        if style == "segments":
            return [((x, value(layer["x_end"], row, ref)), y, row)]
        return [(x, y, row)]
    except Missing:
        return []


def merged(points):
    """Points sorted by x, repeated x (the same size measured by several runs)
    merged into their mean."""
    by_x = {}
    for x, y, row in points:
        by_x.setdefault(x, []).append((y, row))
    out = []
    for x in sorted(by_x, key=_sort_key):
        ys = [y for y, _ in by_x[x] if isinstance(y, (int, float)) and math.isfinite(y)]
        if ys:
            out.append((x, statistics.fmean(ys), by_x[x][-1][1]))
    return out


def _sort_key(x):
    return (0, x, "") if isinstance(x, (int, float)) else (1, 0, str(x))


def reduced(points, how):
    """One value from the points' y (hline) or x (vline): max, min, first..."""
    values = [p for p in points if isinstance(p, (int, float)) and math.isfinite(p)]
    if not values:
        return None
    return {"max": max, "min": min, "first": lambda v: v[0], "last": lambda v: v[-1],
            "mean": statistics.fmean}[how](values)
