"""atomgrind's scheduler (--sched=, atomgrind/sched/ag_sched.c): with the default
options the corpus's bugs are reported and its correct programs are not,
a seed repeats its run, nothing hangs, and atomgrind-explore finds and
groups reports over seeds.

Detection is asserted with fixed seeds (perf/detect.py measures the rates
over 20 seeds: every bug here was found in 20 of 20 default runs when the
assertion was written, so a fixed seed that fails means a regression, not
bad luck)."""
import filecmp
import os
import re
import subprocess
import sys
import unittest

from agtest import BUILD, OUT, REPO, build_corpus, compile_prog, parallel, tool_built, valgrind, vg_in_place

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs"))
import corpus  # noqa: E402


# Bugs the default finds in fewer than 19 of 20 runs (perf/results/sched.txt):
# not asserted per seed.  unlocked_reset's window is one append in 32 that
# must meet the flusher's poll; config_reload's interferer runs 3 times.
RARE = {"unlocked_reset": "8/20", "config_reload": "3/20"}


def corpus_exe(name):
    """The corpus program of that name, built."""
    return build_corpus(next(p for p in corpus.PROGRAMS if p.name == name))


@unittest.skipUnless(tool_built(), "atomgrind not built")
class Corpus(unittest.TestCase):
    def test_bugs_reported_by_default(self):
        # the default run, no option but the seed; another seed only if the
        # first misses (measured rates are 20/20: see the module comment)
        bugs = [p for p in corpus.PROGRAMS if p.verdict == "bug" and p.name not in RARE]

        def run(p):
            exe = build_corpus(p)
            # pipeline_snapshot needs three threads in one order: 34 of
            # seeds 1-40 (31 before race postponement changed), 1 and 2 missing
            for seed in (1, 2, 3):
                r = valgrind(exe, "--sched-seed=%d" % seed)
                if r.atomicity > 0:
                    return p.name, r
            return p.name, r
        missed = [(name, r) for name, r in parallel(run, bugs) if r.atomicity == 0]
        self.assertEqual([m[0] for m in missed], [], missed[:1])

    def test_ok_programs_clean(self):
        # correct programs: no report (test_corpus runs them with a seed from
        # the clock, perf/detect.py with 5 more)
        oks = [p for p in corpus.PROGRAMS if p.verdict == "ok"]
        jobs = [(p, 10 + i) for i, p in enumerate(oks)]

        def run(job):
            p, seed = job
            return p.name, seed, valgrind(build_corpus(p), "--sched-seed=%d" % seed)
        bad = [(n, s, r) for n, s, r in parallel(run, jobs) if r.errors != 0 or r.rc != 0]
        self.assertEqual([(n, s) for n, s, _ in bad], [], bad[:1])

    def test_native_scheduling_misses_what_the_default_finds(self):
        # lazy initialisation without locks: under Valgrind's own order the
        # regions never overlap (a vacuous check, and it says so)
        exe = corpus_exe("lazy_init")
        native = valgrind(exe, "--sched=native")
        self.assertEqual(native.errors, 0, native)
        self.assertIn("this check was vacuous", native.text)
        self.assertIn("Scheduler: native", native.text)
        default = valgrind(exe, "--sched-seed=1")
        if default.atomicity == 0:
            default = valgrind(exe, "--sched-seed=2")
        self.assertGreater(default.atomicity, 0, default)
        self.assertNotIn("vacuous", default.text)
        m = re.search(r"Checked: (\d+) region\(s\), (\d+) overlapped", default.text)
        self.assertTrue(m and int(m.group(2)) > 0, default)


