"""Unit tests of the AeroDrome engine (tests/engine/test_aerodrome.c), and of
forgetting a lock in every engine (tests/engine/test_lock_forget.c).

Built with ASan+UBSan (agtest.host_binary)."""
import os
import unittest

from agtest import CTESTS, engine_sources, host_binary, run_host


class AeroDromeUnit(unittest.TestCase):
    def test_engine(self):
        # the test brings its own shim (counts allocations)
        exe = host_binary("test_aerodrome", engine_sources(host_shim=False) + [
            os.path.join(CTESTS, f) for f in ("ag_test_shim.c", "ag_ref.c", "test_aerodrome.c")])
        p = run_host(exe, 2000)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(" 0 failed", p.stdout, p.stdout + p.stderr)

    def test_lock_forget_every_engine(self):
        # a freed or re-initialised lock no longer orders (tests/engine/test_lock_forget.c)
        exe = host_binary("test_lock_forget", engine_sources(host_shim=False) + [
            os.path.join(CTESTS, f) for f in ("ag_test_shim.c", "test_lock_forget.c")])
        p = run_host(exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(", 0 failed", p.stdout, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
