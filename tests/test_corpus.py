"""The program collection (tests/progs/corpus.py): it builds, each program
gets its verdict under the default options -- a correct one no report, a
bug an atomicity violation (observed or predicted) in its own source --
and the bug programs run natively.  Detection rates over many seeds are
measured by perf/detect.py (every bug in every run today); here a bug is
found within SEEDS seeds."""
import os
import re
import subprocess
import sys
import unittest
from concurrent.futures import ThreadPoolExecutor

from agtest import BUILD, PROGS, build_corpus, parallel, tool_built, valgrind

sys.path.insert(0, PROGS)
import corpus  # noqa: E402  (tests/progs/corpus.py)

EXES = {}
SEEDS = 3      # a bug found in none of the first SEEDS seeds fails the test

# Correct programs that atomgrind reports today because of a tool bug, not
# a mistake in the program; each is skipped (visibly) until the bug is fixed.
KNOWN_TOOL_BUGS = {}


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s (run the README's setup)" % BUILD)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for p, exe in zip(corpus.PROGRAMS, pool.map(build_corpus, corpus.PROGRAMS)):
            EXES[p.name] = exe


class Manifest(unittest.TestCase):
    def test_sizes_and_names(self):
        self.assertGreaterEqual(len(corpus.BUGS), 15)
        self.assertGreaterEqual(len(corpus.OK), 15)
        names = [p.name for p in corpus.PROGRAMS]
        self.assertEqual(len(names), len(set(names)))
        for p in corpus.PROGRAMS:
            self.assertIn(p.verdict, ("bug", "ok"))
            self.assertIn(p.lang, ("c", "c++"))
            self.assertTrue(p.desc)

    def test_sources_explain_themselves(self):
        # every program opens with a comment saying what it is; a bug's
        # comment names the interleaving (the cycle) that breaks it
        for p in corpus.PROGRAMS:
            with self.subTest(prog=p.name):
                texts = [open(os.path.join(PROGS, s)).read() for s in p.srcs + p.lib]
                self.assertRegex(texts[0], r"^(/\*|//) (Bug|Correct)")
                self.assertTrue(any("ATOMGRIND_ATOMIC_BEGIN" in t for t in texts))
                if p.verdict == "bug":
                    self.assertTrue(any(re.search(r"Cycle:", t) for t in texts))


class Programs(unittest.TestCase):
    def test_ok_programs_get_no_report(self):
        oks = corpus.OK
        runs = parallel(lambda p: valgrind(EXES[p.name], timeout=120), oks)
        for p, r in zip(oks, runs):
            with self.subTest(prog=p.name):
                if p.name in KNOWN_TOOL_BUGS:
                    self.skipTest("tool bug: " + KNOWN_TOOL_BUGS[p.name])
                # every process's summary: a forked child prints its own
                sums = re.findall(r"ERROR SUMMARY: (\d+) errors", r.log)
                self.assertEqual(sums, ["0"] * len(sums), r)
                self.assertEqual(r.rc, 0, r)
                self.assertIn("consistent", r.stdout)
                self.assertNotIn("INCONSISTENT", r.stdout)

    def test_bug_programs_are_reported(self):
        def verdict(p):
            for seed in range(1, SEEDS + 1):
                r = valgrind(EXES[p.name], "--sched-seed=%d" % seed, timeout=120)
                predicted = len(re.findall(r"^Possible atomicity violation", r.text, re.M))
                if r.atomicity + predicted:
                    return seed, r
            return None, r
        bugs = corpus.BUGS
        for p, (seed, r) in zip(bugs, parallel(verdict, bugs)):
            with self.subTest(prog=p.name):
                self.assertIsNotNone(seed, r)
                self.assertEqual(r.rc, 0, r)
                self.assertEqual(r.misuse, 0, r)
                # the report is about the program's code, not the runtime's
                srcs = [os.path.basename(s) for s in p.srcs + p.lib]
                self.assertRegex(r.text, r"\((%s):\d+\)" % "|".join(map(re.escape, srcs)), r)

    def test_bug_programs_run_natively(self):
        bugs = corpus.BUGS
        runs = parallel(lambda p: subprocess.run([EXES[p.name]], stdout=subprocess.PIPE,
                                                 stderr=subprocess.STDOUT, text=True, timeout=60), bugs)
        for p, r in zip(bugs, runs):
            with self.subTest(prog=p.name):
                self.assertEqual(r.returncode, 0, r.stdout)
                self.assertRegex(r.stdout, r"\d")        # each prints its symptom count


class DetectScript(unittest.TestCase):
    """perf/detect.py: a table cell per program and configuration; options
    Valgrind refuses are reported as refused, not as "not detected"."""
    def test_table_and_refused_options(self):
        script = os.path.join(os.path.dirname(PROGS), "..", "perf", "detect.py")
        p = subprocess.run([sys.executable, script, "-n", "1", "-j", "1", "lock_across",
                            "--opts", "", "--opts", "--no-such-option={seed}"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                           env=dict(os.environ, AG_BUILD=BUILD))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"(?m)^lock_across\s+ok\s+0/1\s+refused$")
        self.assertRegex(p.stdout, r"(?m)^c2: --no-such-option=\{seed\}\s+REFUSED by Valgrind: .*"
                                   r"Unknown option: --no-such-option=1")
        self.assertIn("refused by Valgrind", p.stderr)


if __name__ == "__main__":
    unittest.main()
