"""Issue 38, classes 2 and 3: sorts that earned points with wrong answers.

Class 2, a check of order alone: a test that asserted only is_sorted(...,
greater) gave its point to an output of one value repeated (the fixtures
constant_descending of labs 01 and 03). Class 3, the shared checker passed
wrong answers: hpclab::check_sorted_permutation compared with < only, so NaN
compared equal to everything, and tests that relied on it alone passed an
output of NaNs (the fixtures nan_output of labs 01 and 03). Each fixture is
the solution with one attack (grading/tests/fixtures/LAB/NAME/about.txt says
which tests it aims at); graded through the real command line, it must lose
exactly those tests, for the reason the fixed check gives, and keep every
other point.
"""
import unittest

from helpers import by_name, grade_fixture

FAST = ["--no-perf", "--test-timeout", "5", "--memory", "1", "--jobs", "2"]
# Every failure below names the element counts that differ.
NOT_A_PERMUTATION = "not a permutation of the input, bit for bit"


class OrderAttacks(unittest.TestCase):
    maxDiff = None

    def assert_lost_exactly(self, lab, fixture, lost):
        """Grade LAB's FIXTURE: every test in LOST scored 0 and says why;
        every other test scored in full (performance is not graded here)."""
        code, text, data = grade_fixture(lab, fixture, FAST)
        self.assertEqual(code, 0, text)
        self.assertIsNotNone(data, "no results.json written:\n" + text)
        tests = {n: t for n, t in by_name(data).items() if not n.startswith("performance")}
        self.assertLessEqual(lost, set(tests), "the attacked tests are in the rubric")
        for name, t in tests.items():
            if name in lost:
                self.assertEqual(t["score"], 0, "%s earned points with a wrong answer: %s" % (name, t["output"]))
                self.assertEqual(t["status"], "failed", name)
                self.assertIn(NOT_A_PERMUTATION, t["output"], name)
            else:
                self.assertEqual(t["score"], t["max_score"], "%s: %s" % (name, t["output"][:300]))
        perf = sum(t["score"] for n, t in by_name(data).items() if n.startswith("performance"))
        self.assertEqual(data["score"] - perf, sum(t["max_score"] for n, t in tests.items() if n not in lost))

    # ---- class 2: descending order of one value repeated ----

    def test_lab01_constant_descending_merge_sort(self):
        self.assert_lost_exactly("01-sorting", "constant_descending", {"MergeSort.CustomOrderDescending"})

    def test_lab03_constant_descending_quicksort(self):
        self.assert_lost_exactly("03-parallel-quicksort", "constant_descending", {"SerialQuicksortOrder.Descending"})

    # ---- class 3: NaN output through the shared checker ----

    def test_lab01_nan_output_with_signed_zeros(self):
        self.assert_lost_exactly("01-sorting", "nan_output", {"Lab01/EverySorter.SignedZerosAreEqualKeys/merge"})

    def test_lab03_all_nan_output_in_a_hidden_test(self):
        self.assert_lost_exactly("03-parallel-quicksort", "nan_output", {"hidden: Hidden.SignedZerosAndExtremes"})


if __name__ == "__main__":
    unittest.main()
