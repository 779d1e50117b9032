"""The Nsight Compute profile (hpcgrade/profile.py, lab.json "profile"):
ncu's recorded raw CSV of labs 05, 06, 07, 08 and 13 (fixtures/ncu/: runs
of the reference drivers on H200s, trimmed to the columns the labs read),
hostile CSVs, the labs' declarations; and on a GPU host with ncu, lab 07's
transposes profiled for real."""
import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import unittest.mock

import helpers  # noqa: F401  (puts grading/ on sys.path)
from hpcgrade import host, lease, manifest, pipeline, profile, score
from hpcgrade import sandbox as sb_mod

ROOT = helpers.ROOT
NCU = os.path.join(helpers.FIXTURES, "ncu")
ST = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"
LD = "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"
CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
SHARED_LD = "smsp__inst_executed_op_shared_ld.sum"
PER_LOAD = CONFLICTS + "/" + SHARED_LD
# A __global__ function's name, after its return type and launch bounds.
GLOBAL_FUNCTION = re.compile(r"__global__\s+(?:(?:void|__launch_bounds__\s*\([^)]*\)|__maxnreg__\s*\([^)]*\))\s*)*"
                             r"(\w+)\s*\(")


def fixture(name):
    with open(os.path.join(NCU, name), encoding="utf-8") as f:
        return f.read()


def lab_profile(lab):
    return manifest.check_grading_fields(manifest.load(ROOT, lab))["profile"]


def profiled_labs():
    return [lab for lab in manifest.list_labs(ROOT) if "profile" in manifest.load(ROOT, lab)]


def said(cfg, kernel, ref=None):
    return "\n".join(profile.readings(cfg, kernel, ref))


