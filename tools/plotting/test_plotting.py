#!/usr/bin/env python3
"""Tests of the figure declarations' checks (labs/lab_manifest) and of
the rows-to-points step (layers.py): what a lab.json may say, and what the
figures then show. No matplotlib needed; meson test runs it in the
`figures` suite."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "labs"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from lab_manifest import ManifestError, check_figures, list_labs, load  # noqa: E402
from plotting.expressions import Missing, Scope, evaluate  # noqa: E402
from plotting.layers import merged, reduced, series_of  # noqa: E402
from lab_manifest import parse_expression  # noqa: E402


def points(layer, rows):
    return {s.label: [(x, y) for x, y, _ in merged(s.points)] for s in series_of(layer, rows)}


def figure(layer):
    return [{"file": "f.png", "layers": [layer]}]


class Expressions(unittest.TestCase):
    def value(self, text, row):
        return evaluate(parse_expression(text, "test"), Scope(row))

    def test_arithmetic_fields_and_functions(self):
        row = {"n": 1024, "seconds": {"median": 2.0}, "name": "copy/offset=3"}
        self.assertEqual(self.value("seconds.median / (n * log2(n))", row), 2.0 / 10240)
        self.assertEqual(self.value("number(part(name, '=', 1))", row), 3.0)
        self.assertEqual(self.value("'%s p%d' % (name, n)", row), "copy/offset=3 p1024")
        self.assertEqual(self.value("get('budget', 0) > 0", row), False)
        self.assertEqual(self.value("'big' if n > 100 else 'small'", row), "big")

    def test_missing_fields_and_undefined_values_leave_the_row_out(self):
        for text in ("ranks", "seconds.mean", "n / 0", "log(0)", "seconds.__class__"):
            with self.assertRaises(Missing, msg=text):
                self.value(text, {"n": 0, "seconds": {"median": 1.0}})

    def test_code_is_refused(self):
        for text in ("__import__('os').system('true')", "(lambda: 1)()", "open('x')", "[n for n in ()]",
                     "name[0]", "name.upper()", "n if", ""):
            with self.assertRaises(ManifestError, msg=text):
                parse_expression(text, "test")


class Declarations(unittest.TestCase):
    def test_every_lab_declares_figures_that_pass(self):
        for lab in list_labs(ROOT):
            self.assertTrue(load(ROOT, lab)["figures"], "%s declares no figure" % lab)

    def test_bad_declarations_are_named(self):
        bad = [
            ([{"file": "a/b.png", "layers": [{"x": "n", "y": "n"}]}], "plain name"),
            ([{"file": "a.png", "layers": []}], "non-empty"),
            ([{"file": "a.png", "layers": [{"x": "n"}]}], "needs 'y'"),
            (figure({"x": "n", "y": "n", "style": "pie"}), "style"),
            (figure({"x": "n", "y": "n", "colour": "red"}), "unknown key"),
            (figure({"x": "n", "y": "n", "where": {"name": {"a": 1}}}), "where"),
            (figure({"x": "n", "y": ["a", "b"]}), "bar"),
            (figure({"x": "n", "y": ["a", "b"], "style": "bar", "label": "one"}), "one label per y"),
            (figure({"x": "n", "y": "n", "curve": [2, 1]}), "curve"),
            ([{"file": "a.png", "layers": [{"x": "n", "y": "n"}]}] * 2, "two figures"),
            ([{"file": "a.png", "x": {"log": 3}, "layers": [{"x": "n", "y": "n"}]}], "log"),
            ([{"file": "a.png", "columns": 0, "layers": [{"x": "n", "y": "n"}]}], "columns"),
        ]
        for figures, words in bad:
            with self.assertRaises(ManifestError, msg=words) as e:
                check_figures(figures, "lab.json")
            self.assertIn(words, str(e.exception))


class Layers(unittest.TestCase):
    rows = [{"name": "a", "n": 1, "t": 4.0}, {"name": "a", "n": 2, "t": 2.0}, {"name": "a", "n": 2, "t": 4.0},
            {"name": "b", "n": 1, "t": 8.0}, {"name": "b", "n": 4, "t": 1.0}, {"name": "c", "n": 1}]

    def test_series_filters_and_repeated_x_averaged(self):
        got = points({"where": {"name": ["a", "b*"]}, "x": "n", "y": "t", "series": "name"}, self.rows)
        self.assertEqual(got, {"a": [(1, 4.0), (2, 3.0)], "b": [(1, 8.0), (4, 1.0)]})

    def test_a_reference_row_per_series_gives_relative_values(self):
        got = points({"x": "n", "y": "ref.t / t", "series": "name", "ref": {"n": 1}, "if": "name != 'c'"},
                     self.rows)
        self.assertEqual(got, {"a": [(1, 1.0), (2, 1.5)], "b": [(1, 1.0), (4, 8.0)]})

    def test_best_row_and_labels(self):
        got = points({"x": "n", "y": "t", "series": "name", "best": "t", "label": "kernel {0}"}, self.rows)
        self.assertEqual(got, {"kernel a": [(1, 4.0)], "kernel b": [(1, 8.0)]})

    def test_unpivot_and_curve(self):
        got = points({"unpivot": "level_", "series": "n"}, [{"n": 4, "level_0": 1, "level_1": 3, "level_2": 2}])
        self.assertEqual(got, {"4": [(0, 1), (1, 3), (2, 2)]})
        curve = series_of({"curve": [1, 100], "y": "min(peak, x * bw)"}, [{"peak": 10, "bw": 2}])[0].points
        self.assertEqual((curve[0][0], curve[0][1], curve[-1][1]), (1, 2, 10))

    def test_reductions(self):
        self.assertEqual([reduced([3, 1, 2], how) for how in ("max", "min", "first", "last", "mean")], [3, 1, 3, 2, 2])
        self.assertIsNone(reduced([], "max"))


if __name__ == "__main__":
    unittest.main()
