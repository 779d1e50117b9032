"""Grade every fixture of grading/tests/fixtures/01-sorting through the real
command line and check the score to the point and the words of the report.

A fixture is its about.txt, an attack.patch and a `base` (the solution by
default, or the starter) that the patch applies to, materialized by
helpers.fixture_copy with the self-check's patch mechanism. Groups:
  - honest code: the solution, the starter, a wrong and a broken submission;
  - attacks on the verdict, planted in the starter, which implements
    nothing: each must score 0 (GoogleTest's public API, rewritten files,
    inherited file descriptors, premature exits, edited memory, overloaded
    headers);
  - attacks on the timing, planted in a solution slowed down 5x: none may
    earn more speed points than the slowed solution (which earns none);
  - escapes and mischief planted in the solution: none may cost or earn a
    point (they must all fail);
  - the solution with one attack at the top of seconds_per_n_log2_n, which
    exactly three rubric tests call (ATTACKED, 4 points): an honest rest
    earns everything else, so each assertion checks both "no credit for
    work not done" and "partial credit exactly as earned".
"""
import time
import unittest

import helpers
from helpers import by_name, grade_fixture

LAB = "01-sorting"
ATTACKED = {"Analysis.SecondsPerNLogN", "Analysis.RejectsBadInput", "hidden: Hidden.AnalysisIsLinearInTime"}
PERF = "performance: merge vs the reference"
TESTS_MAX = 52  # visible 41 + hidden 11 (performance 5 more)
FAST = ["--no-perf", "--test-timeout", "5", "--memory", "1", "--jobs", "2"]
TIMED = ["--rounds", "1", "--test-timeout", "10", "--jobs", "2"]

BWRAP, BWRAP_WHY = helpers.bwrap_works()


class FixtureCase(unittest.TestCase):
    maxDiff = None

    def grade(self, name, args=FAST, env=None):
        code, text, data = grade_fixture(LAB, name, args, env)
        self.assertEqual(code, 0, text)
        self.assertIsNotNone(data, "no results.json written:\n" + text)
        return data

    def assert_lost_exactly(self, data, lost, reason):
        """Every test in LOST scored 0 and says REASON; every other test passed."""
        tests = by_name(data)
        for name, t in tests.items():
            if name == PERF:
                continue
            if name in lost:
                self.assertEqual(t["score"], 0, name)
                self.assertEqual(t["status"], "failed", name)
                self.assertIn(reason, t["output"], name)
            else:
                self.assertEqual(t["score"], t["max_score"], "%s: %s" % (name, t["output"][:300]))
        expected = sum(t["max_score"] for n, t in tests.items() if n not in lost and n != PERF)
        self.assertEqual(data["score"] - tests[PERF]["score"], expected)


