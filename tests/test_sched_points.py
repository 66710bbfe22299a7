"""Scheduling points at shared accesses (atomgrind/ag_shared.c): bugs that
need a preemption between two plain accesses, in programs with no atomic
region, show under the default scheduler -- a lost update through plain
loads and stores, a reordering across two flags, a work-stealing queue's
take/steal race, a stack's pop/push race (tests/progs/bugs, each fails by
an assertion).  Each must fail in at least 19 of 20 seeds (95%); before
shared accesses were points none of them failed in any seed.  Runs two
at a time, so a seed's schedule can still meet a timing fallback on a
loaded machine: the bound is on the rate, not on each seed."""
import os
import subprocess
import unittest
from concurrent.futures import ThreadPoolExecutor

from agtest import OUT, PROGS, tool_built, valgrind

SEEDS = 20
NEEDED = 19
PROGRAMS = ["lost_update", "reorder_flags", "wsq_take_steal", "stack_pop_push"]


def build(name):
    """tests/progs/bugs/NAME.c, built at -O0 (one superblock holds a
    thread's racing accesses, so only a stop inside it shows the bug)."""
    os.makedirs(os.path.join(OUT, "bugs"), exist_ok=True)
    src = os.path.join(PROGS, "bugs", name + ".c")
    exe = os.path.join(OUT, "bugs", name)
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        tmp = "%s.%d" % (exe, os.getpid())
        subprocess.run(["cc", "-g", "-O0", "-pthread", "-o", tmp, src], check=True)
        os.replace(tmp, exe)
    return exe


def failed(run):
    """The program's own assertion ended the run (SIGABRT: 128 + 6)."""
    return run.rc in (-6, 134) and "signal 6 (SIGABRT)" in run.log


@unittest.skipUnless(tool_built(), "atomgrind not built")
class SharedAccessPoints(unittest.TestCase):
    def rate(self, name, *opts):
        exe = build(name)
        with ThreadPoolExecutor(max_workers=2) as ex:
            runs = list(ex.map(lambda s: valgrind(exe, "--sched-seed=%d" % s, *opts, timeout=120),
                               range(1, SEEDS + 1)))
        return sum(failed(r) for r in runs), runs

    def test_programs_pass_natively_mostly(self):
        # each runs to its end without the tool (the bug is rare natively):
        # a program that always failed would prove nothing
        for name in PROGRAMS:
            with self.subTest(prog=name):
                ok = sum(subprocess.run([build(name)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL).returncode == 0
                         for _ in range(5))
                self.assertGreaterEqual(ok, 3)

    def test_bugs_show_in_95_percent_of_seeds(self):
        for name in PROGRAMS:
            with self.subTest(prog=name):
                n, runs = self.rate(name)
                self.assertGreaterEqual(n, NEEDED, "%s failed in %d of %d seeds" % (name, n, SEEDS))
                self.assertIn("at shared accesses", runs[0].text)


if __name__ == "__main__":
    unittest.main()
