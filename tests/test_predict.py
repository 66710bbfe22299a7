"""The prediction engine (atomgrind/engine/ag_predict.c) on hand-made traces
with their exact reports, and on random traces against a plain reference
of its model (tests/engine/test_predict.c), built with ASan+UBSan."""
import os
import unittest

from agtest import CTESTS, engine_sources, host_binary, run_host

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


if __name__ == "__main__":
    unittest.main()
