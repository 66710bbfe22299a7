"""What the tool sees: pthread_once is a write of its control by the
initialising call and a read by every later call, not a lock every caller
takes (tests/progs/once_regions.c); a load whose value is unused still
counts with --vex-iropt-register-updates=allregs-at-each-insn
(tests/progs/dead_load.c, built with -O2; by default VEX deletes such a
load before the tool sees it: docs/atomgrind.md, section 3)."""
import unittest

from agtest import BUILD, compile_prog, tool_built, valgrind

ENGINES = ["atomsanitizer", "aerodrome", "velodrome"]


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s" % BUILD)


class Seen(unittest.TestCase):
    def test_pthread_once_in_regions(self):
        exe = compile_prog("once_regions")
        for opts in [["--engine=" + e] for e in ENGINES] + [["--check=all"]]:
            with self.subTest(opts=opts):
                r = valgrind(exe, *opts)
                self.assertEqual(r.errors, 0, r)

    def test_unused_volatile_load(self):
        exe = compile_prog("dead_load", extra=["-O2"], suffix="-O2")
        r = valgrind(exe, "--vex-iropt-register-updates=allregs-at-each-insn", "--predict=no")
        self.assertEqual((r.atomicity, r.errors), (1, 1), r)


if __name__ == "__main__":
    unittest.main()