class RecordedProfiles(unittest.TestCase):
    """The readings fire as the recorded counters say."""

    def test_transposes(self):
        cfg = lab_profile("07-coalescing")
        k = profile.parse(fixture("transpose.csv"), cfg)
        self.assertEqual(list(k), ["transpose_naive_kernel", "transpose_tiled_kernel", "transpose_padded_kernel"])
        naive, tiled, padded = k.values()
        self.assertEqual((naive.values[ST], padded.values[ST]), (32.0, 4.0))
        # Thousands separators: 16,492,780 conflicts over 524,288 shared loads.
        self.assertAlmostEqual(tiled.values[PER_LOAD], 16492780 / 524288)
        self.assertAlmostEqual(padded.values[PER_LOAD], 61169 / 524288)
        self.assertIsNone(naive.values[PER_LOAD])  # 0 conflicts over 0 shared loads: no ratio
        self.assertEqual([s for s, _ in naive.stalls], ["long_scoreboard", "lg_throttle"])
        self.assertIn("your stores are not coalesced", said(cfg, naive))
        self.assertNotIn("not coalesced", said(cfg, padded))
        self.assertIn("pad the tile", said(cfg, tiled))
        self.assertNotIn("pad the tile", said(cfg, padded))
        # Against a reference whose naive kernel is the padded one (a student
        # who left the naive version in): the reference-relative readings fire.
        self.assertIn("under half the reference's issue rate", said(cfg, naive, padded))
        self.assertNotIn("under half", said(cfg, padded, padded))

    def test_reductions_aggregate_their_launches(self):
        cfg = lab_profile("06-reduction")
        k = profile.parse(fixture("reduce.csv"), cfg)
        self.assertEqual(list(k)[:2], ["reduce_interleaved<float>", "reduce_sequential<float>"])
        self.assertEqual(k["reduce_interleaved<float>"].launches, 3)
        self.assertEqual(k["reduce_warp_shuffle<float>"].launches, 1)
        inter = k["reduce_interleaved<float>"]
        # The first pass (212,480 ns over 16 M floats) outweighs the two
        # tiny ones (3,968 and 3,488 ns): its 78.87% issue rate dominates.
        want = (212480 * 78.87 + 3968 * 29.29 + 3488 * 17.65) / (212480 + 3968 + 3488)
        self.assertAlmostEqual(inter.values["smsp__issue_active.avg.pct_of_peak_sustained_active"], want)
        # The reference's shared loads barely conflict (88,652 in 8.4 M
        # loads): no reading; a bank-conflicting stride's would fire.
        self.assertLess(inter.values[PER_LOAD], 0.1)
        self.assertNotIn("sequential addressing", said(cfg, inter))
        conflicting = profile.Kernel("x", 1, dict(inter.values, **{PER_LOAD: 8.0}), [])
        self.assertIn("sequential addressing", said(cfg, conflicting))
        text = profile.table(cfg, k, k)
        self.assertIn("3 launches, weighted by time", text)
        self.assertIn("top stalls", text)

    def values(self, lab, csv, kernel):
        cfg = lab_profile(lab)
        k = profile.parse(fixture(csv), cfg)[kernel]
        return cfg, k, {m["label"]: k.values[profile.key(m)] for m in cfg["metrics"]}

    def test_references_fire_no_reading_on_themselves(self):
        # Session 18's false "not coalesced" on the solutions' 16-byte loads
        # (labs 05 and 13) would fire here.
        for lab, csv in (("05-matmul", "matmul05.csv"), ("06-reduction", "reduce.csv"),
                         ("08-occupancy-model", "occupancy08.csv"), ("13-mri-fhd", "fhd13.csv")):
            cfg = lab_profile(lab)
            for name, k in profile.parse(fixture(csv), cfg).items():
                with self.subTest(lab=lab, kernel=name):
                    if lab != "06-reduction" or "grid_stride" in name:  # 06's early stages are meant to fire
                        self.assertEqual(profile.readings(cfg, k, k), [])

    def test_matmul_final(self):
        cfg, k, v = self.values("05-matmul", "matmul05.csv", "final_kernel<float, 8, 2, 1, 1>")
        self.assertEqual(k.launches, 2)
        self.assertEqual((v["sectors per global load"], v["registers per thread"]), (16.0, 124.0))
        self.assertEqual((v["blocks/SM allowed by registers"], v["blocks/SM allowed by shared mem"]), (2.0, 5.0))
        self.assertEqual([s for s, _ in k.stalls], ["not_selected", "dispatch_stall"])
        # A submission whose loads need twice the reference's sectors is told so.
        slow = profile.Kernel(k.name, 2, dict(k.values, **{LD: 32.0}), k.stalls)
        self.assertIn("loads of A or B are not coalesced", said(cfg, slow, k))
        # Task 4's A slice stored transposed without its padding: 0.806
        # conflicts a store on an H200 (session 24), against 0.0069 here.
        self.assertLess(v["bank conflicts per shared store"], 0.01)
        stores = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum/smsp__inst_executed_op_shared_st.sum"
        unpadded = dict(k.values, **{stores: 0.806})
        self.assertIn("pad the rows of the A slice you store transposed",
                      said(cfg, profile.Kernel(k.name, 2, unpadded, k.stalls), k))

    def test_occupancy_limiters(self):
        cfg, k, v = self.values("08-occupancy-model", "occupancy08.csv", "matmul_kernel<1>")
        self.assertEqual((v["registers per thread"], v["blocks/SM allowed by registers"],
                          v["blocks/SM allowed by shared mem"], v["blocks/SM allowed by warps"]), (32.0, 8.0, 21.0, 8.0))
        self.assertGreater(v["achieved occupancy (%)"], 97)
        self.assertEqual(list(profile.parse(fixture("occupancy08.csv"), cfg)), ["matmul_kernel<0>", "matmul_kernel<1>"])

    def test_fhd_tiles(self):
        cfg, k, v = self.values("13-mri-fhd", "fhd13.csv", "tiles_kernel")
        self.assertEqual((k.launches, v["registers per thread"], v["sectors per global load"]), (1, 40.0, 19.42))
        self.assertAlmostEqual(v["issue slots busy (%)"], 80.17)
        # 2048 warps x 16,384 samples x 1.5 loads (a 16-byte one, and a
        # 4-byte one the compiler pairs). One voxel a thread, not four, makes
        # 4x the warps for the same pairs (graded on an H200: 0.91 of the
        # reference's speed, and no other reading fired): this one does.
        self.assertEqual(v["shared loads (warp instructions)"], 2048 * 16384 * 1.5)
        loads = "smsp__inst_executed_op_shared_ld.sum"
        one_voxel = profile.Kernel(k.name, 1, dict(k.values, **{loads: 4 * k.values[loads]}), k.stalls)
        self.assertIn("one load of a sample should serve several voxels", said(cfg, one_voxel, k))
        self.assertNotIn("shared loads", said(cfg, k, k))

    def test_a_kernel_with_other_template_arguments_sits_beside_the_reference(self):
        # A student who changed final_kernel's template arguments (H200, a
        # grade of 05 whose warps were laid out 16x16) still gets one table.
        cfg = lab_profile("05-matmul")
        ref = profile.parse(fixture("matmul05.csv"), cfg)
        (name, k), = ref.items()
        mine = "final_kernel<float, 8, 2, 0, 1>"
        text = profile.table(cfg, {mine: profile.Kernel(mine, 2, k.values, k.stalls)}, ref)
        self.assertEqual(text.count("\nkernel ") + text.startswith("kernel "), 1, text)
        self.assertIn("kernel %s (yours: 2 launches, weighted by time; reference: 2 launches, weighted by time, "
                      "as %s)" % (mine, name), text)
        self.assertNotIn(" - ", text.replace("top stalls", ""))
        # Two of one base name on either side: no guess, each alone.
        two = {"k<1>": k, "k<2>": k}
        self.assertEqual(profile.pairs(two, {"k<3>": k}), [("k<1>", "k<1>", None), ("k<2>", "k<2>", None),
                                                            ("k<3>", None, "k<3>")])
        self.assertEqual(profile.pairs({"k<1>": k, "j": k}, {"j": k, "k<3>": k}),
                         [("k<1>", "k<1>", "k<3>"), ("j", "j", "j")])

    def test_every_recording_parses_for_every_lab(self):
        for lab in profiled_labs():
            cfg = lab_profile(lab)
            for f in sorted(os.path.basename(p) for p in glob.glob(os.path.join(NCU, "*.csv"))):
                with self.subTest(lab=lab, csv=f):
                    try:
                        k = profile.parse(fixture(f), dict(cfg, kernels="."))
                    except profile.ProfileError as e:
                        self.fail(str(e))
                    self.assertTrue(profile.table(cfg, k))

    def test_launches_without_a_time_weigh_alike(self):
        cfg = {"kernels": "k", "args": [], "metrics": [{"metric": "m.sum", "label": "m"}]}
        rows = "\n".join('"%d","void ns::k<float>(int)","%s"' % (i, v) for i, v in enumerate(["1", "1,000", "5"]))
        k = profile.parse('"ID","Kernel Name","m.sum"\n"","",""\n' + rows, cfg)
        self.assertEqual((k["k<float>"].launches, k["k<float>"].values["m.sum"]), (3, 1006 / 3))


