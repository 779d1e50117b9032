"""The figure declarations and the runs that record them.

Figures: "figures" lists the plots tools/plot draws from the driver's --json
lines (FIGURE_SCHEMA below says what each key means); check_figures
validates them whenever a manifest is loaded.

Figure runs: "figure_runs" says how the reference driver is run to make them,
so that no script keeps a list of labs or arguments:
  "sample": [RUN...]          the runs whose --json lines are the lab's
                              figures/sample.jsonl: tools/figures-cpu.sh runs a
                              CPU lab's, tools/figures-gpu-host.sh a GPU lab's
  "sample_is_handout": false  the handout's figures are not drawn from the
                              sample (it shows larger runs its README gives)
  "quoted": [RUN...]          named runs whose output the handout quotes
                              (tools/lab11-figures.sh runs them on a GPU host)
  RUN: {"args": [driver arguments], "ranks": P (under mpirun with P ranks;
       without it the driver runs alone), "one_gpu_per_rank": true (left out
       on a host with fewer GPUs than ranks), "env": {NAME: value},
       "name": the output's name (quoted runs), "note": why, for the reader}
  python3 labs/lab_manifest figure-runs SET --driver-dir DIR [--cpu | --gpu] [--gpus N] [LAB...]
prints one run a line: the lab, the run's name (- for none) and the command
line, shell-quoted, separated by tabs.
"""
import ast
import re

from .base import ManifestError, list_of_str

# What a figure declaration may hold. A figure is one PNG of one or more
# panels (axes); a panel draws layers; a layer is rows of the driver's --json
# output turned into points. Values in x, y, series, if, facet... are
# EXPRESSIONS over a row's fields: Python's arithmetic, comparisons, "a if c
# else b", string % formatting and FIGURE_FUNCTIONS, nothing else (no
# attribute but a nested field such as seconds.median, no call but those
# named), so a lab.json cannot run code. A field a row lacks leaves the row
# out of that layer.
FIGURE_SCHEMA = {
    "figure": {
        "file": "the PNG's name, written into the output folder",
        "title": "the figure's title",
        "size": "[width, height] of one panel in inches (default [6, 4])",
        "columns": "panels per row (default: up to 3)",
        "panels": "a list of panels side by side (or a panel's keys directly in the figure)",
    },
    "panel": {
        "title": "the panel's title; with facet, a template: {} is the facet's value",
        "x": "the x axis: {label, log (true, 2 or 10), min, max}",
        "y": "the y axis: {label, log (true, 2 or 10), min, max}",
        "layers": "the list of layers drawn in this panel",
        "facet": "an expression: one panel per distinct value it takes over the layers' rows",
        "legend": "false: no legend",
    },
    "layer": {
        "where": "{field: value, or a list of values, or a glob such as 'copy/*'}: the rows drawn",
        "if": "an expression: only the rows where it is true",
        "x": "an expression (or a list: the first that varies within the panel)",
        "x_end": "segments: where each segment ends (an expression)",
        "y": "an expression (bar: a list of expressions stacks them)",
        "series": "an expression or list of expressions: one line per distinct value",
        "label": "the legend's text: a str.format template of the series' values ({0}, {1}...); "
                 "bar with a list of y: one label each",
        "style": "line (default), dashed, dotted, points, bar, hline, vline or segments",
        "ref": "{field: value}: the reference row within each series, named ref in expressions "
               "(ref.seconds.median); a series without one is not drawn",
        "best": "an expression: keep only the row of each series where it is largest",
        "reduce": "hline, vline: one line for max, min, first, last or mean of the rows' values",
        "repeat": "vline: a line at every multiple of the value, up to the panel's largest x",
        "curve": "[low, high]: the layer is a function of x (named x in expressions), drawn over "
                 "that range for each row",
        "unpivot": "a field prefix such as 'level_': each field level_K of a row becomes a point (K, value)",
        "annotate": "a str.format template of the row's fields written beside each point or bar",
    },
}
FIGURE_STYLES = ("line", "dashed", "dotted", "points", "bar", "hline", "vline", "segments")
FIGURE_REDUCTIONS = ("max", "min", "first", "last", "mean")
# get("field", default): a field that some rows lack; part(text, sep, i): the
# i-th piece of text split at sep; number(text): a number written in text.
FIGURE_FUNCTIONS = ("log", "log2", "log10", "sqrt", "abs", "min", "max", "get", "part", "number")
_EXPRESSION_NODES = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.BinOp, ast.UnaryOp,
                     ast.Compare, ast.BoolOp, ast.IfExp, ast.Call, ast.Tuple, ast.Add, ast.Sub, ast.Mult, ast.Div,
                     ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or, ast.Eq,
                     ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def parse_expression(text, where):
    """The syntax tree of a figure expression, or ManifestError if it is not
    one (see FIGURE_SCHEMA): tools/plot evaluates only trees that pass."""
    if not isinstance(text, str) or not text.strip():
        raise ManifestError("%s: an expression must be a non-empty string" % where)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise ManifestError("%s: %r is not an expression: %s" % (where, text, e.msg)) from None
    for node in ast.walk(tree):
        if not isinstance(node, _EXPRESSION_NODES):
            raise ManifestError("%s: %r: %s is not allowed in a figure expression" % (where, text, type(node).__name__))
        if isinstance(node, ast.Attribute) and not isinstance(node.value, (ast.Name, ast.Attribute)):
            raise ManifestError("%s: %r: only fields have parts (seconds.median)" % (where, text))
        if isinstance(node, ast.Call) and (node.keywords or not isinstance(node.func, ast.Name)
                                           or node.func.id not in FIGURE_FUNCTIONS):
            raise ManifestError("%s: %r: the functions are %s" % (where, text, ", ".join(FIGURE_FUNCTIONS)))
    return tree


