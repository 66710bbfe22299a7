"""One owner of atomic regions (issue 29) and inlined instances of atomic
functions as regions (issue 33).

ag_regions.c alone opens and closes regions for the engines and the
scheduler, so their depths agree: a marked region left by a longjmp ends
for both (the scheduler's count of regions at exit shows it), and each
thread's exit checks the three depths (an internal error otherwise)."""
import re
import unittest

from agtest import compile_prog, tool_built, valgrind


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built (run the README's setup)")


def checked(r):
    """(regions, overlapped) from the scheduler's exit line."""
    m = re.search(r"^Checked: (\d+) region\(s\), (\d+) overlapped", r.text, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


class LongjmpOutOfMarkedRegion(unittest.TestCase):
    """region_longjmp: main's region is abandoned by a longjmp; its three
    later regions and the worker's are regions of their own, none of
    them overlapped (before: main stayed at depth 1, "Checked: 2
    region(s)")."""

    @classmethod
    def setUpClass(cls):
        cls.exe = compile_prog("region_longjmp")

    def check(self, *opts):
        r = valgrind(self.exe, "-v", *opts)
        # the abandoned region, once (-v lists it again at exit)
        self.assertEqual((r.errors, r.contexts), (1, 1), r)
        self.assertRegex(r.text, r"(?m)^Atomic region abandoned by a longjmp")
        self.assertEqual(r.atomicity, 0, r)
        self.assertEqual(checked(r), (5, 0), r)
        self.assertRegex(r.text, r"(?m)^atomgrind: regions: 5 marked, .*; 0 thread\(s\) exited inside one$")
        self.assertNotIn("depths disagree", r.text)
        return r

    def test_default(self):
        self.check()

    def test_fatal_depth_check(self):
        self.check("--sanity-level=2")

    def test_pct(self):
        self.check("--sched=pct", "--sched-seed=3")

    def test_native(self):
        self.check("--sched=native")


if __name__ == "__main__":
    unittest.main()
