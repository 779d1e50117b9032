#!/usr/bin/env python3
"""Unit tests of tools/handout_commands.py's pure parts (the Meson test
`handout commands units`): what is a command, what a marker says, the order
blocks run in, and that the script stops at the first unexpected status."""
import os
import subprocess
import sys
import tempfile
import time
import unittest
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handout_commands as hc  # noqa: E402

DOC = """# A handout

```sh
meson setup build/x -Dlabs=x   # once
meson compile -C build/x
```

Prose with `inline --code`.

<!-- check: after-build; reads the build's output -->
```sh
objdump -d build/x/lib.a \\
  | grep -c call
```

```text
output, not a command
```

<!-- check: gpu-host; needs a GPU -->
```sh
build/x/labs/x --gpu
build/x/labs/x --bad   # stops with one line: exits 1
```

<!-- check: slow -->
```sh
build/x/labs/x --huge
```

```
bare
```

    grading/grade 01 --submission labs/x
"""


class Parse(unittest.TestCase):
    def setUp(self):
        self.blocks, self.bare = hc.parse("doc.md", DOC)

    def test_blocks_languages_and_commands(self):
        self.assertEqual([b.lang for b in self.blocks], ["sh", "sh", "text", "sh", "sh", ""])
        self.assertEqual([c.code for c in self.blocks[0].commands],
                         ["meson setup build/x -Dlabs=x", "meson compile -C build/x"])
        # A continued line is one command, with its line number the first's.
        (c,) = self.blocks[1].commands
        self.assertEqual(c.code, "objdump -d build/x/lib.a | grep -c call")
        self.assertEqual(c.line, 12)
        self.assertEqual(self.blocks[2].commands, [])

    def test_markers(self):
        self.assertEqual((self.blocks[0].kind, self.blocks[0].modifiers), ("here", []))
        self.assertEqual((self.blocks[1].kind, self.blocks[1].modifiers), ("here", ["after-build"]))
        self.assertEqual((self.blocks[3].kind, self.blocks[3].reason), ("gpu-host", "needs a GPU"))
        self.assertEqual(self.blocks[4].kind, "slow")
        self.assertTrue(self.blocks[4].errors, "a marker without a reason is an error")
        self.assertFalse(self.blocks[3].errors)
        b = hc.Block("d", 1, "sh", "gpu-host, fast; why")
        self.assertIn("unknown word 'fast'", b.errors[0])

    def test_expected_status_from_the_comment(self):
        self.assertEqual([c.expect for c in self.blocks[3].commands], [0, 1])

    def test_bare_fences_and_indented_commands_are_reported(self):
        lines = DOC.splitlines()
        self.assertEqual(self.bare, [lines.index("bare"), lines.index("    grading/grade 01 --submission labs/x") + 1])

    def test_comments_are_stripped_outside_quotes_only(self):
        self.assertEqual(hc.strip_comment("a 'b # c' # d"), "a 'b # c' ")
        self.assertEqual(hc.strip_comment("echo a#b"), "echo a#b")

    def test_a_plot_must_allow_the_status_of_no_matplotlib(self):
        block = self.blocks[0]
        bare = hc.Command("d.md", 3, "tools/plot 01 x.jsonl --out f   # PNGs", block)
        allowed = hc.Command("d.md", 4, "tools/plot 01 x.jsonl   # PNGs; exits 0 or 77 (no matplotlib)", block)
        chained = hc.Command("d.md", 5, "x --json > r.jsonl && tools/plot 01 r.jsonl", block)
        self.assertEqual(len(hc.plot_problems(bare)), 1)
        self.assertEqual(hc.plot_problems(allowed), [])
        self.assertEqual(len(hc.plot_problems(chained)), 1)

    def test_placeholders(self):
        found = [p for text in ("grade 08 --submission DIR", "mpirun -np P x", "x --c on|off", "x [--batch K]",
                                "x --n 2^22 | grep -c y", "A=1 x")
                 for p in hc.PLACEHOLDER.findall(text)]
        self.assertEqual(found, ["DIR", "P", "on|off", "[--batch K]"])


class Order(unittest.TestCase):
    def test_selected_runs_the_build_first_and_here_blocks_before_the_kind(self):
        blocks, _ = hc.parse("doc.md", DOC)
        lines = lambda bs: [b.line for b in bs]  # noqa: E731
        # CI: the here blocks, the after-build one behind the build.
        self.assertEqual(lines(hc.selected(blocks, ["here"])), [3, 11])
        # A GPU host: the here blocks before it, then the gpu-host block.
        self.assertEqual(lines(hc.selected(blocks, ["gpu-host"])), [3, 11, 21])
        # The gpu-host block is not run for slow alone.
        self.assertEqual(lines(hc.selected(blocks, ["slow"])), [3, 11, 27])


class UsedBeforeBuilt(unittest.TestCase):
    def problems(self, doc):
        blocks, _ = hc.parse("doc.md", doc)
        return hc.used_before_built("doc.md", blocks)

    def test_a_run_of_the_build_before_the_build_is_reported(self):
        early = "<!-- check: gpu-host; needs a GPU -->\n```sh\n./build/x/labs/x --sweep\n```\n\n" + DOC
        problems = self.problems(early)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("doc.md:3: runs what the build below makes", problems[0])
        self.assertIn("<!-- check: gpu-host, after-build;", problems[0])

    def test_marked_or_after_the_build_is_not(self):
        self.assertEqual(self.problems(DOC), [])  # its objdump block is after-build
        marked = "<!-- check: gpu-host, after-build; the build below -->\n```sh\nbuild/x/labs/x\n```\n" + DOC
        self.assertEqual(self.problems(marked), [])
        # A block that builds (meson test does) may use the build after it.
        self.assertEqual(self.problems("```sh\nmeson test -C build/y\nbuild/y/labs/y\n```\n"), [])