class HostileProfiles(unittest.TestCase):
    """Any CSV gives a table or the one clear outcome, never a crash."""
    CFG = {"kernels": "k", "args": [], "stalls": True,
           "metrics": [{"metric": "a.sum", "label": "a", "readings": [{"above": 4, "say": "big"}]},
                       {"metric": "b.ratio", "label": "b", "per": "a.sum"}]}
    HEAD = '"ID","Kernel Name","a.sum","b.ratio"\n"","","inst",""\n'

    def unreadable(self, text):
        with self.assertRaises(profile.ProfileError) as e:
            profile.parse(text, self.CFG)
        self.assertTrue(str(e.exception).startswith(profile.COULD_NOT_READ), str(e.exception))
        self.assertNotIn("\n", str(e.exception))

    def test_unreadable(self):
        for text in ("", "   \n", "==PROF== Connected\nsome driver output\n", self.HEAD, '"ID","Kernel Name"\n',
                     '"ID","a.sum"\n"0","1"\n', self.HEAD + '"0","k(int)","5"\n', self.HEAD + '"0","k(int)","5","1",\n',
                     '"ID","Kernel Name","a.sum"\n"0","k(int)","1\n', self.HEAD + '"0","other(int)","5","1"\n',
                     "\x00\x01binary\n", '"ID",' + ",".join('"c%d"' % i for i in range(200000)) + "\n"):
            with self.subTest(text=text[:60]):
                self.unreadable(text)

    def test_odd_values_read_as_unknown(self):
        rows = ['"0","k(int)","n/a","NaN"', '"1","k(int)","inf",""', '"2","x::k(int)","1e308","abc"']
        k = profile.parse(self.HEAD + "\n".join(rows) + "\n", self.CFG)["k"]
        self.assertEqual((k.launches, k.values["a.sum"], k.values["b.ratio/a.sum"]), (3, 1e308, None))
        self.assertIn("big", said(self.CFG, k))
        text = profile.table(self.CFG, {"k": k})
        self.assertIn("n/a", text)

    def test_missing_metric_reads_as_unknown(self):
        k = profile.parse('"ID","Kernel Name","a.sum"\n"0","k()","2"\n', self.CFG)["k"]
        self.assertIsNone(k.values["b.ratio/a.sum"])
        self.assertEqual(profile.readings(self.CFG, k), [])

    def test_ncu_reasons(self):
        for output, want in (("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission", "not permitted"),
                             (fixture("nobody.txt"), "Permission denied"),
                             ("", profile.COULD_NOT_READ)):
            with self.subTest(want=want):
                with self.assertRaises(profile.ProfileError) as e:
                    profile.read_run(output, self.CFG, "exited with code 1")
                self.assertIn(want, str(e.exception))

    def test_a_forged_header_before_ncus_is_ignored(self):
        forged = '"ID","Kernel Name","a.sum","b.ratio"\n"0","k()","1","1"\n'
        k = profile.parse(forged + "==PROF== Disconnected\n" + self.HEAD + '"0","k()","9","1"\n', self.CFG)
        self.assertEqual(k["k"].values["a.sum"], 9.0)


