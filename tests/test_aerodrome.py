"""Unit tests of the AeroDrome engine (tests/engine/test_aerodrome.c).

Uses $AG_BUILD/tests-bin/test_aerodrome when the build made it, else
compiles it here from the sources with `cc` (with ASan/UBSan when the
compiler has them)."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BUILD = os.environ.get("AG_BUILD", os.path.join(REPO, "build"))
ENGINE = os.path.join(REPO, "atomgrind", "engine")
TESTS = os.path.join(HERE, "engine")


def sources():
    engine = [f for f in sorted(glob.glob(os.path.join(ENGINE, "*.c")))
              if os.path.basename(f) != "ag_shim_host.c"]
    return engine + [os.path.join(TESTS, f) for f in
                     ("ag_test_shim.c", "ag_ref.c", "test_aerodrome.c")]


def build(outdir):
    exe = os.path.join(outdir, "test_aerodrome")
    base = ["cc", "-std=gnu99", "-O1", "-g", "-I", ENGINE, "-I", TESTS, "-o", exe]
    last = None
    for extra in (["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"], []):
        p = subprocess.run(base + extra + sources(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode == 0:
            return exe
        last = p.stdout
    raise AssertionError("cannot build test_aerodrome:\n" + last)


class AeroDromeUnit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = None
        exe = os.path.join(BUILD, "tests-bin", "test_aerodrome")
        if not os.path.exists(exe):
            cls.tmp = tempfile.mkdtemp(prefix="ag_aerodrome_")
            exe = build(cls.tmp)
        cls.exe = exe

    @classmethod
    def tearDownClass(cls):
        if cls.tmp:
            shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_engine(self):
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1")
        p = subprocess.run([self.exe, "2000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=300, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(" 0 failed", p.stdout, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
