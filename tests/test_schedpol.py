"""The scheduler's policy (atomgrind/engine/ag_schedpol.c) on the host,
with ASan and UBSan: slot ownership, exact one_in, damping, budgets, PCT's
change points and seed repeats on synthetic sequences
(tests/engine/test_schedpol.c); the choice of the next holder, PCT's
priorities and demotions on synthetic runs of points, blocks and wake-ups
(tests/engine/test_schedpol_choice.c); region counting, the damping curve,
the rates it divides and rare regions (tests/engine/test_schedpol_regions.c);
race-directed postponement: the sites learned, who waits and who is
released (tests/engine/test_schedrace.c); the accounting of futex wakes (engine/ag_schedwake.c,
tests/engine/test_schedwake.c)."""
import os
import unittest

from agtest import CTESTS, ENGINE_DIR, host_binary, run_host


def run_test(name, module):
    """Build tests/engine/NAME.c with engine/MODULE.c (the policy: with its
    race-directed part) and run it."""
    mods = [module] + (["ag_schedrace"] if module == "ag_schedpol" else [])
    exe = host_binary(name, [os.path.join(ENGINE_DIR, m + ".c") for m in mods]
                      + [os.path.join(CTESTS, name + ".c")])
    return run_host(exe)


class SchedPolicy(unittest.TestCase):
    def check(self, name, module="ag_schedpol"):
        r = run_test(name, module)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)

    def test_policy(self):
        self.check("test_schedpol")

    def test_choice(self):
        self.check("test_schedpol_choice")

    def test_regions(self):
        self.check("test_schedpol_regions")

    def test_race_postponement(self):
        self.check("test_schedrace")

    def test_wakes(self):
        self.check("test_schedwake", "ag_schedwake")


if __name__ == "__main__":
    unittest.main()
