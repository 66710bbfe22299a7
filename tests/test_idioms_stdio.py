"""glibc's stdio locks inside atomic regions (atomgrind/analysis/ag_stdio.c):
tests/progs/atomics/stdio_regions.c, built with -O2, three threads whose
atomic function makes one stdio call on a shared FILE.

Before the model, each run had 56-166 reports in libc (the FILE lock's
owner test and lock word, the FILE's flags and orientation).  Now the
correct forms are clean at every seed, in atomicity mode and with
--check=all, and a lost update on the program's own count in the same
function is still reported at every seed, on the program's data."""
import os
import subprocess
import unittest

from agtest import OUT, REPO, tool_built, valgrind

SRC = os.path.join(REPO, "tests", "progs", "atomics", "stdio_regions.c")
# to stdout, stderr, a FILE the program opened; "marked": client requests
CLEAN = ["printf", "puts", "putchar", "fputs", "fwrite", "file", "marked"]
SEEDS = range(1, 11)


def build():
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, "atomics_stdio_regions")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(SRC):
        subprocess.run(["cc", "-O2", "-g", "-pthread", "-I", os.path.join(REPO, "atomgrind"),
                        "-I", os.path.join(REPO, "tests", "progs"), "-o", exe, SRC], check=True)
    return exe


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built")


class StdioRegions(unittest.TestCase):
    def test_clean_every_seed(self):
        """printf, fprintf to stderr and to a file: 0 reports at 10 seeds
        each (stderr: the threads' first calls orient the stream before
        its lock; known from the first pthread_create on)."""
        exe = build()
        for m in ["printf", "fprintf", "file"]:
            for seed in SEEDS:
                with self.subTest(mode=m, seed=seed):
                    r = valgrind(exe, "--atomic-fns=log_line", "--sched-seed=%d" % seed, args=[m])
                    self.assertEqual(r.errors, 0, r)

    def test_clean_forms(self):
        """Every form, at three seeds, atomicity alone and with races."""
        exe = build()
        for m in CLEAN:
            for check in ["atomicity", "all"]:
                for seed in [1, 2, 3]:
                    with self.subTest(mode=m, check=check, seed=seed):
                        r = valgrind(exe, "--check=" + check, "--atomic-fns=log_line",
                                     "--sched-seed=%d" % seed, args=[m])
                        self.assertEqual(r.errors, 0, r)

    def test_real_violation_beside_stdio(self):
        """The count read under the mutex, fprintf, the count written back:
        the lost update is reported at every seed, on the program's own
        objects (its mutex or its count); no race (the count is locked)."""
        exe = build()
        for check in ["atomicity", "all"]:
            for seed in [1, 2, 3]:
                with self.subTest(check=check, seed=seed):
                    r = valgrind(exe, "--check=" + check, "--atomic-fns=log_line",
                                 "--sched-seed=%d" % seed, args=["bug"])
                    self.assertGreaterEqual(r.atomicity, 1, r)
                    self.assertEqual(r.races, 0, r)
                    self.assertTrue('data symbol "mu"' in r.text or 'data symbol "count"' in r.text, r)

    def test_program_code_on_a_file_is_its_own(self):
        """putc_unlocked, inlined in the program, from threads without
        flockfile: its races on the FILE's buffer pointers are the
        program's accesses, reported (only libc's accesses are the lock's)."""
        r = valgrind(build(), "--check=races", "--sched-seed=1", args=["unlocked"])
        self.assertGreaterEqual(r.races, 1, r)
        self.assertIn("putc_unlocked", r.text)


if __name__ == "__main__":
    unittest.main()
