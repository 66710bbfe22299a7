"""The race engine (fasttrack) and RPT sampling (ag_sampler).

Runs the C tests in tests/engine/:
  test_fasttrack      constructed traces with known outcomes
  test_sampler        the window chooser on simulated event counts
  test_rpt_sound      random race traces: full analysis against a brute-force
                      HB oracle, sampled and suffix analyses against the full one
  test_rpt_atomicity  sampled atomicity engines against the brute-force
                      reference (ag_ref.c)
Built with ASan+UBSan (agtest.host_binary).  Fixed seeds throughout.
"""
import os
import unittest

from agtest import CTESTS, engine_sources, host_binary, run_host


def binary(name):
    return host_binary(name, engine_sources() + [os.path.join(CTESTS, "ag_ref.c"),
                                                 os.path.join(CTESTS, name + ".c")],
                       libs=["-lm"], opt="-O2")


class Races(unittest.TestCase):
    def run_test(self, name, *args):
        p = run_host(binary(name), *args)
        self.assertEqual(p.returncode, 0, "%s failed:\n%s%s" % (name, p.stdout[-6000:], p.stderr[-3000:]))
        return p.stdout

    def test_fasttrack_traces(self):
        """races, no races across every sync kind, atomics, bytes, report fields."""
        self.run_test("test_fasttrack")

    def test_sampler(self):
        """parameters, whole-run prefix, seeds, log growth, uniformity, growth of k."""
        out = self.run_test("test_sampler")
        self.assertIn("all passed", out)

    def test_rpt_sound_races(self):
        """full analysis exact on the first race; sampled reports within the full ones."""
        out = self.run_test("test_rpt_sound", "20000")
        self.assertIn("all passed", out)

    def test_approx_history_mutants(self):
        """the approximate history's check (test_rpt_sound's eighth) catches a
        lost report and an extra one: ag_fasttrack.c built with AG_FT_MUTANT=1
        (a write skipped over another thread's access), =2 (a read skipped
        over an older epoch's; its stale state may first show as an access
        named that does not race) and =3 (a read skipped after a racing
        write), and ag_shadow.c with AG_SHADOW_MUTANT (an unaligned or
        partial access skipped when the first location it overlaps is idle)."""
        srcs = engine_sources() + [os.path.join(CTESTS, "ag_ref.c"),
                                   os.path.join(CTESTS, "test_rpt_sound.c")]
        for define, why in (("AG_FT_MUTANT=1", "a lost report"), ("AG_FT_MUTANT=2", "(an extra|another) report"),
                            ("AG_FT_MUTANT=3", "a lost report"), ("AG_SHADOW_MUTANT", "a lost report")):
            with self.subTest(mutant=define):
                name = "test_rpt_sound_" + define.replace("=", "").lower()
                exe = host_binary(name, srcs, libs=["-lm"], opt="-O2", defines=[define])
                p = run_host(exe, "20000")
                self.assertNotEqual(p.returncode, 0, p.stdout[-3000:])
                self.assertRegex(p.stdout, "FAIL approximate history: " + why)

    def test_rpt_sound_atomicity(self):
        """sampled atomicity reports only at events where the reference finds a cycle."""
        out = self.run_test("test_rpt_atomicity", "3000")
        self.assertIn("all passed", out)


if __name__ == "__main__":
    unittest.main()
