"""Draw one declared figure (lab.json "figures", checked by
labs/lab_manifest) from a driver's rows, with matplotlib."""
import math

import matplotlib

matplotlib.use("Agg")  # files only: no display on a build machine
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from lab_manifest import figure_panels  # noqa: E402

from .expressions import Missing  # noqa: E402
from .layers import choose_x, merged, reduced, selected, series_of, tidy, value  # noqa: E402

LINE_STYLES = {"line": ("-", "o"), "dashed": ("--", None), "dotted": (":", None), "points": ("none", "o")}


def _facets(panel, rows):
    """(panel, its rows, title) for PANEL, one per value of its facet."""
    title = panel.get("title", "")
    if "facet" not in panel:
        return [(panel, rows, title)]
    values = []
    for layer in panel["layers"]:
        for row in selected(layer, rows):
            try:
                v = tidy(value(panel["facet"], row))
            except Missing:
                continue
            if v not in values:
                values.append(v)
    out = []
    for v in values:
        mine = []
        for row in rows:
            try:
                if tidy(value(panel["facet"], row)) == v:
                    mine.append(row)
            except Missing:
                pass
        out.append((panel, mine, title.format(v) if title else str(v)))
    return out


def _axis(ax, which, spec):
    set_label, set_scale, set_lim = {"x": (ax.set_xlabel, ax.set_xscale, ax.set_xlim),
                                     "y": (ax.set_ylabel, ax.set_yscale, ax.set_ylim)}[which]
    set_label(spec.get("label", ""))
    log = spec.get("log", False)
    if log is not False:
        set_scale("log", base=2 if log == 2 else 10)
        if log == 2:  # 1, 2, 4, 8 ranks read better than 2^0, 2^1, 2^2; 2^20 bytes better than 1.04858e+06
            (ax.xaxis if which == "x" else ax.yaxis).set_major_formatter(ticker.FuncFormatter(_power_of_two))
    if "min" in spec or "max" in spec:
        set_lim(spec.get("min"), spec.get("max"))


def _power_of_two(v, _):
    if v <= 0:
        return ""
    if v < 1e4:
        return "%g" % v
    k = math.log2(v)
    return "$2^{%d}$" % round(k) if abs(k - round(k)) < 1e-9 else "%.3g" % v


def _numeric(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def draw_panel(ax, panel, rows, title):
    """Draw PANEL's layers on AX; return how many series had points."""
    drawn, colour, xs_seen, later = 0, 0, [], []
    bars = [(layer, s) for layer in panel["layers"] if layer.get("style") == "bar"
            for s in series_of(layer, rows, choose_x(layer, selected(layer, rows)))]
    categories = []
    for _, s in bars:
        for x, _, _ in s.points:
            if x not in categories:
                categories.append(x)
    width = 0.8 / max(1, len(bars))
    for i, (layer, s) in enumerate(bars):
        pos = {c: k for k, c in enumerate(categories)}
        parts = [(x, y if isinstance(y, list) else [y], row) for x, y, row in s.points]
        bottom = [0.0] * len(parts)
        xs = [pos[x] - 0.4 + width * (i + 0.5) for x, _, _ in parts]
        labels = s.label if isinstance(s.label, list) else [s.label]
        for j in range(len(parts[0][1])):
            heights = [p[1][j] for p in parts]
            ax.bar(xs, heights, width, bottom=bottom, label=labels[j] if j < len(labels) else None,
                   color="C%d" % (colour % 10))
            colour += 1
            bottom = [b + h for b, h in zip(bottom, heights)]
        for x, top, (_, _, row) in zip(xs, bottom, parts):
            _annotate(ax, layer, x, top, row)
        drawn += 1
    if categories:
        ax.set_xticks(range(len(categories)))
        ax.set_xticklabels([str(c) for c in categories], rotation=30 if max(len(str(c)) for c in categories) > 6
                           else 0, ha="right" if max(len(str(c)) for c in categories) > 6 else "center", fontsize=8)
    for layer in panel["layers"]:
        style = layer.get("style", "line")
        if style == "bar":
            continue
        x_text = choose_x(layer, selected(layer, rows))
        for s in series_of(layer, rows, x_text):
            c = "C%d" % (colour % 10)
            colour += 1
            if style in ("hline", "vline"):
                later.append((layer, s, c))
                continue
            drawn += 1
            if style == "segments":
                for k, ((x0, x1), y, _) in enumerate(s.points):
                    ax.plot([x0, x1], [y, y], color=c, lw=2, label=s.label if k == 0 and s.label else None)
                    xs_seen += [x0, x1]
                continue
            points = merged(s.points)
            if not points:
                continue
            ls, marker = LINE_STYLES[style]
            if "curve" in layer:  # a function drawn at 200 points: a line, no markers
                marker = None
            ax.plot([p[0] for p in points], [p[1] for p in points], linestyle=ls, marker=marker, ms=4, color=c,
                    label=s.label or None)
            xs_seen += [p[0] for p in points]
            for x, y, row in points:
                _annotate(ax, layer, x, y, row)
    # Lines across the panel last, so that a repeated vertical line knows
    # how far the data go.
    for layer, s, c in later:
        style = layer.get("style")
        v = reduced([p[1] if style == "hline" else p[0] for p in s.points], layer.get("reduce", "first"))
        if v is None:
            continue
        drawn += 1
        if style == "hline":
            ax.axhline(v, color=c, linestyle="--", lw=1.2, label=s.label or None)
            continue
        top = max([x for x in xs_seen if _numeric(x)], default=v)
        stops = [v * k for k in range(1, int(top // v) + 1)] if layer.get("repeat") and v > 0 else [v]
        for k, x in enumerate(stops or [v]):
            ax.axvline(x, color=c, linestyle="--", lw=1, label=s.label if k == 0 and s.label else None)
    _axis(ax, "x", panel.get("x", {}))
    _axis(ax, "y", panel.get("y", {}))
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    if panel.get("legend", True) and any(not h.get_label().startswith("_") for h in ax.get_legend_handles_labels()[0]):
        ax.legend(fontsize=7)
    return drawn


def _annotate(ax, layer, x, y, row):
    if layer.get("annotate") and _numeric(y):
        try:
            text = layer["annotate"].format_map(row)
        except (KeyError, IndexError, ValueError):
            return
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(3, 3), fontsize=7)


def draw_figure(figure, rows, path):
    """Write FIGURE's PNG to PATH from ROWS; False (nothing written) when no
    layer of any panel found a row to draw."""
    panels = [p for panel in figure_panels(figure) for p in _facets(panel, rows)]
    if not panels:
        return False
    cols = min(figure.get("columns", 3), len(panels))
    nrows = (len(panels) + cols - 1) // cols
    w, h = figure.get("size", [6, 4])
    fig, axes = plt.subplots(nrows, cols, figsize=(w * cols, h * nrows), squeeze=False)
    drawn = 0
    for ax, (panel, mine, title) in zip(axes.flat, panels):
        one = len(panels) == 1
        drawn += draw_panel(ax, panel, mine, title or (figure.get("title", "") if one else ""))
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    if len(panels) > 1 and figure.get("title"):
        fig.suptitle(figure["title"])
    if drawn:
        fig.tight_layout()
        fig.savefig(path, dpi=120)
    plt.close(fig)
    return bool(drawn)