def _check_keys(obj, kind, where):
    if not isinstance(obj, dict):
        raise ManifestError("%s must be an object" % where)
    unknown = set(obj) - set(FIGURE_SCHEMA[kind])
    if unknown:
        raise ManifestError("%s: unknown key(s) %s (a %s has %s)"
                            % (where, ", ".join(sorted(unknown)), kind, ", ".join(FIGURE_SCHEMA[kind])))


def _check_match(obj, where):
    """A where or ref: field -> a value or a list of values."""
    scalar = (str, int, float)
    if not isinstance(obj, dict) or not all(
            isinstance(v, scalar) or (isinstance(v, list) and v and all(isinstance(x, scalar) for x in v))
            for v in obj.values()):
        raise ManifestError("%s must map fields to a value or a list of values" % where)


def _check_axis(axis, where):
    if not isinstance(axis, dict) or set(axis) - {"label", "log", "min", "max"}:
        raise ManifestError("%s must be an object of label, log, min, max" % where)
    if not isinstance(axis.get("label", ""), str) or axis.get("log", False) not in (True, False, 2, 10):
        raise ManifestError("%s: label is a string, log is true, false, 2 or 10" % where)
    for key in ("min", "max"):
        if key in axis and not isinstance(axis[key], (int, float)):
            raise ManifestError("%s.%s must be a number" % (where, key))


def _check_layer(layer, where):
    _check_keys(layer, "layer", where)
    style = layer.get("style", "line")
    if style not in FIGURE_STYLES:
        raise ManifestError("%s: style must be one of %s" % (where, ", ".join(FIGURE_STYLES)))
    need = {"hline": ["y"], "vline": ["x"], "segments": ["x", "x_end", "y"]}.get(style, ["x", "y"])
    if "unpivot" in layer:
        need = []
    for key in need:
        if key not in layer:
            raise ManifestError("%s: a %s layer needs '%s'" % (where, style, key))
    for key in ("where", "ref"):
        if key in layer:
            _check_match(layer[key], "%s.%s" % (where, key))
    for key in ("x", "y", "series"):
        value = layer.get(key)
        if isinstance(value, list):
            if not value or (key == "y" and style != "bar"):
                raise ManifestError("%s.%s: a list of expressions is for x, series and a bar's y" % (where, key))
            for i, v in enumerate(value):
                parse_expression(v, "%s.%s[%d]" % (where, key, i))
        elif value is not None:
            parse_expression(value, "%s.%s" % (where, key))
    for key in ("x_end", "if", "best"):
        if key in layer:
            parse_expression(layer[key], "%s.%s" % (where, key))
    label = layer.get("label", "")
    if isinstance(layer.get("y"), list):
        if not (isinstance(label, list) and len(label) == len(layer["y"]) and all(isinstance(v, str) for v in label)):
            raise ManifestError("%s: stacked bars need one label per y" % where)
    elif not isinstance(label, str):
        raise ManifestError("%s.label must be a string" % where)
    if layer.get("reduce", "first") not in FIGURE_REDUCTIONS:
        raise ManifestError("%s.reduce must be one of %s" % (where, ", ".join(FIGURE_REDUCTIONS)))
    if not isinstance(layer.get("repeat", False), bool):
        raise ManifestError("%s.repeat must be true or false" % where)
    curve = layer.get("curve")
    if curve is not None and not (isinstance(curve, list) and len(curve) == 2 and curve[0] < curve[1]
                                  and all(isinstance(v, (int, float)) and v > 0 for v in curve)):
        raise ManifestError("%s.curve must be [low, high] with 0 < low < high" % where)
    for key in ("unpivot", "annotate"):
        if not isinstance(layer.get(key, ""), str):
            raise ManifestError("%s.%s must be a string" % (where, key))


def figure_panel_keys(figure):
    """The keys of a figure that are its one panel's (the title is the figure's)."""
    return set(figure) & (set(FIGURE_SCHEMA["panel"]) - {"title"})


def figure_panels(figure):
    """A figure's panels: its "panels", or its one panel given inline."""
    return figure.get("panels", [{k: figure[k] for k in figure_panel_keys(figure)}])


