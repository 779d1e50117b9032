"""Class 1 of issue 38: a number that a submission reports about itself earns nothing.

Harness code in the recording run shares the submission's process, so every figure it
measures there (bytes shuffled or spilled, segments, comparisons, allocations, times) is
the submission's to write, and replay replays a lie faithfully. A test may therefore score
only values the judge checks against the inputs; a test that reads such a figure is worth
0 points and says why, and it gates nothing (score.gates). The fixtures (in
tests/fixtures/LAB/NAME, applied to the reference solution like the self-check's mutants):
  - 15-mapreduce/forge_shuffle_bytes: the combiner never applied, the JobReport forged to
    show folded pairs and bytes. The combiner test judges what reduce was handed, so it
    fails; the forged report only turns a 0-point test green; and the speed gate stays shut.
  - 14-pancake-bfs/forge_spill_report: everything kept in memory, the spilled bytes, spill
    files and segments a budgeted search would have. The searches are right, so every test
    worth points passes, as it would with an honest report: the lie fools only tests worth
    0 points, and the score is what the values earn.
  - 01-sorting/allocates_per_merge: honest code that fails only a 0-point test (its
    allocation count is taken in the submission's process): its speed is still timed.
"""
import unittest

from helpers import by_name, grade_fixture

from hpcgrade import score

# MPI labs record and judge every test at 1 to 4 ranks: a test needs more than lab 01's 5 s.
MPI_FAST = ["--no-perf", "--test-timeout", "60", "--jobs", "2"]


def perf_item(data):
    return [t for t in data["tests"] if t["name"].startswith("performance:")][0]


class GateIsPure(unittest.TestCase):
    """score.speed_gate and score.gates on items made here: no build."""

    def item(self, name, points, outcome, kind=score.VISIBLE):
        it = score.Item(name, points, kind, test=name)
        it.set(points if outcome == "passed" else 0, outcome, "")
        return it

    def test_a_failed_zero_point_test_does_not_shut_the_gate(self):
        items = [self.item("A.Scored", 2, "passed"), self.item("B.SelfReport", 0, "failed")]
        self.assertEqual(score.speed_gate(items), (True, []))

    def test_a_failed_test_worth_points_shuts_it(self):
        items = [self.item("A.Scored", 2, "failed"), self.item("B.SelfReport", 0, "passed"),
                 self.item("H.Hidden", 3, "failed", score.HIDDEN)]
        self.assertEqual(score.speed_gate(items), (False, ["A.Scored"]))

    def test_only_tests_worth_points_gate(self):
        items = [self.item("A.Scored", 1, "passed"), self.item("B.SelfReport", 0, "passed"),
                 self.item("H.Hidden", 3, "passed", score.HIDDEN), score.Item("performance", 5, score.PERFORMANCE)]
        self.assertEqual([it.name for it in score.gates(items)], ["A.Scored"])


class SelfReportFixtures(unittest.TestCase):
    maxDiff = None

    def grade(self, lab, name, args):
        code, text, data = grade_fixture(lab, name, args)
        self.assertEqual(code, 0, text)
        self.assertIsNotNone(data, "no results.json written:\n" + text)
        return data

    def assert_only_lost(self, data, lost):
        """Every test in LOST failed with 0; every other test earned all it could."""
        tests = by_name(data)
        for name, t in tests.items():
            if name.startswith("performance:"):
                continue
            if name in lost:
                self.assertEqual((t["score"], t["status"]), (0, "failed"), name)
            else:
                self.assertEqual(t["score"], t["max_score"], "%s: %s" % (name, t["output"][:300]))

    def test_a_forged_shuffle_byte_count_earns_nothing_and_unlocks_no_speed(self):
        # Speed is left on: the gate must stay shut, so nothing is timed.
        data = self.grade("15-mapreduce", "forge_shuffle_bytes", ["--rounds", "1", "--test-timeout", "60",
                                                                  "--jobs", "2"])
        tests = by_name(data)
        combiner = "WordCount.CombinerKeepsTheCountsAndShufflesLess"
        self.assertGreater(tests[combiner]["max_score"], 0)
        self.assert_only_lost(data, {combiner})
        self.assertIn("reduce must be handed", tests[combiner]["output"])
        # The forged report fooled the check that reads it, which is worth nothing.
        report = tests["Report.CountsWhatItSent"]
        self.assertEqual((report["max_score"], report["status"]), (0, "passed"))
        perf = perf_item(data)
        self.assertEqual(perf["score"], 0)
        self.assertIn("performance counts only when every visible test worth points passes", perf["output"])
        self.assertIn(combiner, perf["output"])
        self.assertNotIn("timing", data["extra_data"])
        tests_max = sum(t["max_score"] for t in data["tests"] if t is not perf)
        self.assertEqual(data["score"], tests_max - tests[combiner]["max_score"])

    def test_a_forged_spill_report_earns_nothing(self):
        data = self.grade("14-pancake-bfs", "forge_spill_report", MPI_FAST)
        tests = by_name(data)
        # The searches and the outbox's order are right: every test worth points
        # passes, as it would with an honest report of no spilling.
        self.assert_only_lost(data, set())
        # The tests that read the forged figures passed and are worth nothing.
        for name in ("Outbox.SpillsUnderBudgetAndClearsItsFiles", "Search.ReportsOwnershipTrafficSpillsAndSegments"):
            self.assertEqual((tests[name]["max_score"], tests[name]["status"]), (0, "passed"), name)
        # What earns the points under a budget is the values: the levels of n = 9
        # and the outbox's order, both right whether the items were spilled or not.
        for name in ("Search.NineUnderTheSmallestBudget", "Outbox.StreamsBackInOrderUnderABudget"):
            self.assertGreater(tests[name]["max_score"], 0, name)
        self.assertEqual(data["score"], sum(t["max_score"] for t in data["tests"] if t is not perf_item(data)))

    def test_a_failed_zero_point_test_leaves_speed_timed(self):
        data = self.grade("01-sorting", "allocates_per_merge", ["--rounds", "1", "--test-timeout", "10",
                                                               "--jobs", "2"])
        tests = by_name(data)
        allocs = tests["MergeSort.AllocatesItsBufferOnce"]
        self.assertEqual((allocs["max_score"], allocs["status"]), (0, "failed"), allocs["output"])
        self.assert_only_lost(data, {"MergeSort.AllocatesItsBufferOnce"})
        perf = perf_item(data)
        self.assertIn("ratio reference/yours", perf["output"])
        self.assertNotIn("not measured", perf["output"])
        self.assertIn("timing", data["extra_data"])


if __name__ == "__main__":
    unittest.main()
