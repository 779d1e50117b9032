"""Output changed after a judged call returned (issue 38, class 4): the
fixtures of labs 03 and 15 leave work running that rewrites a call's output
100 ms after it returned: a task on oneTBB's worker threads, a thread in a
timed wait, a timer or else a forked child sharing the output's pages, and a
thread on every MPI rank. A record
taken the moment a call returns held right answers and earned those tests'
points. The record is now written once the work a call left has stopped
(common/src/judged_settle.cpp): the call is refused and every test that
makes it earns nothing; the rest of the solution keeps its points.

Fast: --no-perf (the attacks are on the verdicts, not the timing).
"""
import unittest

from helpers import by_name, grade_fixture

FAST = ["--no-perf", "--test-timeout", "20", "--jobs", "2"]
CHANGED = "the call's outputs changed after it returned"
# An MPI rank whose call was refused ends the job: the judge of another rank
# may report first that the recording stopped in the middle of that call.
STOPPED = "the recording run ended before this call returned"


class LateWrites(unittest.TestCase):
    maxDiff = None

    def grade(self, lab, name):
        # A first grade of a lab also builds its judge and reference.
        code, text, data = grade_fixture(lab, name, FAST, timeout=1500)
        self.assertEqual(code, 0, text)
        self.assertIsNotNone(data, "no results.json written:\n" + text)
        return data

    def assert_lost_exactly(self, data, lost, reasons):
        """Every test in LOST scored 0 and gives one of REASONS; every other
        test item scored in full."""
        tests = {n: t for n, t in by_name(data).items() if not n.startswith("performance")}
        self.assertTrue(lost <= set(tests), sorted(lost - set(tests)))
        for name, t in tests.items():
            if name in lost:
                self.assertEqual(t["score"], 0, name)
                self.assertTrue(any(r in t["output"] for r in reasons), "%s: %s" % (name, t["output"][:500]))
            else:
                self.assertEqual(t["score"], t["max_score"], "%s: %s" % (name, t["output"][:500]))

    def test_lab03_a_pool_task_a_timed_wait_a_timer_or_a_child_sharing_memory(self):
        data = self.grade("03-parallel-quicksort", "late_writes")
        lost = {"Lab03/EverySorter.%s/%s" % (test, sorter)
                for test in ("Random", "SortedAndReversed", "ManyDuplicates", "TinySizes")
                for sorter in ("tbb_parallel_sort", "tbb_quicksort", "omp_tasks")}
        lost |= {"hidden: Hidden.OtherSeedsAndOddSizes", "hidden: Hidden.OrganPipeAndSawtooth",
                 "hidden: Hidden.SignedZerosAndExtremes", "hidden: Hidden.ManyThreadsAndTinyCutoff"}
        self.assert_lost_exactly(data, lost, [CHANGED])

    def test_lab15_a_thread_on_every_rank_that_changes_the_counts_later(self):
        data = self.grade("15-mapreduce", "late_thread")
        lost = {"Pancake.LectureExampleFourPancakes", "Pancake.PublishedLevelCountsUpToSeven",
                "hidden: Hidden.PancakeEight"}
        self.assert_lost_exactly(data, lost, [CHANGED, STOPPED])


if __name__ == "__main__":
    unittest.main()
