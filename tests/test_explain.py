"""What reports closed by a lock say, on hand traces: the other thread's
access behind the cycle and where each thread held the lock
(tests/engine/test_explain.c, every engine); the events the dispatcher
hands its observers, which the tool's cycle pictures are drawn from
(tests/engine/test_observe.c).  Built with ASan+UBSan."""
import os
import unittest

from agtest import CTESTS, engine_sources, host_binary, run_host


class ExplainUnit(unittest.TestCase):
    def test_lock_closed_reports(self):
        exe = host_binary("test_explain", engine_sources(host_shim=False) + [
            os.path.join(CTESTS, f) for f in ("ag_test_shim.c", "test_explain.c")])
        p = run_host(exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(", 0 failed", p.stdout, p.stdout + p.stderr)

    def test_observers(self):
        # the dispatcher numbers each event once and tells its observers
        # (the tool's cycle pictures are one: ag_cycles.c)
        exe = host_binary("test_observe", engine_sources(host_shim=False) + [
            os.path.join(CTESTS, f) for f in ("ag_test_shim.c", "test_observe.c")])
        p = run_host(exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(", 0 failed", p.stdout, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
