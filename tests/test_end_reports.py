"""AeroDrome's reports at the end of a region (issue 14): the cycle is
found only when the region ends, and the report names the two ways into
it -- the access of the other region from which it came after this one,
and this region's access from which it came after the other
(tests/progs/end_cycle.c; engine/ag_aerodrome.c keeps, for each open
region a thread's clock knows, the event that brought the knowledge).
Exact texts, as tests/test_reports.py checks them; the same report from
atomgrind-trace on the trace of that run."""
import concurrent.futures
import os
import subprocess
import unittest

from agtest import BUILD, compile_prog, tool_built, valgrind
from test_reports import remote_region_masked, report_text
from test_trace_tool import tool as trace_tool

END_REPORT = """\
Atomicity violation: the atomic region of thread #2, ending here, was interleaved with conflicting work of thread #3
   at 0x..: thread_t (end_cycle.c:24)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3's atomic region came after thread #2's from its read of size 4 at 0x..
   at 0x..: thread_u (end_cycle.c:35)
 Address 0x.. is 0 bytes inside data symbol "x"

Thread #2's atomic region came after thread #3's from its read of size 4 at 0x..
   at 0x..: thread_t (end_cycle.c:23)
 Address 0x.. is 0 bytes inside data symbol "y"

The atomic region of thread #2 began at
   at 0x..: thread_t (end_cycle.c:21)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 ran conflicting code inside its atomic region, which began at
   at 0x..: thread_u (end_cycle.c:33)
   by 0x..: ag_thread_start (ag_intercepts.c:N)
"""

# --history-level=full: the two accesses with their whole stacks
FULL_WAYS = """\
Thread #3's atomic region came after thread #2's from its read of size 4 at 0x..
   at 0x..: thread_u (end_cycle.c:35)
   by 0x..: ag_thread_start (ag_intercepts.c:N)
"""

RUNS = {}


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s" % BUILD)
    exe = compile_prog("end_cycle")
    trace = os.path.join(BUILD, "tests-bin", "end_cycle.agt")
    jobs = {"approx": [], "full": ["--history-level=full"], "record": ["--record-trace=" + trace]}
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as ex:
        futs = {k: ex.submit(valgrind, exe, "--engine=aerodrome", "--predict=no", *o)
                for k, o in jobs.items()}
        for k, f in futs.items():
            RUNS[k] = f.result()
    RUNS["trace"] = trace


class EndOfRegion(unittest.TestCase):

    def report(self, kind):
        r = RUNS[kind]
        self.assertEqual((r.atomicity, r.errors), (1, 1), r)
        return report_text(r)

    def test_names_both_ways_into_the_cycle(self):
        got, want = self.report("approx"), END_REPORT
        if got != want:
            # whether the other region was still open depends on the schedule
            got, want = remote_region_masked(got), remote_region_masked(want)
        self.assertEqual(got, want)

    def test_full_history_stacks(self):
        self.assertIn(FULL_WAYS, self.report("full"))

    def test_trace_tool_says_the_same(self):
        self.report("record")
        p = subprocess.run([trace_tool(), "--engine=aerodrome", RUNS["trace"]],
                           capture_output=True, text=True, timeout=120)
        self.assertIn("detected at the end of T1's atomic region", p.stdout, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"T2's region came after T1's from its read of 4 bytes at 0x[0-9a-f]+ "
                                   r"at event \d+ \(site \d+: thread_u end_cycle.c:35\)")
        self.assertRegex(p.stdout, r"T1's region came after T2's from its read of 4 bytes at 0x[0-9a-f]+ "
                                   r"at event \d+ \(site \d+: thread_t end_cycle.c:23\)")


if __name__ == "__main__":
    unittest.main()
