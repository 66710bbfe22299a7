"""Atomicity engines against the brute-force reference checker.

Runs tests/engine/test_differential.c (hand-made paper traces and
thousands of random traces with fixed seeds).  Uses $AG_BUILD/test_differential
when it exists, else compiles it from the sources with `cc`.
"""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "atomgrind", "engine")
TESTS = os.path.join(ROOT, "tests", "engine")
NTRACES = "10000"          # per random section; all sections take ~10 s

_binary = None
_tmpdir = None


def _tmp():
    global _tmpdir
    if not _tmpdir:
        _tmpdir = tempfile.mkdtemp(prefix="ag_differential.")
    return _tmpdir


def _find_or_build():
    global _binary
    if _binary:
        return _binary
    build = os.environ.get("AG_BUILD", os.path.join(ROOT, "build"))
    for cand in (os.path.join(build, "test_differential"),
                 os.path.join(build, "tests", "engine", "test_differential")):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            _binary = cand
            return _binary
    out = os.path.join(_tmp(), "test_differential")
    srcs = sorted(glob.glob(os.path.join(ENGINE, "*.c")))
    srcs += [os.path.join(TESTS, "ag_ref.c"), os.path.join(TESTS, "test_differential.c")]
    cmd = [os.environ.get("CC", "cc"), "-std=gnu99", "-O2", "-I", ENGINE, "-I", TESTS] + srcs + ["-o", out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("cannot build test_differential:\n" + " ".join(cmd) + "\n" + p.stdout)
    _binary = out
    return _binary


def _build_ds():
    """test_atomsan_ds #includes the engine source: built on its own."""
    build = os.environ.get("AG_BUILD", os.path.join(ROOT, "build"))
    for cand in (os.path.join(build, "test_atomsan_ds"),
                 os.path.join(build, "tests", "engine", "test_atomsan_ds")):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    out = os.path.join(_tmp(), "test_atomsan_ds")
    cmd = [os.environ.get("CC", "cc"), "-std=gnu99", "-O1", "-I", ENGINE,
           os.path.join(TESTS, "test_atomsan_ds.c"), os.path.join(ENGINE, "ag_map.c"),
           os.path.join(ENGINE, "ag_shim_host.c"), "-o", out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("cannot build test_atomsan_ds:\n" + " ".join(cmd) + "\n" + p.stdout)
    return out


def tearDownModule():
    if _tmpdir:
        shutil.rmtree(_tmpdir, ignore_errors=True)


class Differential(unittest.TestCase):
    def run_section(self, section, n=NTRACES):
        p = subprocess.run([_find_or_build(), section, n], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
        if p.returncode == 77:
            self.skipTest(p.stdout.strip())
        self.assertEqual(p.returncode, 0, "test_differential %s failed:\n%s%s" % (section, p.stdout, p.stderr))
        return p.stdout

    def test_hand_traces(self):
        """rho1-rho4, sigma7, To-lowering, forward closure, fork/join, bytes, rwlocks."""
        self.run_section("hand")

    def test_atomsanitizer_from_to(self):
        """sigma7 reproduces every From/To value of the paper's narrative."""
        p = subprocess.run([_build_ds()], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_atomsanitizer(self):
        """first report exactly at the first cyclic event; every report sound."""
        self.run_section("atomsan")

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
