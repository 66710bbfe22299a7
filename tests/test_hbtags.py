"""Happens-before between thread tags (atomgrind/engine/ag_hbtags.c), the
owner table's hand-overs, on the host with ASan and UBSan: a lock and a
join hand a stamp over, accesses after the release or with no edge
are not handed over, a stamp whose low byte came round errs towards a
point, and random traces agree with the event graph's reachability
(tests/engine/test_hbtags.c).  Two mutations of the caller, lost acquires
and orders the program does not have, must fail it."""
import os
import unittest

from agtest import CTESTS, ENGINE_DIR, host_binary, run_host

SRCS = [os.path.join(ENGINE_DIR, f) for f in ("ag_hbtags.c", "ag_map.c", "ag_shim_host.c")] \
    + [os.path.join(CTESTS, "test_hbtags.c")]


class HandOver(unittest.TestCase):
    def test_clocks(self):
        r = run_host(host_binary("test_hbtags", SRCS))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)

    def test_lost_acquires_fail(self):
        r = run_host(host_binary("test_hbtags_lost", SRCS, defines=["HBT_LOST_ACQUIRE"]))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("not handed over", r.stderr)
        self.assertIn("want 1", r.stderr)

    def test_extra_orders_fail(self):
        r = run_host(host_binary("test_hbtags_extra", SRCS, defines=["HBT_EXTRA_ORDER"]))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("taken as ordered", r.stderr)


if __name__ == "__main__":
    unittest.main()