class Declarations(unittest.TestCase):
    """What every lab.json profile block names exists."""

    def test_metrics_are_known_to_ncu(self):
        with open(os.path.join(NCU, "metric-names.txt"), encoding="utf-8") as f:
            known = {l.strip() for l in f if l.strip() and not l.startswith("#")}
        labs = profiled_labs()
        self.assertTrue({"05-matmul", "06-reduction", "07-coalescing", "08-occupancy-model", "13-mri-fhd"}
                        <= set(labs), labs)
        for lab in labs:
            for name in profile.metric_names(lab_profile(lab)):
                with self.subTest(lab=lab, metric=name):
                    self.assertIn(name.split(".")[0], known)

    @unittest.skipUnless(os.path.isdir(os.path.join(ROOT, manifest.SECRET_DIR)), "no solutions/ (a student release)")
    def test_filters_match_a_kernel_of_the_solution(self):
        for lab in profiled_labs():
            cfg = lab_profile(lab)
            paths = manifest.lab_paths(ROOT, lab)
            names = set()
            for path in glob.glob(os.path.join(paths.solution_dir, "*.cu")) + glob.glob(
                    os.path.join(ROOT, "labs", lab, "*.cu")):
                with open(path, encoding="utf-8") as f:
                    names |= set(re.findall(GLOBAL_FUNCTION, f.read()))
            with self.subTest(lab=lab):
                self.assertTrue([n for n in names if re.search(cfg["kernels"], n)],
                                "%s matches none of %s" % (cfg["kernels"], sorted(names)))

    def test_bad_declarations_are_refused(self):
        good = {"kernels": "k", "args": ["--reps", "1"], "metrics": [{"metric": "a.sum", "label": "a"}]}
        manifest.check_profile(good, "x", True)
        for bad in (dict(good, kernels="("), dict(good, metrics=[]), dict(good, extra=1),
                    dict(good, metrics=[{"metric": "a; rm -rf /", "label": "a"}]),
                    dict(good, metrics=[{"metric": "a", "label": "a", "readings": [{"above": 1}]}]),
                    dict(good, metrics=[{"metric": "a", "label": "a", "readings": [{"above": 1, "below": 2,
                                                                                    "say": "x"}]}]),
                    dict(good, metrics=[{"metric": "a", "label": "a", "readings": [{"above": "__import__('os')",
                                                                                    "say": "x"}]}]),
                    dict(good, launches=0)):
            with self.subTest(bad=bad):
                with self.assertRaises(manifest.ManifestError):
                    manifest.check_profile(bad, "x", True)
        with self.assertRaises(manifest.ManifestError):
            manifest.check_profile(good, "x", False)


