"""The scheduler's policy (atomgrind/engine/ag_schedpol.c) on the host,
with ASan and UBSan: slot ownership, exact one_in, damping, budgets, PCT's
change points and seed repeats on synthetic sequences
(tests/engine/test_schedpol.c); the choice of the next holder, PCT's
priorities and demotions on synthetic runs of points, blocks and wake-ups
(tests/engine/test_schedpol_choice.c); region counting, the damping curve,
the rates it divides and rare regions (tests/engine/test_schedpol_regions.c);
the accounting of futex wakes (engine/ag_schedwake.c,
tests/engine/test_schedwake.c)."""
import os
import unittest

from agtest import CTESTS, ENGINE_DIR, host_binary, run_host


class SchedPolicy(unittest.TestCase):
    def test_policy(self):
        exe = host_binary("test_schedpol", [os.path.join(ENGINE_DIR, "ag_schedpol.c"),
                                            os.path.join(CTESTS, "test_schedpol.c")])
        r = run_host(exe)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)

    def test_choice(self):
        exe = host_binary("test_schedpol_choice",
                          [os.path.join(ENGINE_DIR, "ag_schedpol.c"),
                           os.path.join(CTESTS, "test_schedpol_choice.c")])
        r = run_host(exe)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)

    def test_regions(self):
        exe = host_binary("test_schedpol_regions",
                          [os.path.join(ENGINE_DIR, "ag_schedpol.c"),
                           os.path.join(CTESTS, "test_schedpol_regions.c")])
        r = run_host(exe)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)

    def test_wakes(self):
        exe = host_binary("test_schedwake", [os.path.join(ENGINE_DIR, "ag_schedwake.c"),
                                             os.path.join(CTESTS, "test_schedwake.c")])
        r = run_host(exe)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)


if __name__ == "__main__":
    unittest.main()
