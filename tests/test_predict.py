"""The prediction engine (atomgrind/engine/ag_predict.c) on hand-made traces
with their exact reports, and on random traces against a plain reference
of its model (tests/engine/test_predict.c), built with ASan+UBSan."""
import os
import subprocess
import tempfile
import unittest

from agtest import BUILD, CTESTS, engine_sources, host_binary, run_host

NTRACES = 3000


def predict_test():
    return host_binary("test_predict", engine_sources() + [
        os.path.join(CTESTS, "ag_ref.c"), os.path.join(CTESTS, "test_predict.c")], opt="-O2")


class PredictEngine(unittest.TestCase):
    def run_section(self, section, n=NTRACES):
        p = run_host(predict_test(), section, n)
        self.assertEqual(p.returncode, 0, "test_predict %s failed:\n%s%s" % (section, p.stdout, p.stderr))
        return p.stdout

    def test_hand_traces(self):
        """AVIO patterns; fork/join/semaphore order; locks across; rwlocks;
        observed violations not predicted; one report per region and thread."""
        self.run_section("hand")

    def test_random_traces(self):
        """every report allowed by the model, exactly the bounded replay's."""
        out = self.run_section("random")
        print("\n  " + out.strip().splitlines()[0])

    def test_offline(self):
        """atomgrind-trace --engine=predict on a RAPID trace of a serial run."""
        exe = os.path.join(BUILD, "atomgrind-trace")
        if not os.path.exists(exe):
            self.skipTest("atomgrind-trace is not built")
        with tempfile.NamedTemporaryFile("w", suffix=".std") as f:
            f.write("T0|begin|1\nT0|r(x)|2\nT0|r(x)|3\nT0|end|4\nT1|w(x)|5\n")
            f.flush()
            p = subprocess.run([exe, "--engine=predict", f.name], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("Possible atomicity violation at event 5, engine predict:\n"
                      "   in T0's atomic region begun at line 1 (LOC 1)\n"
                      "   its read at line 2 (LOC 2) and read at line 3 (LOC 3)\n"
                      "   could be interleaved by the write of thread T1 at line 5 (LOC 5)", p.stdout)


if __name__ == "__main__":
    unittest.main()