class HonestFixtures(FixtureCase):
    def test_solution_full_marks_with_performance(self):
        data = self.grade("solution", ["--rounds", "1", "--jobs", "2"])
        tests = by_name(data)
        self.assertEqual(data["score"] - tests[PERF]["score"], TESTS_MAX)
        self.assertGreater(tests[PERF]["score"], 0, tests[PERF]["output"])
        self.assertIn("ratio reference/yours", tests[PERF]["output"])
        self.assertIn("measured by the grader outside the driver", tests[PERF]["output"])
        self.assertEqual({t["visibility"] for n, t in tests.items() if n.startswith("hidden: ")}, {"after_published"})
        self.assertIn("seed of this grade", data["output"])

    def test_starter_zero_not_implemented(self):
        data = self.grade("starter")
        self.assertEqual(data["score"], 0)
        for name, t in by_name(data).items():
            if name != PERF and t["max_score"] > 0:
                self.assertIn("not implemented", t["output"], name)

    def test_wrong_partial_credit(self):
        data = self.grade("wrong")
        lost = {n for n in by_name(data) if n.endswith("/lambda")} | {
            "hidden: Hidden.OddLengthsAroundPowersOfTwo", "hidden: Hidden.ExtremeValues",
            "hidden: Hidden.OtherSeedsAndSawtooth"}
        self.assertEqual(len(lost), 10)
        self.assert_lost_exactly(data, lost, "failed")
        self.assertEqual(data["score"], TESTS_MAX - 7 - 7)
        self.assertIn("performance counts only when every visible test worth points passes",
                      by_name(data)[PERF]["output"])

    def test_compile_error(self):
        data = self.grade("compile_error")
        self.assertEqual(data["score"], 0)
        self.assertIn("compile error", data["output"])
        self.assertIn("error: expected", data["output"])
        self.assertIn("labs/01-sorting/student/sorting.cpp", data["output"])
        self.assertIs(data["extra_data"].get("compile_failed"), True)
        from hpcgrade import selfcheck
        caught, why = selfcheck.judge_mutant(data)
        self.assertFalse(caught, why)
        self.assertIn("error: expected", why)
        self.assertLessEqual(data["output"].count("\n"), 60)

    def test_segfault_costs_only_its_tests(self):
        self.assert_lost_exactly(self.grade("segfault"), ATTACKED, "crashed with SIGSEGV")

    def test_infinite_loop_times_out(self):
        self.assert_lost_exactly(self.grade("infinite_loop"), ATTACKED, "timed out after 5 s")


class VerdictAttacksOnTheStarter(FixtureCase):
    """The starter implements nothing; with any of these payloads it must
    still score 0: the verdict comes from the judge, which loads no student
    code, and the judge reads only the records, which need real answers."""
    FIXTURES = ("gtest_result_reporter", "gtest_listener", "gtest_flags", "atexit_rewrite",
                "static_destructor_rewrite", "inherited_fds", "premature_and_exit", "memory_edit",
                "header_overloads")

    def test_each_scores_zero(self):
        for name in self.FIXTURES:
            with self.subTest(fixture=name):
                self.assertEqual(helpers.fixture_base(LAB, name), "starter")
                data = self.grade(name)
                won = [n for n, t in by_name(data).items() if t["score"] > 0]
                self.assertEqual(data["score"], 0, "%s earned points in %s" % (name, won))


class TimingAttacksOnASlowSolution(FixtureCase):
    """Each payload on a 5x slowed solution: no more points than the slowed
    solution itself, and no speed points at all."""

    @classmethod
    def setUpClass(cls):
        code, text, cls.slowed = grade_fixture(LAB, "slowed", TIMED)
        assert cls.slowed is not None, text

    def check(self, name, why):
        data = self.grade(name, TIMED)
        perf = by_name(data)[PERF]
        self.assertEqual(perf["score"], 0, perf["output"])
        self.assertIn(why, perf["output"])
        self.assertLessEqual(data["score"], self.slowed["score"])
        return data

    def test_the_slowed_solution_earns_no_speed_points(self):
        perf = by_name(self.slowed)[PERF]
        self.assertEqual(perf["score"], 0, perf["output"])
        self.assertEqual(self.slowed["score"], TESTS_MAX)

    def test_a_cache_of_earlier_inputs_finds_nothing(self):
        self.check("cache_results", "ratio reference/yours")

    def test_skipping_unchecked_repetitions_is_a_wrong_result(self):
        self.check("work_when_checked", "gave a wrong result")

    def test_a_forked_helper_is_refused(self):
        self.check("fork_helper", "ratio reference/yours")

    def test_work_deferred_to_a_thread_fails_tests_and_timing(self):
        data = self.check("background_thread", "")
        self.assertLess(data["score"], self.slowed["score"])

    def test_forged_timing_lines_and_answers(self):
        self.check("forged_perf_lines", "not measured")


