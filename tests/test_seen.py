"""What the tool sees: pthread_once is a write of its control by the
initialising call and a read by every later call, not a lock every caller
takes (tests/progs/once_regions.c); a load whose value is unused still
counts (tests/progs/dead_load.c, built with -O2)."""
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


if __name__ == "__main__":
    unittest.main()