@unittest.skipUnless(tool_built(), "atomgrind not built")
class Seeds(unittest.TestCase):
    def record(self, exe, seed, path):
        # timing decides only when a bound runs out (a takeover, or a woken
        # thread late to come back: --sched-timeout): bounds long enough
        # for a loaded machine (2000 was seen to run out with two other
        # Valgrind runs on the two cores)
        return valgrind(exe, "--sched-seed=%d" % seed, "--sched-timeout=10000",
                        "--record-trace=" + path, "--trace-reports=yes")

    @staticmethod
    def events(path):
        # the recorded trace as text, one event a line
        std = path + ".std"
        subprocess.run([os.path.join(BUILD, "atomgrind-trace"), "--engine=none",
                        "--convert=" + std, "--convert-format=std", path],
                       check=True, stdout=subprocess.DEVNULL)
        with open(std) as f:
            return f.read().splitlines()

    def pairs_differing(self, cases, first=None):
        """Record each (label, exe, seed) twice, in parallel: the labels
        whose two trace files differ.  first(path), if given, sees the
        first run's trace.  The files, not the events: 24 runs of 400,000
        events as Python strings would be most of a GiB, which the tests
        run after these inherit in each fork (test_tool's peak RSS)."""
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            def run(k):
                _, exe, seed = cases[k // 2]
                path = os.path.join(d, "r%d" % k)
                r = self.record(exe, seed, path)
                self.assertEqual(r.rc, 0, r.text)
                return path
            paths = parallel(run, range(2 * len(cases)))
            if first:
                first(paths[0])
            return [c[0] for k, c in enumerate(cases)
                    if not filecmp.cmp(paths[2 * k], paths[2 * k + 1], shallow=False)]

    def test_same_seed_same_trace_and_reports(self):
        # lock-free regions (lazy_init) and a read-modify-write split over
        # two lock holds (rmw_split: contended mutex, futex waits, joins):
        # the same seed gives the same recorded events and the same reports
        # at the same event index, to the end.  rmw_split's joiner comes
        # back when the kernel ends the thread it joins; the thread handed
        # the turn at that exit lets it come back before running on (the
        # exit's settle, ag_sched.c), or its accesses draw stops depending
        # on when the joiner is back.
        import tempfile
        for name, seed in (("lazy_init", 1), ("rmw_split", 3), ("config_reload", 1)):
            exe = corpus_exe(name)
            with tempfile.TemporaryDirectory() as d:
                paths = [os.path.join(d, "t%d" % i) for i in range(2)]
                runs = [self.record(exe, seed, p) for p in paths]
                traces = [self.events(p) for p in paths]
            reports = [re.findall(r"report: .*", r.text) for r in runs]
            with self.subTest(prog=name):
                self.assertTrue(reports[0], runs[0])
                self.assertTrue(any("|join(" in e for e in traces[0]))
                self.assertEqual(reports[0], reports[1])
                self.assertTrue(traces[0] == traces[1], "%s: traces differ" % name)
                self.assertIn("repeat with --sched-seed=%d" % seed, runs[0].text)

    def test_learned_race_sites_repeat(self):
        # a run that started from race sites learned before (--sched-races=auto,
        # the default without --sched-seed) names a snapshot of them in its
        # exit line; that line repeats it exactly -- postponements and all --
        # even after the command's record is gone
        import glob
        import tempfile
        os.makedirs(os.path.join(OUT, "bugs"), exist_ok=True)
        exe = compile_prog("bugs/reorder_once")
        with tempfile.TemporaryDirectory() as tmp:
            env = {"TMPDIR": tmp}
            valgrind(exe, "--sched-seed=1000", "--sched-races=auto", env=env)   # learns
            paths = [os.path.join(tmp, "t%d" % i) for i in range(2)]
            first = valgrind(exe, "-v", "--sched-seed=5", "--sched-races=auto", "--sched-timeout=10000",
                             "--record-trace=" + paths[0], env=env)
            m = re.search(r"repeat with (--sched-seed=5 --sched-races=(\S+))\)", first.text)
            self.assertTrue(m, first.text)
            for f in glob.glob(os.path.join(tmp, "atomgrind-races-*")):
                if f != m.group(2):
                    os.unlink(f)
            again = valgrind(exe, "-v", *m.group(1).split(), "--sched-timeout=10000",
                             "--record-trace=" + paths[1], env=env)
            post = [re.search(r"(\d+) postponement\(s\)", r.text).group(1) for r in (first, again)]
            self.assertEqual(post[0], post[1])
            self.assertGreater(int(post[0]), 0)
            self.assertEqual(self.events(paths[0]), self.events(paths[1]))
            # a given seed alone starts from none: it repeats by itself
            alone = valgrind(exe, "--sched-seed=5", env=env)
            self.assertIn("(repeat with --sched-seed=5)", alone.text)

    def test_exit_hands_over_by_the_seed(self):
        # exit_handover: a thread exits while main joins it and another is
        # in a long region; the exit wakes main in the kernel.  Each of 12
        # seeds, run twice, records the same trace.  Without the exit's
        # settle, where main comes back in the region's accesses was a race
        # for the big lock: 6 of 24 pairs differed (0 of 24 with it), so
        # this passes without it in about 3% of runs.
        exe = compile_prog("exit_handover")
        differ = self.pairs_differing(
            [(seed, exe, seed) for seed in range(1, 13)],
            first=lambda path: self.assertTrue(any("|join(" in e for e in self.events(path))))
        self.assertEqual(differ, [], "seeds whose two runs differ")

    def test_waiters_queue_by_the_seed(self):
        # prodcons and condvar_queue: two consumers wait on one condition
        # variable, threads queue on one contended mutex.  A thread that
        # passed the turn before its futex wait reaches the kernel before
        # the next holder runs, and a wake right before a wait lets the
        # woken thread back first: which waiter a wake wakes follows the
        # seed.  Before, every one of 4 seeds' two runs differed in both.
        # check_act: a barrier wakes all three clerks, and the holder lets
        # every one back (not one) before going on; both seeds' pairs
        # differed before that.  shared_mutex: a writer's unlock of the
        # std::shared_mutex wakes one futex word, then another: the holder
        # lets back the threads of both, not of the last wake only (every
        # one of 4 seeds' pairs differed before).
        differ = self.pairs_differing(
            [((name, seed), corpus_exe(name), seed)
             for name in ("prodcons", "condvar_queue", "check_act", "shared_mutex")
             for seed in (1, 2, 3)])
        self.assertEqual(differ, [], "programs and seeds whose two runs differ")

    def assert_short_waits(self, r):
        """The run's waits for woken threads (-v) averaged under 50 ms: a
        woken thread is back in a few ms even on a loaded machine."""
        m = re.search(r"(\d+) wait\(s\) for woken threads \((\d+) ms\)", r.text)
        self.assertTrue(m, r)
        self.assertLess(int(m.group(2)), 50 * max(1, int(m.group(1))), r)

    def test_no_wait_for_threads_not_woken(self):
        # after a futex wake the holder waits (up to --sched-timeout) for a
        # woken thread to come back.  prodcons: two threads wait on the
        # mutex and the one woken is back during the wake itself; the
        # other was not woken.  config_reload: a thread exits while main
        # joins another.  Neither is worth a wait: with a bound of 10 s,
        # the start of this change waited 344 s in prodcons (675 waits) and
        # 1.25 s in config_reload (3 waits).
        names = ("prodcons", "config_reload")

        def run(name):
            exe = corpus_exe(name)
            return name, valgrind(exe, "-v", "--sched-seed=2", "--sched-timeout=10000", timeout=120)
        for name, r in parallel(run, names):
            with self.subTest(prog=name):
                self.assert_short_waits(r)   # the start averaged 509 and 417 ms

    def test_requeued_waiters_are_not_waited_for(self):
        # futex_requeue: FUTEX_CMP_REQUEUE wakes one waiter and moves two to
        # another word, where they sleep on; its result counts all three.
        # The holder waits for the one woken only.  Counting the moved ones
        # too, each of the 4 rounds waited out --sched-timeout: 40 s here.
        r = valgrind(compile_prog("futex_requeue"), "-v", "--sched-seed=1",
                     "--sched-timeout=10000", timeout=120)
        # the run moved waiters (else it decides nothing)
        self.assertRegex(r.stdout, r"requeued [1-9]")
        self.assert_short_waits(r)

    def test_affinity_kept(self):
        # at a preemption inside a region, the thread handed the turn is
        # woken on the preempted thread's CPU: its CPU affinity is narrowed
        # to that CPU until it runs.  The program never sees it: a thread
        # that pinned itself keeps its set, the others and a forked child
        # the process's.  Without the restore, the threads' and main's
        # affinity was left at 1 CPU of 2.
        r = valgrind(compile_prog("affinity_kept"), "-v", "--sched-seed=1")
        self.assertIn("affinity kept, 200", r.stdout, r)
        m = re.search(r"(\d+) hand-over\(s\) woken on the preempted thread's CPU", r.text)
        self.assertTrue(m, r)
        if len(os.sched_getaffinity(0)) > 1:
            self.assertGreater(int(m.group(1)), 0, r)

    def test_polling_thread_follows_the_seed(self):
        # config_reload's reloader polls with sched_yield and reloads three
        # times: a yield is a scheduling point (else the kernel's yield sets
        # the reloader's pace, and on a loaded machine it reloads after the
        # workers are done), and its rare region gets the turn inside a
        # worker's damped one.  Before both: 0 of these 6 seeds reported it.
        # (Seed 5 postpones at race sites and interleaves both ways round: a
        # reload's region broken by a worker's read, as in the other seeds,
        # and a worker's region broken by a reload -- two real cycles.)
        # A seed's schedule still depends on when the kernel starts the
        # threads: with the suite's modules side by side, seed 4's
        # reloader once started after the workers had finished (no
        # report; alone it reports in 3 of 3).  So 5 of the 6: the rate the
        # corpus measures is 20 of 20.
        exe = corpus_exe("config_reload")
        found = []
        for seed in range(1, 7):
            r = valgrind(exe, "--sched-seed=%d" % seed, "--sched-timeout=10000")
            with self.subTest(seed=seed):
                self.assertIn(r.atomicity, (0, 1, 2), r)
            found.append(r.atomicity > 0)
        self.assertGreaterEqual(sum(found), 5, found)

    def test_other_seed_other_schedule(self):
        exe = corpus_exe("lazy_init")
        sw = [re.search(r"(\d+) switch", valgrind(exe, "--sched-seed=%d" % s).text).group(1)
              for s in (1, 2)]
        self.assertNotEqual(sw[0], sw[1])


@unittest.skipUnless(tool_built(), "atomgrind not built")
class NoHang(unittest.TestCase):
    MODES = ("spin", "spin_regions", "spin_lock", "prodcons", "barrier", "pool",
             "signals", "fork", "many", "sleep")

    def test_nasty_programs_finish_clean(self):
        # each would hang a scheduler that waits without a bound, or that
        # waits for threads that are blocked or do not exist (fork); all
        # regions are atomic, so no report either
        exe = compile_prog("sched_nasty")

        def run(mode):
            return mode, valgrind(exe, "--sched-seed=5", args=[mode], timeout=240)
        for mode, r in parallel(run, self.MODES):
            with self.subTest(mode=mode):
                self.assertEqual(r.rc, 0, r)
                self.assertIn(mode + " ok", r.stdout)
                self.assertEqual(r.errors, 0, r)

    def test_long_region_costs_few_switches(self):
        # two regions of 100,000 accesses each: preemptions decay with the
        # run's length (67,945 switches before, ~900 now); the regions
        # still overlap
        r = valgrind(compile_prog("long_region"), "--sched-seed=1")
        m = re.search(r"Checked: (\d+) region\(s\), (\d+) overlapped.* (\d+) switch", r.text)
        self.assertTrue(m, r)
        self.assertEqual(int(m.group(2)), 2, r)
        self.assertLess(int(m.group(3)), 3000, r)

    def test_pct_finishes_and_finds(self):
        exe = compile_prog("sched_nasty")
        r = valgrind(exe, "--sched=pct", "--sched-seed=2", args=["pool"], timeout=240)
        self.assertEqual((r.rc, r.errors), (0, 0), r)
        # transfer: 20 of 20 PCT runs (perf/results/sched.txt)
        bug = corpus_exe("transfer")
        for seed in (1, 2):
            r = valgrind(bug, "--sched=pct", "--sched-seed=%d" % seed, "--sched-depth=4")
            if r.atomicity > 0:
                break
        self.assertGreater(r.atomicity, 0, r)
        self.assertIn("Scheduler: pct, seed %d" % seed, r.text)


@unittest.skipUnless(tool_built(), "atomgrind not built")
class Options(unittest.TestCase):
    def test_bad_values_refused(self):
        for opt in ("--sched=fair", "--sched-depth=0", "--sched-seed=x", "--sched-races="):
            with self.subTest(opt=opt):
                p = vg_in_place("--tool=atomgrind", opt, "/bin/true")
                self.assertNotEqual(p.returncode, 0, p.stdout)
                self.assertRegex(p.stdout, r"(?i)bad option|invalid|unknown", p.stdout)

    def test_yield_at_regions_deprecated(self):
        exe = compile_prog("lock_loop")
        r = valgrind(exe, "--yield-at-regions=no")
        self.assertIn("--yield-at-regions is deprecated", r.text)
        self.assertIn("Scheduler: native", r.text)

    def test_race_check_alone_runs_natively(self):
        exe = compile_prog("lock_loop")
        self.assertIn("Scheduler: native", valgrind(exe, "--check=races").text)
        self.assertIn("Scheduler: random", valgrind(exe, "--check=all").text)
        r = valgrind(exe, "--check=races", "--sched=random")
        self.assertIn("Scheduler: random", r.text)


@unittest.skipUnless(tool_built(), "atomgrind not built")
class Explore(unittest.TestCase):
    SCRIPT = os.path.join(REPO, "atomgrind-explore")

    def explore(self, *args):
        return subprocess.run([sys.executable, self.SCRIPT, *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=600)

    def test_finds_groups_and_names_seeds(self):
        exe = corpus_exe("rmw_split")
        p = self.explore("-n", "2", "-j", "2", "--all", "--", exe)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        # (which seeds report depends on the schedule, which a loaded machine
        # can change when a time bound runs out: either may be first)
        self.assertRegex(p.stdout, r"Report 1: in [12] of 2 run\(s\), seeds [12]\b")
        self.assertIn("Repeat: valgrind --tool=atomgrind --sched-seed=", p.stdout)
        self.assertIn("2/2 runs", p.stderr)
        # one bug, reported from a few places: far fewer groups than reports
        self.assertLessEqual(len(re.findall(r"^Report \d+:", p.stdout, re.M)), 4, p.stdout)

    def test_clean_program(self):
        exe = corpus_exe("thread_local")
        p = self.explore("-n", "2", "-j", "2", "--", exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("No failing seed in 2 run(s)", p.stdout)

    def test_usage_errors(self):
        p = self.explore("-n", "2")
        self.assertEqual(p.returncode, 2)
        p = self.explore("--sched-seed=3", "--", "/bin/true")
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
