"""Tool-level tests: small C programs under the in-place atomgrind, with the
verdict and report content each must produce, for every atomicity engine."""
import os
import re
import tempfile
import unittest

from agtest import BUILD, compile_prog, supp_file, tool_built, valgrind, valgrind_rss, vg_in_place

ENGINES = ["atomsanitizer", "aerodrome", "velodrome"]


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s (run the README's setup)" % BUILD)


class Verdicts(unittest.TestCase):
    """Each program, each engine: how many violations, and where."""

    def check(self, prog, atomicity, *opts, args=(), misuse=0, contains=()):
        exe = compile_prog(prog)
        for eng in ENGINES:
            with self.subTest(engine=eng):
                r = valgrind(exe, "--engine=" + eng, *opts, args=args)
                self.assertEqual(r.atomicity, atomicity, r)
                self.assertEqual(r.misuse, misuse, r)
                self.assertEqual(r.errors, atomicity + misuse, r)
                for pat in contains:
                    self.assertRegex(r.text, pat, r)

    def test_plain_write_breaks_region(self):
        self.check("plain_write", 1, contains=[
            r"(?m)^Atomicity violation: write of size 4 at 0x[0-9a-f]+ by thread #2",
            r"(?s)at 0x[0-9A-F]+: withdraw \(plain_write.c:14\).*"
            r"The atomic region of thread #2 began at\n\s+at 0x[0-9A-F]+: withdraw \(plain_write.c:11\)",
            r"thread #3",
            # the other thread's access that broke in
            r"(?m)^This conflicts with an earlier write by thread #3\n\s+at 0x[0-9A-F]+: deposit \(plain_write.c:23\)$",
            r'inside data symbol "balance"'])

    def test_first_region_after_translation(self):
        # accesses are not instrumented until the first region opens
        # (the quiescent floor); code translated before must be redone
        self.check("late_region", 1, contains=[r"bump \(late_region.c:14\)"])

    def test_locked_check_then_act(self):
        # the lock itself closes the cycle: re-acquiring it after the other
        # buyer's critical section
        self.check("locked_check_act", 1, contains=[
            r"(?m)^Atomicity violation: lock 0x[0-9a-f]+ acquired by thread #2 breaks its atomic region "
            r"\(interleaved by thread #3\)\n(.*ag_pthread_mutex_lock.*\n)?.*pthread_mutex_lock@.*\n.*buyer \(locked_check_act.c:19\)"])

    def test_locked_check_then_act_fixed(self):
        self.check("locked_check_act", 0, args=["fixed"])

    def test_many_locked_regions(self):
        self.check("many_locked", 0)

    def test_malloc_in_regions(self):
        self.check("malloc_regions", 0)

    def test_adjacent_fields(self):
        self.check("adjacent_fields", 0)

    def test_rwlock_readers(self):
        self.check("rwlock_readers", 0)

    def test_condvar_wait_in_region(self):
        self.check("condvar_region", 1, contains=[r"consumer \(condvar_region.c", r"thread #3"])

    def test_nested_regions(self):
        # the region reported is the outermost one (nested.c:19)
        self.check("nested", 1, contains=[
            r"(?s)The atomic region of thread #2 began at\n\s+at 0x[0-9A-F]+: outer \(nested.c:19\)"])

    def test_misuse(self):
        self.check("misuse", 0, misuse=3, contains=[
            r"ATOMGRIND_ATOMIC_END without a matching ATOMGRIND_ATOMIC_BEGIN in thread #1",
            r"Thread #2 exited inside an atomic region",
            r"Thread #1 unlocked lock 0x[0-9a-f]+, which it does not hold"])

    def test_many_threads(self):
        self.check("many_threads", 0)

    def test_stack_var_skipped_by_default(self):
        self.check("stack_var", 0)

    def test_stack_var_checked_on_request(self):
        self.check("stack_var", 1, "--check-stack-var=yes")

    def test_static_program_refused_clearly(self):
        # no preload in a static program: pthread and malloc are invisible,
        # so atomgrind says so and checks nothing (plain_write has a violation)
        exe = compile_prog("plain_write", ["-static"], suffix="-static")
        r = valgrind(exe)
        self.assertRegex(r.text, r"WARNING: the program does not use atomgrind's pthread wrappers")
        self.assertEqual(r.errors, 0, r)
        self.assertIn("balance", r.stdout)

    def test_thousands_of_threads_memory(self):
        # 4000 threads over the run, 8 at a time: engine state must follow
        # the threads alive at once, not all threads ever (atomsanitizer's
        # From/To tables once took 357 MiB here, the race detector's
        # clocks of joined threads 140 MiB)
        exe = compile_prog("many_threads")
        # measured: 47, 38, 40 MiB; aerodrome's clocks still grow with every
        # thread (119 MiB)
        limits = {"--engine=atomsanitizer": 90, "--engine=velodrome": 90,
                  "--check=races": 90, "--engine=aerodrome": 240}
        for opt, limit in limits.items():
            with self.subTest(opt=opt):
                r, rss_mib = valgrind_rss(exe, opt, args=["4000"])
                self.assertEqual(r.errors, 0, r)
                self.assertEqual(r.rc, 0, r)
                self.assertLess(rss_mib, limit, "peak RSS %.0f MiB" % rss_mib)

    def test_rss_run_dies_with_its_timeout(self):
        # valgrind_rss's timeout kills rss_of; the run under it went on
        # (a Valgrind run left behind, eating a CPU of the suite)
        import subprocess, time
        with tempfile.TemporaryDirectory() as d:
            pidf = os.path.join(d, "pid")
            p = subprocess.Popen([compile_prog("rss_of"), os.path.join(d, "rss"), "sh", "-c",
                                  'echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 120' % (pidf, pidf, pidf)])
            try:
                for _ in range(600):
                    if os.path.exists(pidf) or p.poll() is not None:
                        break
                    time.sleep(0.05)
                with open(pidf) as f:
                    pid = int(f.read())
            finally:
                p.kill()
                p.wait()

            def alive():
                try:
                    with open("/proc/%d/stat" % pid) as f:
                        return f.read().rsplit(")", 1)[1].split()[0] != "Z"
                except FileNotFoundError:
                    return False
            for _ in range(200):
                if not alive():
                    break
                time.sleep(0.05)
            self.assertFalse(alive(), "the run under rss_of outlived it")

    def test_heap_options(self):
        # --help lists the heap options of tools that replace malloc; they
        # were refused as unknown.  --alignment aligns every block,
        # --trace-malloc traces the calls, --xtree-memory profiles the heap
        # (heap_align frees 24 blocks of 600 bytes; libc's stdout buffer
        # stays, so only the frees' totals are exact).
        exe = compile_prog("heap_align")
        r = valgrind(exe, "--alignment=64")
        self.assertEqual(r.stdout.strip(), "aligned 64", r)
        self.assertEqual(valgrind(exe).stdout.strip(), "not aligned 64")
        self.assertRegex(valgrind(exe, "--trace-malloc=yes").log, r"malloc\(\d+\) = 0x")
        with tempfile.TemporaryDirectory() as d:
            for mode in ("full", "allocs"):
                xt = os.path.join(d, mode + ".kcg")
                valgrind(exe, "--xtree-memory=" + mode, "--xtree-memory-file=" + xt)
                with open(xt) as f:
                    text = f.read()
                events = re.search(r"^events: (.*)$", text, re.M).group(1).split()
                totals = dict(zip(events, map(int, re.search(r"^totals: (.*)$", text, re.M)
                                              .group(1).split())))
                with self.subTest(mode=mode):
                    self.assertRegex(text, r"(?m)^fn=\(\d+\) main$")
                    if mode == "full":
                        self.assertEqual((totals["totFdB"], totals["totFdBk"]), (600, 24), text)
                        self.assertEqual(totals["totBk"] - totals["curBk"], 24, text)
                    self.assertGreaterEqual(totals["curBk"], 25, text)

    def test_invalid_frees(self):
        # a free of something that is not a live block is reported (as
        # Memcheck does) and not made; Valgrind's allocator crashed on it
        # (SCTBench's work-stealing queues, once their bug struck)
        exe = compile_prog("bad_free")
        for opts in ([], ["--check=races"], ["--xtree-memory=full",
                                              "--xtree-memory-file=/dev/null"]):
            with self.subTest(opts=opts):
                r = valgrind(exe, *opts)
                self.assertEqual(r.stdout.split(), ["realloc", "refused", "usable", "0", "done"], r)
                frees = re.findall(r"Invalid free\(\): 0x[0-9A-F]+ is not a live heap block", r.log)
                self.assertEqual(len(frees), 4, r)
                self.assertIn("Invalid realloc(): 0x", r.log)
                self.assertIn("(bad_free.c:", r.log)
                self.assertEqual(r.errors, 5, r)
        r = valgrind(exe, args=["clean"])
        self.assertEqual((r.stdout.split(), r.errors), (["usable", "1", "done"], 0), r)

    def test_lock_memory_reused(self):
        # a new mutex in a freed mutex's memory is a new lock: no ordering
        # from the old one's release (pthread_mutex_init, or a plain
        # PTHREAD_MUTEX_INITIALIZER store after the free)
        exe = compile_prog("lock_reuse")
        for how in ([], ["static"]):
            for eng in ENGINES:
                with self.subTest(engine=eng, how=how):
                    r = valgrind(exe, "--engine=" + eng, args=how)
                    first = re.search(r"first (0x[0-9a-f]+)", r.stdout).group(1)
                    self.assertIn("second " + first, r.stdout, "the block was not reused: the "
                                  "test would not decide\n" + r.stdout)
                    self.assertEqual((r.atomicity, r.errors), (0, 0), r)

    def test_quiescent_accesses_not_analysed(self):
        # the same report with and without analysing the accesses made while
        # no region is open; only far fewer events reach the engine
        exe = compile_prog("quiescent")
        for eng in ENGINES:
            with self.subTest(engine=eng):
                runs = [valgrind(exe, "--engine=" + eng, "--stats=yes", "--skip-quiescent=" + o)
                        for o in ("yes", "no")]
                reports, analysed = [], []
                for r in runs:
                    self.assertEqual((r.atomicity, r.errors), (1, 1), r)
                    m = re.search(r"(?s)^Atomicity violation.*?\n\n", r.text, re.M)
                    reports.append(re.sub(r"0x[0-9A-Fa-f]+", "ADDR", m.group(0)))
                    analysed.append(int(re.search(r"(\d+) analysed", r.text).group(1)))
                self.assertEqual(reports[0], reports[1])
                self.assertIn("quiescent.c:26", reports[0])
                self.assertLess(analysed[0], 1000, runs[0])
                self.assertGreater(analysed[1], 2 * 40 * 1024, runs[1])

    def test_scheduler_exposes_locked_check_then_act(self):
        # no sleeps: the interleaving comes from the scheduler (a switch
        # after an unlock inside a region); under Valgrind's own order the
        # regions do not overlap
        r = valgrind(compile_prog("lock_loop"), "--sched-seed=1")
        self.assertGreaterEqual(r.atomicity, 1, r)

    def test_every_sync_primitive_clean(self):
        # every wrapped primitive, with --check=all: only the program's one
        # deliberate misuse (a second unlock of an error-checking mutex)
        self.check("sync_zoo", 0, "--check=all", misuse=1)

    def test_increasing_cycles(self):
        # the plain write interleaves one region: an increasing cycle, blamed
        # on that region
        r = valgrind(compile_prog("plain_write"), "--cycles=increasing")
        self.assertEqual(r.atomicity, 1, r)
        self.assertIn("The atomic region of thread #2 began at", r.text)

    def test_increasing_needs_atomsanitizer(self):
        p = vg_in_place("--tool=atomgrind", "--cycles=increasing", "--engine=aerodrome",
                        compile_prog("plain_write"))
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("only the atomsanitizer engine checks increasing cycles", p.stdout)

    def test_odd_process(self):
        self.check("odd_process", 0)


class ErrorManager(unittest.TestCase):
    """Reports behave like every Valgrind tool's."""

    def test_error_exitcode(self):
        r = valgrind(compile_prog("plain_write"), "--error-exitcode=42")
        self.assertEqual(r.rc, 42, r)
        r = valgrind(compile_prog("adjacent_fields"), "--error-exitcode=42")
        self.assertEqual(r.rc, 0, r)

    def test_gen_suppressions_and_suppress(self):
        exe = compile_prog("plain_write")
        r = valgrind(exe, "--gen-suppressions=all")
        m = re.search(r"(?s)\{\n.*?\n\}", r.text)
        self.assertTrue(m, r)
        supp = m.group(0)
        self.assertIn("Atomgrind:Atomicity", supp)
        self.assertIn("fun:withdraw", supp)
        with supp_file(supp.replace("<insert_a_suppression_name_here>", "plain_write") + "\n") as f:
            r = valgrind(exe, "--suppressions=" + f)
        self.assertEqual(r.errors, 0, r)
        self.assertEqual(r.suppressed, 1, r)

    def test_handwritten_suppression(self):
        exe = compile_prog("misuse")
        with supp_file("{\n   misuse-in-main\n   Atomgrind:Misuse\n   ...\n   fun:main\n}\n") as f:
            r = valgrind(exe, "--suppressions=" + f)
        # the open-region exit happens in the child thread, not under main
        self.assertEqual(r.errors, 1, r)
        self.assertEqual(r.suppressed, 2, r)

    def test_xml(self):
        exe = compile_prog("plain_write")
        with tempfile.NamedTemporaryFile("r", suffix=".xml") as xf:
            valgrind(exe, "--xml=yes", "--xml-file=" + xf.name)
            xml = xf.read()
        import xml.etree.ElementTree as ET
        root = ET.fromstring(xml)
        kinds = [e.text for e in root.iter("kind")]
        self.assertEqual(kinds, ["Atomicity"], xml)
        self.assertIn("withdraw", xml)

    def test_help_lists_options(self):
        out = vg_in_place("--tool=atomgrind", "--help").stdout
        for opt in ["--engine=", "--check-stack-var=", "--check=", "atomsanitizer", "aerodrome", "velodrome"]:
            self.assertIn(opt, out)

    def test_bad_engine_is_refused(self):
        exe = compile_prog("plain_write")
        p = vg_in_place("--tool=atomgrind", "--engine=nope", exe)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("unknown atomicity engine 'nope'", p.stdout)


if __name__ == "__main__":
    unittest.main()