class EscapesOnTheSolution(FixtureCase):
    """Payloads planted in the solution that try to get out or hit the
    grader: they must all fail, so the solution's marks are unchanged."""

    def test_remount_file_handles_ptrace_new_namespaces(self):
        if not BWRAP:
            self.skipTest("bubblewrap unavailable: %s" % BWRAP_WHY)
        self.assert_lost_exactly(self.grade("escapes"), set(), "")

    def test_signals_and_writes_to_other_processes(self):
        self.assert_lost_exactly(self.grade("signal_monitor"), set(), "")

    def test_a_file_left_in_home_for_a_later_run(self):
        control = self.grade("home_cache_control")
        data = self.grade("home_cache")
        self.assertEqual(data["score"], control["score"])
        self.assertLess(data["score"], TESTS_MAX)

    def test_killing_the_parent(self):
        self.assert_lost_exactly(self.grade("kill_parent"), set(), "")


class HostileFixtures(FixtureCase):
    ENDED = "the recording run ended before this call returned"

    def test_exit0(self):
        self.assert_lost_exactly(self.grade("exit0"), ATTACKED, self.ENDED)

    def test_underscore_exit0(self):
        self.assert_lost_exactly(self.grade("underscore_exit0"), ATTACKED, self.ENDED)

    def test_forged_report_and_exit(self):
        self.assert_lost_exactly(self.grade("forge_report"), ATTACKED, self.ENDED)

    def test_full_imitation_of_googletest_earns_nothing(self):
        # A forged report for the right test, the premature-exit file deleted
        # and exit status 0: once the grader's limit, now plainly a call that
        # never returned.
        data = self.grade("forge_report_and_premature_file")
        self.assert_lost_exactly(data, ATTACKED, self.ENDED)
        self.assertIn("for review", data["output"])

    def test_naming_the_harness_is_listed_not_scored(self):
        data = self.grade("tamper_names")
        self.assert_lost_exactly(data, ATTACKED, self.ENDED)
        self.assertIn("grader's channels", data["output"])

    def test_printed_passed_lines_count_for_nothing(self):
        self.assert_lost_exactly(self.grade("passed_lines"), ATTACKED, "failed: ")

    def test_deleting_files(self):
        data = self.grade("delete_files")
        if BWRAP:
            # The build is read-only: the binary stays; the test then
            # completes honestly: the work was done, so it earns its points.
            self.assert_lost_exactly(data, set(), "")
            out = by_name(data)["Analysis.SecondsPerNLogN"]["output"]
            self.assertIn("unlink own binary: Read-only file system", out)
        else:
            print("\n  note: without bubblewrap (%s) a test may delete its binary: digests then stop the rest"
                  % BWRAP_WHY)
            self.assertLessEqual(data["score"], TESTS_MAX)

    def test_orphan_child_cannot_write_late_results(self):
        t = time.monotonic()
        data = self.grade("orphan_child")
        self.assert_lost_exactly(data, ATTACKED, "failed: ")
        self.assertLess(time.monotonic() - t, 240)

    def test_sleep_forever(self):
        self.assert_lost_exactly(self.grade("sleep_forever"), ATTACKED, "timed out after 5 s")

    def test_flood(self):
        data = self.grade("flood")
        self.assert_lost_exactly(data, set(), "")
        self.assertIn("its output was cut", by_name(data)["Analysis.SecondsPerNLogN"]["output"])

    def test_allocating_all_memory(self):
        data = self.grade("alloc_all", ["--no-perf", "--memory", "0.5", "--test-timeout", "30", "--jobs", "2"])
        self.assert_lost_exactly(data, ATTACKED, "ran out of memory")

    def test_reading_solutions_at_run_time(self):
        data = self.grade("read_solutions")
        if BWRAP:
            self.assert_lost_exactly(data, set(), "")
            self.assertIn("no solutions or hidden tests readable", by_name(data)["Analysis.SecondsPerNLogN"]["output"])
        else:
            print("\n  weaker without bubblewrap (%s): the workspace is a temporary copy, so walking up from "
                  "the cwd or __FILE__ finds nothing, but a submission that knows the repo's absolute path "
                  "can read what the sandbox uid may read" % BWRAP_WHY)

    def test_including_solutions_at_compile_time(self):
        data = self.grade("include_solutions")
        self.assertEqual(data["score"], 0)
        self.assertIn("compile error", data["output"])

    def test_including_hidden_tests_at_compile_time(self):
        data = self.grade("include_hidden")
        self.assertEqual(data["score"], 0)
        self.assertIn("compile error", data["output"])

    def test_hidden_tests_absent_during_the_student_build(self):
        self.assert_lost_exactly(self.grade("probe_hidden"), set(), "")

    def test_network(self):
        data = self.grade("network")
        out = by_name(data)["Analysis.SecondsPerNLogN"]["output"]
        if BWRAP:
            self.assert_lost_exactly(data, set(), "")
            self.assertIn("network blocked", out)
        else:
            print("\n  note: without bubblewrap (%s) the network is not cut: %s" % (BWRAP_WHY, out[:200]))