def check_figures(figures, where):
    """Validate a manifest's "figures" (FIGURE_SCHEMA); raises ManifestError."""
    if not isinstance(figures, list):
        raise ManifestError("%s: 'figures' must be a list" % where)
    files = set()
    for i, figure in enumerate(figures):
        at = "%s figures[%d]" % (where, i)
        if not isinstance(figure, dict):
            raise ManifestError("%s must be an object" % at)
        panel_keys = figure_panel_keys(figure)
        if "panels" in figure and panel_keys:
            raise ManifestError("%s: give 'panels' or one panel's keys (%s), not both"
                                % (at, ", ".join(sorted(panel_keys))))
        _check_keys({k: v for k, v in figure.items() if k not in panel_keys}, "figure", at)
        name = figure.get("file")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.png", name):
            raise ManifestError("%s: 'file' must be a plain name ending in .png" % at)
        if name in files:
            raise ManifestError("%s: two figures are named %s" % (at, name))
        files.add(name)
        at = "%s (%s)" % (at, name)
        size = figure.get("size", [6, 4])
        if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, (int, float)) and v > 0 for v in size)):
            raise ManifestError("%s: size must be [width, height] in inches" % at)
        if not isinstance(figure.get("columns", 1), int) or isinstance(figure.get("columns"), bool) \
                or figure.get("columns", 1) < 1:
            raise ManifestError("%s: columns must be a whole number >= 1" % at)
        panels = figure_panels(figure)
        if not isinstance(panels, list) or not panels:
            raise ManifestError("%s: 'panels' must be a non-empty list" % at)
        for j, panel in enumerate(panels):
            pat = "%s panels[%d]" % (at, j) if "panels" in figure else at
            _check_keys(panel, "panel", pat)
            for axis in ("x", "y"):
                if axis in panel:
                    _check_axis(panel[axis], "%s.%s" % (pat, axis))
            if not isinstance(panel.get("title", ""), str) or not isinstance(panel.get("legend", True), bool):
                raise ManifestError("%s: title is a string and legend true or false" % pat)
            if "facet" in panel:
                parse_expression(panel["facet"], pat + ".facet")
            layers = panel.get("layers")
            if not isinstance(layers, list) or not layers:
                raise ManifestError("%s: 'layers' must be a non-empty list" % pat)
            for k, layer in enumerate(layers):
                _check_layer(layer, "%s layers[%d]" % (pat, k))


FIGURE_RUN_SETS = ("sample", "quoted")
FIGURE_RUN_KEYS = {"args", "ranks", "one_gpu_per_rank", "env", "name", "note"}


def check_figure_runs(runs, where):
    """Validate a manifest's "figure_runs" (the module's doc); raises ManifestError."""
    if not isinstance(runs, dict) or set(runs) - set(FIGURE_RUN_SETS) - {"sample_is_handout"}:
        raise ManifestError("%s: 'figure_runs' must be an object of %s and sample_is_handout"
                            % (where, ", ".join(FIGURE_RUN_SETS)))
    if not isinstance(runs.setdefault("sample_is_handout", True), bool):
        raise ManifestError("%s: figure_runs.sample_is_handout must be true or false" % where)
    for kind in FIGURE_RUN_SETS:
        names = set()
        if not isinstance(runs.setdefault(kind, []), list):
            raise ManifestError("%s: figure_runs.%s must be a list of runs" % (where, kind))
        for i, run in enumerate(runs[kind]):
            at = "%s figure_runs.%s[%d]" % (where, kind, i)
            if not isinstance(run, dict) or set(run) - FIGURE_RUN_KEYS or "args" not in run:
                raise ManifestError("%s must be an object of args and %s" % (at, ", ".join(sorted(FIGURE_RUN_KEYS))))
            list_of_str(run, "args", at)
            ranks = run.get("ranks", 1)
            if not isinstance(ranks, int) or isinstance(ranks, bool) or ranks < 1:
                raise ManifestError("%s: ranks must be a whole number >= 1" % at)
            if not isinstance(run.get("one_gpu_per_rank", False), bool) or not isinstance(run.get("note", ""), str):
                raise ManifestError("%s: one_gpu_per_rank is true or false, note a string" % at)
            env = run.get("env", {})
            if not (isinstance(env, dict) and all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) and isinstance(v, str)
                                                  for k, v in env.items())):
                raise ManifestError("%s: env must map variable names to strings" % at)
            name = run.get("name")
            if (name is not None or kind == "quoted") and not (
                    isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name)):
                raise ManifestError("%s: name must be a plain file name (a quoted run needs one)" % at)
            if name is not None and name in names:
                raise ManifestError("%s: two runs are named %s" % (at, name))
            names.add(name)


def figure_run_command(run, driver):
    """Pure: the command line (a list) of one figure run of DRIVER. Under
    mpirun, oversubscription lets more ranks than cores run (and a rank a
    GPU shares with others)."""
    env = sorted(run.get("env", {}).items())
    if "ranks" in run:
        launch = ["mpirun", "-np", str(run["ranks"]), "--oversubscribe"]
        for k, v in env:
            launch += ["-x", "%s=%s" % (k, v)]
    else:
        launch = ["env"] + ["%s=%s" % kv for kv in env] if env else []
    return launch + [driver] + run["args"]

