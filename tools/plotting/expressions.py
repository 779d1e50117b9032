"""Evaluate a figure expression (lab_manifest.parse_expression has checked
that the tree holds only arithmetic, comparisons, fields and the named
functions) on one row of a driver's output."""
import ast
import math
import operator


class Missing(Exception):
    """The row lacks a field the expression names (or the value is undefined,
    as x / 0): the row is left out of that layer."""


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


def field(row, dotted):
    """ROW's value at a dotted path (seconds.median); Missing if absent."""
    value = row
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise Missing(dotted)
        value = value[part]
    return value


def _number(text):
    try:
        return float(str(text).strip())
    except ValueError:
        raise Missing("number(%r)" % text) from None


def _part(text, sep, index):
    pieces = str(text).split(sep)
    if not -len(pieces) <= int(index) < len(pieces):
        raise Missing("part(%r, %r, %r)" % (text, sep, index))
    return pieces[int(index)]


def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    return _dotted(node.value) + "." + node.attr


class Scope:
    """What an expression sees: the row's fields, the series' reference row
    as `ref`, and the x of a curve as `x`."""

    def __init__(self, row, ref=None, x=None):
        self.row, self.ref, self.x = row, ref, x
        self.functions = {
            "log": math.log, "log2": math.log2, "log10": math.log10, "sqrt": math.sqrt, "abs": abs,
            "min": min, "max": max, "part": _part, "number": _number,
            "get": lambda name, default=None: self.get(name, default),
        }

    def get(self, name, default):
        try:
            return field(self.row, name)
        except Missing:
            return default

    def lookup(self, dotted):
        head, _, rest = dotted.partition(".")
        if head == "x" and self.x is not None and not rest:
            return self.x
        if head == "ref":
            if self.ref is None or not rest:
                raise Missing("ref")
            return field(self.ref, rest)
        return field(self.row, dotted)


def evaluate(tree, scope):
    """The value of a parsed expression TREE in SCOPE; Missing where undefined."""
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Name, ast.Attribute)):
            return scope.lookup(_dotted(node))
        if isinstance(node, ast.Tuple):
            return tuple(ev(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](ev(node.operand))
        if isinstance(node, ast.BoolOp):
            values = (ev(v) for v in node.values)
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare):
            left = ev(node.left)
            for op, right in zip(node.ops, node.comparators):
                right = ev(right)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return ev(node.body) if ev(node.test) else ev(node.orelse)
        if isinstance(node, ast.Call):
            return scope.functions[node.func.id](*[ev(a) for a in node.args])
        raise Missing(type(node).__name__)  # parse_expression lets no other node through

    try:
        return ev(tree)
    except (ZeroDivisionError, ValueError, TypeError, OverflowError) as e:
        raise Missing(str(e)) from None