class FallbackLayers(FixtureCase):
    """Without bubblewrap (forced with HPCGRADE_NO_BWRAP=1): the layers that
    do not depend on it still hold."""
    ENV = {"HPCGRADE_NO_BWRAP": "1", "HPCGRADE_TRUST_CCACHE": "1"}

    def test_report_says_why(self):
        data = self.grade("segfault", env=self.ENV)
        self.assertIn("sandbox: bubblewrap unavailable (disabled by HPCGRADE_NO_BWRAP); resource limits only",
                      data["output"])
        self.assert_lost_exactly(data, ATTACKED, "crashed with SIGSEGV")

    def test_verdicts_still_come_from_the_judge(self):
        self.assertEqual(self.grade("gtest_result_reporter", env=self.ENV)["score"], 0)

    def test_kill_parent_does_not_kill_the_grader(self):
        self.assert_lost_exactly(self.grade("kill_parent", env=self.ENV), set(), "")

    def test_include_by_absolute_path_is_caught_by_the_dependency_check(self):
        data = self.grade("include_solutions", env=self.ENV)
        self.assertEqual(data["score"], 0)
        self.assertIn("outside the workspace", data["output"])
        self.assertIn("solutions/01-sorting/sorting.cpp", data["output"])


class RecordedTogether(FixtureCase):
    """Tests recorded up to 8 a process (HPCGRADE_RECORD_TOGETHER; a CUDA
    lab's default, pipeline.RECORD_TOGETHER_CUDA, tried here on lab 01,
    which CI can run): every verdict is the one a process a test gives. A test that ends its process, or crashes it, is
    recorded again alone, and so is every test its process left unrecorded."""
    TOGETHER = {"HPCGRADE_RECORD_TOGETHER": "8"}

    def test_the_solution_keeps_every_point(self):
        self.assert_lost_exactly(self.grade("solution", FAST, self.TOGETHER), set(), "")

    def test_wrong_loses_the_same_tests(self):
        data = self.grade("wrong", FAST, self.TOGETHER)
        self.assertEqual(data["score"], TESTS_MAX - 7 - 7)

    def test_exit0_and_a_crash_cost_only_their_tests(self):
        self.assert_lost_exactly(self.grade("exit0", FAST, self.TOGETHER), ATTACKED, HostileFixtures.ENDED)
        self.assert_lost_exactly(self.grade("segfault", FAST, self.TOGETHER), ATTACKED, "crashed with SIGSEGV")

    def test_rewriting_the_records_at_exit_earns_nothing(self):
        for name in ("atexit_rewrite", "static_destructor_rewrite"):
            with self.subTest(fixture=name):
                self.assertEqual(self.grade(name, FAST, self.TOGETHER)["score"], 0)


if __name__ == "__main__":
    unittest.main()
