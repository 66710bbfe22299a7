"""The dispatcher's byte-precise shadow memory (tests/engine/test_shadow.c)."""
import os
import unittest

from agtest import CTESTS, ENGINE_DIR, host_binary, run_host


class Shadow(unittest.TestCase):
    def test_shadow(self):
        exe = host_binary("test_shadow", [os.path.join(ENGINE_DIR, f) for f in
                                          ("ag_shadow.c", "ag_slab.c", "ag_map.c", "ag_shim_host.c")]
                          + [os.path.join(CTESTS, "test_shadow.c")])
        p = run_host(exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