class GradeStep(unittest.TestCase):
    """Where the profile cannot run, one line and no item."""

    def grade(self, gpu, drivers, profile_opt=True, perf=True, lab="07-coalescing"):
        class G:
            pass
        g = G()
        g.manifest = manifest.check_grading_fields(manifest.load(ROOT, lab))
        g.opts = pipeline.Options(profile=profile_opt, perf=perf)
        g.gpu, g.drivers, g.perf_item, g.items, g.out, g.extra = gpu, drivers, None, [], [], {}
        pipeline.profile_step(g)
        # What the grade says of its profile is also shown whole under the report's table.
        self.assertEqual(g.extra.get("profile"), g.out[0] if g.out else None)
        return g

    def test_lines(self):
        g = self.grade(False, None)
        self.assertEqual((g.items, len(g.out)), ([], 1))
        self.assertIn("no GPU", g.out[0])
        with unittest.mock.patch.object(host, "find_tool", lambda name: None):
            g = self.grade(True, None)
        self.assertIn("(ncu) is not installed", g.out[0])
        ncu = unittest.mock.patch.object(host, "find_tool", lambda name: "/usr/local/cuda/bin/ncu")
        with ncu:
            g = self.grade(True, None)
        self.assertIn("not built", g.out[0])
        for opt, perf in ((False, True), (True, False)):
            g = self.grade(True, None, opt, perf)
            self.assertEqual((g.items, g.out), ([], []))
        # Lab 08 times nothing, so the profile builds both drivers itself.
        built = []
        with ncu, unittest.mock.patch.object(pipeline, "build_drivers", lambda g: built.append(g) or "error: x"):
            g = self.grade(True, None, lab="08-occupancy-model")
        self.assertEqual((len(built), g.items), (1, []))
        self.assertEqual(g.out, ["profile (hardware counters, not scored): not run: your driver does not build"])
        self.assertIn(score.PROFILE, score.KINDS)

    def fake_grade(self, outputs):
        """A grade whose sandbox answers each ncu run with the next of OUTPUTS."""
        test = self

        class Sandbox:
            def __init__(self):
                self.argvs = []

            def execute(self, argv, limits, ro=(), rw=(), cwd="/", env=None, cap=0, profile="default", role=None):
                self.argvs.append((argv, role, profile))
                test.assertIn(cwd, rw)
                out = outputs[len(self.argvs) - 1]
                return sb_mod.Outcome(exit_code=0, signal=None, timed_out=out is None, monitor_lost=False,
                                      output=out or "", limit_s=limits.wall_s)

            def end(self, role):
                return 0

        class G:
            held_alone = pipeline.Grade.held_alone
            driver_memory_bytes = pipeline.Grade.driver_memory_bytes

            def scratch_run_dir(self, role):
                return tempfile.mkdtemp(dir=tmp)

            def step(self, text):
                pass

        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        g = G()
        g.manifest = {"profile": lab_profile("07-coalescing"), "benchmark": {}}
        g.opts, g.deadline = pipeline.Options(profile=True), pipeline.Deadline(60)
        g.gpu, g.perf_item, g.items, g.out, g.extra, g.sandbox = True, None, [], [], {}, Sandbox()
        g.drivers = (("/w/sub", ["/w/build"], sb_mod.SUBMISSION), ("/r/ref", ["/r/build"], sb_mod.REFERENCE))
        g.lab, g.kind, g.devices = "07-coalescing", "submission", ["0"]
        leases = os.path.join(tmp, "leases")
        with unittest.mock.patch.object(host, "find_tool", lambda name: "/usr/local/cuda/bin/ncu"), \
                unittest.mock.patch.dict(os.environ, {"HPCGRADE_LEASES": leases}):
            pipeline.profile_step(g)
            # Both runs under one exclusive lease of the grade's GPU, as a
            # timed phase holds it (a throughput read beside other work lies).
            self.assertEqual([(r["resource"], r["mode"]) for r in lease.intervals()], [("gpu0", "exclusive")])
        return g

    def test_table_beside_the_reference(self):
        g = self.fake_grade([fixture("transpose.csv"), fixture("transpose.csv")])
        (sub_argv, sub_role, seccomp), (ref_argv, ref_role, _) = g.sandbox.argvs
        # ncu starts the driver as its child: the seccomp profile that allows it.
        self.assertEqual((sub_role, ref_role, seccomp), (sb_mod.SUBMISSION, sb_mod.REFERENCE, "default"))
        self.assertEqual(sub_argv[-9:], ["/w/sub"] + lab_profile("07-coalescing")["args"])
        self.assertIn("/r/ref", ref_argv)
        [item] = g.items
        self.assertEqual((item.kind, item.max_score, item.outcome), (score.PROFILE, 0.0, "passed"))
        self.assertIn("your stores are not coalesced", item.output)
        self.assertIn("reference", item.output)
        self.assertIn(item.output, g.out[-1])
        self.assertEqual(g.extra["profile"], g.out[-1])

    def test_counters_not_permitted_is_one_line(self):
        denied = "==PROF== Connected\n==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n"
        g = self.fake_grade([denied, denied])
        self.assertEqual(g.items, [])
        self.assertEqual(len(g.out), 1)
        self.assertIn("not permitted", g.out[0])

    def test_a_run_past_its_limit_ends_the_step(self):
        # (None: the sandbox reports the run timed out.) The reference's run
        # is not started: it would hold the GPU as long again.
        g = self.fake_grade([None, fixture("transpose.csv")])
        self.assertEqual(len(g.sandbox.argvs), 1)
        self.assertEqual(g.items, [])
        self.assertEqual(len(g.out), 1)
        self.assertIn("ncu did not finish within 60 s", g.out[0])

    def test_a_forged_or_broken_submission_keeps_the_reference(self):
        g = self.fake_grade(["garbage", fixture("transpose.csv")])
        [item] = g.items
        self.assertIn("yours: " + profile.COULD_NOT_READ, item.output)
        self.assertIn("transpose_padded_kernel", item.output)