class Script(unittest.TestCase):
    def run_commands(self, texts, on_result=lambda r: None):
        block = hc.Block("d.md", 1, "sh", None)
        commands = [hc.Command("d.md", i + 1, t, block) for i, t in enumerate(texts)]
        with tempfile.TemporaryDirectory() as tmp:
            status = os.path.join(tmp, "status")
            code, results = hc.run_script(hc.script_for(commands, status), tmp, os.path.join(tmp, "log"), status,
                                          60, dict(os.environ), on_result)
        return code, [(r[0], r[1]) for r in results]

    def test_each_result_is_reported_as_its_command_ends(self):
        # A run cut short from outside (lab 11's handout on a GPU host, past
        # the device's limit) must already have said what passed.
        seen = []
        t0 = time.monotonic()
        code, results = self.run_commands(["true", "sleep 3", "false  # exits 1"],
                                          lambda r: seen.append((r[0], r[1], time.monotonic() - t0)))
        self.assertEqual((code, results), (0, [(0, 0), (1, 0), (2, 1)]))
        self.assertEqual([(i, status) for i, status, _ in seen], results)
        self.assertLess(seen[0][2], 2.5, "the first result waited for the sleep")

    def test_state_carries_over_and_an_expected_failure_passes(self):
        code, results = self.run_commands(["export X=5", "test $X = 5", "exit_with() { return $1; }; exit_with 1"
                                           "  # exits 1", "true"])
        self.assertEqual(code, 0)
        self.assertEqual(results, [(0, 0), (1, 0), (2, 1), (3, 0)])

    def test_stops_at_the_first_unexpected_status(self):
        code, results = self.run_commands(["true", "false", "true"])
        self.assertEqual(code, 100)
        self.assertEqual(results, [(0, 0), (1, 1)])

    def test_cpu_seconds_are_each_commands_own(self):
        block = hc.Block("d.md", 1, "sh", None)
        busy = 'python3 -c "import time; t = time.process_time() + 0.3\nwhile time.process_time() < t: pass"'
        commands = [hc.Command("d.md", i + 1, t, block) for i, t in enumerate([busy, "sleep 0.3"])]
        with tempfile.TemporaryDirectory() as tmp:
            status = os.path.join(tmp, "status")
            code, results = hc.run_script(hc.script_for(commands, status), tmp, os.path.join(tmp, "log"), status,
                                          60, dict(os.environ))
        self.assertEqual(code, 0)
        (_, _, _, cpu_busy), (_, _, wall_sleep, cpu_sleep) = results
        self.assertGreater(cpu_busy, 0.25)
        self.assertLess(cpu_sleep, 0.1)
        self.assertGreater(wall_sleep, 0.25)

    def test_a_second_status_is_accepted_and_the_script_goes_on(self):
        code, results = self.run_commands(["exit_with() { return $1; }; exit_with 77  # exits 0 or 77", "true",
                                           "exit_with() { return $1; }; exit_with 1  # exits 0 or 77"])
        self.assertEqual((code, results), (100, [(0, 77), (1, 0), (2, 1)]))
        c = hc.Command("d.md", 1, "tools/plot 08 x.jsonl  # PNGs; exits 0 or 77 (no matplotlib)",
                       hc.Block("d.md", 1, "sh", None))
        self.assertEqual((c.expect, c.also), (0, 77))
        self.assertEqual([c.accepts(s) for s in (0, 77, 1, None)], [True, True, False, False])
        self.assertEqual([c.skipped(s) for s in (0, 77, 1, None)], [False, True, False, False])

    def test_an_unexpected_success_is_a_failure(self):
        code, results = self.run_commands(["true  # exits non-zero"])
        self.assertEqual((code, results), (100, [(0, 0)]))


class Environment(unittest.TestCase):
    def test_a_readers_terminal_has_neither_meson_tests_nor_open_mpis_root_settings(self):
        added = {"MALLOC_PERTURB_": "57", "MESON_TEST_ITERATION": "1", "ASAN_OPTIONS": "x", "UBSAN_OPTIONS": "x",
                 "MSAN_OPTIONS": "x", "OMPI_ALLOW_RUN_AS_ROOT": "1", "HPC_KEEP_ME": "yes"}
        with unittest.mock.patch.dict(os.environ, added):
            env = hc.clean_env()
        self.assertEqual(env["HPC_KEEP_ME"], "yes")
        self.assertEqual(set(added) & set(env), {"HPC_KEEP_ME"})


class Repository(unittest.TestCase):
    def test_the_repository_lints_clean(self):
        p = subprocess.run([sys.executable, hc.__file__, "--check"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(p.returncode, 0, p.stdout.decode())

    def test_ci_command_is_the_readmes_second(self):
        self.assertEqual(hc.ci_command(hc.ROOT).split()[0], "{")


if __name__ == "__main__":
    unittest.main()
