"""Atomicity engines against the brute-force reference checker
(tests/engine/test_differential.c: hand-made paper traces and thousands of
random traces with fixed seeds), built with ASan+UBSan."""
import os
import unittest

from agtest import CTESTS, ENGINE_DIR, engine_sources, host_binary, run_host

NTRACES = 10000          # per random section


def differential():
    return host_binary("test_differential", engine_sources() + [
        os.path.join(CTESTS, "ag_ref.c"), os.path.join(CTESTS, "test_differential.c")], opt="-O2")


class Differential(unittest.TestCase):
    def run_section(self, section, n=NTRACES):
        p = run_host(differential(), section, n)
        if p.returncode == 77:
            self.skipTest(p.stdout.strip())
        self.assertEqual(p.returncode, 0, "test_differential %s failed:\n%s%s" % (section, p.stdout, p.stderr))
        return p.stdout

    def test_hand_traces(self):
        """rho1-rho4, sigma7, To-lowering, forward closure, fork/join, bytes, rwlocks."""
        self.run_section("hand")

    def test_atomsanitizer_from_to(self):
        """sigma7 reproduces every From/To value of the paper's narrative."""
        # test_atomsan_ds #includes the engine source: built on its own
        exe = host_binary("test_atomsan_ds", [os.path.join(CTESTS, "test_atomsan_ds.c"),
                                              os.path.join(ENGINE_DIR, "ag_map.c"),
                                              os.path.join(ENGINE_DIR, "ag_shim_host.c")])
        p = run_host(exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_atomsanitizer(self):
        """first report exactly at the first cyclic event; every report sound."""
        self.run_section("atomsan")

    def test_atomsanitizer_group_mutants(self):
        """unary transactions share an id while no edge enters them
        (ag_atomsan.c); the random traces catch a build that keeps the shared
        id when an edge comes in (AG_AS_MUTANT=1: cycles lost and made) and
        one that takes a fresh id but leaves the records the event already
        wrote (=2)."""
        srcs = engine_sources() + [os.path.join(CTESTS, "ag_ref.c"),
                                   os.path.join(CTESTS, "test_differential.c")]
        for mutant in (1, 2):
            with self.subTest(mutant=mutant):
                exe = host_binary("test_differential_mutant%d" % mutant, srcs, opt="-O2",
                                  defines=["AG_AS_MUTANT=%d" % mutant])
                p = run_host(exe, "atomsan", NTRACES)
                self.assertNotEqual(p.returncode, 0, p.stdout[-3000:])
                self.assertIn("FAIL", p.stderr)

    def test_atomsanitizer_increasing(self):
        """increasing-cycle mode against the CHB-based reference."""
        self.run_section("inc")

    def test_velodrome(self):
        """first report exactly at the first cyclic event; every report sound."""
        self.run_section("velodrome")

    def test_aerodrome(self):
        """first report between the first cycle and the Theorem 1 event."""
        self.run_section("aerodrome")


if __name__ == "__main__":
    unittest.main()