class ProfileTool(unittest.TestCase):
    """tools/profile: one line and a non-zero status for what it cannot do."""

    def tool(self, *args):
        p = subprocess.run([os.path.join(ROOT, "tools", "profile")] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        return p.returncode, p.stderr.strip()

    def test_usage_errors(self):
        for args, want in ((["01"], "declares no profile"), (["99"], "unknown lab"), (["07", "--build"], "needs a"),
                           (["07", "--build", "/nonexistent"], "build the lab first")):
            with self.subTest(args=args):
                code, err = self.tool(*args)
                self.assertEqual(code, 2)
                self.assertIn(want, err)
                self.assertEqual(len(err.splitlines()), 1)

    @unittest.skipIf(host.find_tool("ncu"), "ncu is installed here")
    def test_without_ncu(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "labs"))
            open(os.path.join(tmp, "labs", "07-coalescing"), "w").close()
            code, err = self.tool("07", "--build", tmp)
        self.assertEqual((code, err), (1, "tools/profile: not run: Nsight Compute (ncu) is not installed (it comes "
                                          "with the CUDA toolkit)"))


def gpu_and_ncu():
    return host.gpu_available() and host.find_tool("ncu") and host.find_tool("nvcc") and shutil.which("meson")


@unittest.skipUnless(gpu_and_ncu(), "needs an NVIDIA GPU, nvcc, meson and Nsight Compute (ncu)")
class LiveTranspose(unittest.TestCase):
    """Lab 07's reference driver under ncu: the naive transpose's stores take
    more sectors than the padded one's; the tiled one conflicts more."""

    def test_naive_tiled_padded(self):
        cfg = lab_profile("07-coalescing")
        with tempfile.TemporaryDirectory() as tmp:
            b = os.path.join(tmp, "b")
            subprocess.run(["meson", "setup", b, "-Dlabs=07-coalescing"], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
            subprocess.run(["meson", "compile", "-C", b, "labs/07-coalescing-solution"], check=True,
                           stdout=subprocess.DEVNULL)
            env = dict(os.environ, HOME=tmp)  # ncu writes its settings under HOME
            o = subprocess.run(profile.ncu_argv(host.find_tool("ncu"), cfg,
                                                os.path.join(b, "labs", "07-coalescing-solution")),
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        if profile.PERMISSION_ERROR in o.stdout:
            self.skipTest("GPU counters are restricted to administrators on this host")
        k = profile.read_run(o.stdout, cfg, None)
        naive, tiled, padded = (k["transpose_%s_kernel" % x] for x in ("naive", "tiled", "padded"))
        self.assertGreater(naive.values[ST], padded.values[ST])
        self.assertGreater(tiled.values[PER_LOAD], padded.values[PER_LOAD])


if __name__ == "__main__":
    unittest.main()
