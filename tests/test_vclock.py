"""The shared vector clock (atomgrind/engine/ag_vclock.h) on the host, with
ASan and UBSan: the join, growth, get and tick laws at the 32- and 64-bit
widths prediction and FastTrack use (tests/engine/test_vclock.c); a join
broken on purpose must fail them."""
import os
import unittest

from agtest import CTESTS, ENGINE_DIR, host_binary, run_host

SRCS = [os.path.join(ENGINE_DIR, "ag_shim_host.c"), os.path.join(CTESTS, "test_vclock.c")]


class VectorClock(unittest.TestCase):
    def test_laws(self):
        r = run_host(host_binary("test_vclock", SRCS))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)

    def test_broken_join_fails(self):
        """The laws catch a join that drops the source's last entry."""
        r = run_host(host_binary("test_vclock_broken", SRCS, defines=["VCT_BROKEN_JOIN"]))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        for law in ("least bound", "a|a == a", "join grows"):
            self.assertIn(law, r.stderr)


if __name__ == "__main__":
    unittest.main()
