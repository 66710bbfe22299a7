"""The site encoding (atomgrind/engine/ag_site.h) on the host, with ASan
and UBSan: code addresses, handles, stack ids and lock sets round-trip,
tags never leak into another kind, and an engine hands sites back whole
(tests/engine/test_site.c)."""
import os
import unittest

from agtest import CTESTS, engine_sources, host_binary, run_host


class Sites(unittest.TestCase):
    def test_sites(self):
        exe = host_binary("test_site", engine_sources() + [os.path.join(CTESTS, "test_site.c")])
        r = run_host(exe)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("ok", r.stdout)


if __name__ == "__main__":
    unittest.main()
