"""atomgrind-explore (issue 33): every failing seed counts -- observed and
predicted reports, the program's own failures (exit status, signal,
deadlock or hang), Valgrind ending abnormally -- grouped by kind, each with
the command that repeats it; the exit status says whether any seed failed.
--shard=I/N and --merge give what one run over all the seeds gives.

The shard test drives the script with a stand-in for valgrind whose
outcome is a fixed function of the seed, so the comparison is exact; the
other tests run the real tool on one program per case."""
import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from agtest import BUILD, PROGS, REPO, build_corpus, compile_prog, tool_built

sys.path.insert(0, PROGS)
import corpus  # noqa: E402  (tests/progs/corpus.py)

SCRIPT = os.path.join(REPO, "atomgrind-explore")


def explore(*args, timeout=600):
    return subprocess.run([sys.executable, SCRIPT, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout,
                          env=dict(os.environ, AG_BUILD=BUILD))


def load_script():
    loader = importlib.machinery.SourceFileLoader("ag_explore", SCRIPT)
    spec = importlib.util.spec_from_loader("ag_explore", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# A stand-in for valgrind: what a run gives depends only on its seed.
FAKE = r'''#!/usr/bin/env python3
import os, re, signal, sys, time
opt = lambda name: next(a.split("=", 1)[1] for a in sys.argv if a.startswith(name + "="))
seed, log = int(opt("--sched-seed")), opt("--log-file")
begin, end = opt("--error-markers").split(",")
P = "==%d== " % os.getpid()
A = ["Atomicity violation: lock 0x10c040 acquired by thread #2 breaks its atomic region",
     "   at 0x1: take (p.c:10)", "   by 0x2: worker (p.c:20)"]
B = ["Atomicity violation: write of size 4 at 0x10c048 by thread #3 breaks it",
     "   at 0x3: put (p.c:30)", "   by 0x2: worker (p.c:21)"]
PRED = ["Possible atomicity violation: write of size 4 at 0x10c050 by thread #%d could interleave"
        % (2 + seed // 8 % 2), "   at 0x4: deposit (p.c:40)"]
ANN = ["---Thread-Announcement------------------------------------------", "",
       "Thread #2 was created", "   at 0x5: clone (clone.S:83)", "",
       "----------------------------------------------------------------", ""]
k = seed % 8
if k == 7 and seed > 8:
    time.sleep(60)                        # a hang
reports = {1: [A], 2: [A, B], 3: [PRED], 6: [B]}.get(k, [])
out = []
for r in reports:
    out += [begin] + ANN + r + [""] + [end]
if k == 5:
    out += ["Process terminating with default action of signal 6 (SIGABRT)",
            "   at 0x6: raise (raise.c:26)", "   by 0x7: abort (abort.c:79)",
            "   by 0x8: main (p.c:%d)" % (50 + seed // 8 % 2)]
if k != 4:
    out += ["ERROR SUMMARY: %d errors from %d contexts (suppressed: 0 from 0)"
            % (len(reports), len(reports))]
with open(log, "w") as f:
    f.write("".join(P + l + "\n" for l in out))
if k == 4:
    sys.stderr.write("valgrind: the 'impossible' happened\n")
    sys.exit(1)
if k == 5:
    os.kill(os.getpid(), signal.SIGABRT)
sys.exit(3 if k == 6 else 0)
'''


class Sharded(unittest.TestCase):
    """Four shards and a merge against one run over the same seeds."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.fake = os.path.join(cls.dir.name, "fake-valgrind")
        with open(cls.fake, "w") as f:
            f.write(FAKE)
        os.chmod(cls.fake, 0o755)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def run_fake(self, *args):
        return explore("--valgrind=" + self.fake, "--timeout=3", "-j", "2", *args,
                       "--", "/bin/true", "arg")

    def test_shards_and_merge_equal_one_run(self):
        one = self.run_fake("-n", "24", "--all")
        files = []
        for i in range(1, 5):
            out = os.path.join(self.dir.name, "s%d.json" % i)
            p = self.run_fake("-n", "24", "--all", "--shard=%d/4" % i, "--out=" + out)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            files.append(out)
        # the shares: disjoint, and together every seed
        shares = [json.load(open(f))["seeds"] for f in files]
        self.assertEqual(sorted(s for sh in shares for s in sh), list(range(1, 25)))
        self.assertEqual([len(sh) for sh in shares], [6, 6, 6, 6])
        merged = explore("--merge", *files)
        self.assertEqual((merged.returncode, merged.stdout), (one.returncode, one.stdout))
        # and the summary says what each seed did, by kind
        t = one.stdout
        self.assertEqual(one.returncode, 1, t)
        self.assertIn("20 failing seed(s) of 24 run(s) (seeds 1..24): 1 2 3 4 5 6 9 10 11 12 13 "
                      "14 15 17 18 19 20 21 22 23\n", t)
        self.assertIn("== Atomicity violations: 9 seed(s)\n\nReport 1: in 6 of 24 run(s), "
                      "seeds 1 2 9 10 17 18\nAtomicity violation: lock", t)
        self.assertIn("Report 2: in 6 of 24 run(s), seeds 2 6 10 14 18 22\n"
                      "Atomicity violation: write of size 4", t)
        # predictions differ only in thread numbers and addresses: one group
        self.assertIn("== Possible atomicity violations (predicted): 3 seed(s)\n\n"
                      "Report 3: in 3 of 24 run(s), seeds 3 11 19", t)
        self.assertIn("== Program failures (exit status, signal, deadlock or hang): 8 seed(s)\n\n"
                      "Failure 4: in 3 of 24 run(s), seeds 6 14 22\nexit status 3\n"
                      "Repeat: valgrind --tool=atomgrind --sched-seed=6 /bin/true arg\n", t)
        # an abort is told apart by the program's frame below libc's
        self.assertIn("Failure 5: in 2 of 24 run(s), seeds 5 21\n"
                      "killed by signal 6 (SIGABRT) (exit status 134 from a shell)\n"
                      "by main (p.c:50)\n", t)
        self.assertIn("Failure 7: in 1 of 24 run(s), seeds 13\nkilled by signal 6 (SIGABRT) "
                      "(exit status 134 from a shell)\nby main (p.c:51)\n", t)
        self.assertIn("Failure 6: in 2 of 24 run(s), seeds 15 23\nstill running after 3 s (deadlock or hang)"
                      ": killed\nRepeat: timeout 3 valgrind --tool=atomgrind --sched-seed=15", t)
        self.assertIn("== Valgrind ended abnormally: 3 seed(s)\n\nFailure 8: in 3 of 24 run(s), "
                      "seeds 4 12 20\nvalgrind: the 'impossible' happened", t)
        self.assertNotIn("Thread-Announcement", t)

    def test_stops_at_the_first_failing_seed(self):
        p = self.run_fake("-n", "24", "--seed", "8", "-j", "1")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("1 failing seed(s) of 2 run(s) (seeds 8..9): 9", p.stdout)

    def test_no_failing_seed(self):
        p = self.run_fake("-n", "1", "--seed", "8")
        self.assertEqual((p.returncode, p.stdout), (0, "No failing seed in 1 run(s) (seeds 8..8).\n"))

    def test_merge_refuses_overlaps_and_other_files(self):
        a = os.path.join(self.dir.name, "a.json")
        self.run_fake("-n", "2", "--all", "--out=" + a)
        p = explore("--merge", a, a)
        self.assertEqual(p.returncode, 2)
        self.assertIn("seed 1 is in two files (overlapping shards?)", p.stderr)
        bad = os.path.join(self.dir.name, "bad.json")
        with open(bad, "w") as f:
            f.write("[1, 2]")
        p = explore("--merge", bad)
        self.assertEqual(p.returncode, 2)
        self.assertIn("not an atomgrind-explore results file", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_usage_errors(self):
        for args, what in [(["--shard=5/4", "--", "/bin/true"], "--shard=I/N with 1 <= I <= N"),
                           (["--shard=x", "--", "/bin/true"], "--shard=I/N"),
                           (["--log-file=x", "--", "/bin/true"], "--log-file is chosen per run"),
                           (["--", "/no/such/prog"], "/no/such/prog: no such program"),
                           (["--merge", "/no/such.json"], "cannot read /no/such.json")]:
            with self.subTest(args=args):
                p = explore(*args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(what, p.stderr)


class Parsing(unittest.TestCase):
    def test_report_blocks_and_keys(self):
        ex = load_script()
        log = "\n".join("==7== " + l for l in [
            "Checked: 1 region(s)", ex.MARK_BEGIN, "---Thread-Announcement----------", "",
            "Thread #2 was created", "   at 0x1: clone (clone.S:1)", "", "-" * 40, "",
            "Misuse: Thread #2 unlocked lock 0x1234, which it does not hold",
            "   at 0x2: ag_pthread_mutex_unlock (ag_intercepts.c:9)",
            "   by 0x3: bad (p.c:5)", "", ex.MARK_END, "ERROR SUMMARY: 1 errors from 1 contexts"])
        r = ex.parse_reports(log)
        self.assertEqual(len(r), 1)
        self.assertEqual(r[0]["kind"], "misuse")
        self.assertEqual(r[0]["key"], ["Misuse: Thread #N unlocked lock ADDR, which it does not hold",
                                       "by bad (p.c:5)"])
        self.assertTrue(r[0]["text"].startswith("Misuse: Thread #2 unlocked"))


@unittest.skipUnless(tool_built(), "atomgrind not built")
class RealRuns(unittest.TestCase):
    """One program per case under the real tool, two seeds each."""

    def corpus_exe(self, name):
        return build_corpus(next(p for p in corpus.PROGRAMS if p.name == name))

    def test_observed_report(self):
        p = explore("-n", "2", "-j", "2", "--all", "--", self.corpus_exe("rmw_split"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("2 failing seed(s) of 2 run(s)", p.stdout)
        self.assertRegex(p.stdout, r"== Atomicity violations: 2 seed\(s\)\n\nReport 1: in [12] of 2")
        # (with the race sites the run started from, when earlier runs of the
        # command learned some: --sched-races names their snapshot)
        m = re.search(r"Repeat: valgrind --tool=atomgrind --sched-seed=[12] "
                      r"(?:--sched-races=(\S+) )?\S+rmw_split\n", p.stdout)
        self.assertTrue(m, p.stdout)
        self.assertTrue(m.group(1) is None or os.path.exists(m.group(1)), m.group(1))

    def test_predicted_report_only(self):
        # no interleaving is observed, one is predicted: the seed fails
        # (it used to say "No report in 2 run(s)" and exit 0).  Full
        # prediction: the bounded default does not predict across deposit's
        # stretch with no region open (docs, section 4)
        p = explore("-n", "2", "-j", "2", "--all", "--predict=yes", "--",
                    compile_prog("predict_serial"), "after")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("2 failing seed(s) of 2 run(s)", p.stdout)
        self.assertIn("== Possible atomicity violations (predicted): 2 seed(s)\n\n"
                      "Report 1: in 2 of 2 run(s), seeds 1 2\nPossible atomicity violation: write",
                      p.stdout)
        self.assertNotIn("== Atomicity violations", p.stdout)

    def test_program_aborts(self):
        # exit status 134 from a shell, no report (it used to be
        # "0 failing seed(s)")
        p = explore("-n", "2", "-j", "2", "--all", "--", compile_prog("aborts"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("== Program failures (exit status, signal, deadlock or hang): 2 seed(s)\n\n"
                      "Failure 1: in 2 of 2 run(s), seeds 1 2\n"
                      "killed by signal 6 (SIGABRT) (exit status 134 from a shell)\n"
                      "by main (aborts.c:", p.stdout)
        self.assertIn("Repeat: valgrind --tool=atomgrind --sched-seed=1 ", p.stdout)

    def test_program_hangs(self):
        p = explore("-n", "1", "--timeout=15", "--", compile_prog("hangs"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("Failure 1: in 1 of 1 run(s), seeds 1\n"
                      "still running after 15 s (deadlock or hang): killed\n"
                      "Repeat: timeout 15 valgrind --tool=atomgrind --sched-seed=1 ", p.stdout)

    def test_program_deadlocks(self):
        # the tool reports the deadlock and ends the run (exit status 1)
        p = explore("-n", "1", "--timeout=120", "--", compile_prog("lock_cycle"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("== Deadlocks and lock-order inversions: 1 seed(s)\n\n"
                      "Report 1: in 1 of 1 run(s), seeds 1\n"
                      "Deadlock: 2 threads wait for each other in a cycle", p.stdout)
        self.assertIn("== Program failures (exit status, signal, deadlock or hang): 1 seed(s)\n\n"
                      "Failure 2: in 1 of 1 run(s), seeds 1\nexit status 1\n", p.stdout)
        self.assertNotIn("still running", p.stdout)

    def test_shards_of_real_runs(self):
        # the same comparison as Sharded's on the real tool, with a program
        # whose outcome does not depend on the schedule
        exe = compile_prog("aborts")
        one = explore("-n", "4", "-j", "2", "--all", "--", exe)
        with tempfile.TemporaryDirectory() as d:
            files = [os.path.join(d, "%d.json" % i) for i in range(1, 5)]
            for i, f in enumerate(files, 1):
                p = explore("-n", "4", "--all", "--shard=%d/4" % i, "--out=" + f, "--", exe)
                self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            merged = explore("--merge", *files)
        self.assertEqual((merged.returncode, merged.stdout), (one.returncode, one.stdout))
        self.assertIn("4 failing seed(s) of 4 run(s) (seeds 1..4): 1 2 3 4\n", one.stdout)

    def test_clean_program(self):
        # (-q: Valgrind then prints no ERROR SUMMARY on a clean run; the
        # runs must not look unfinished)
        p = explore("-n", "2", "-j", "2", "-q", "--", self.corpus_exe("thread_local"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "No failing seed in 2 run(s) (seeds 1..2).\n")


if __name__ == "__main__":
    unittest.main()
