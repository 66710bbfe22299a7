"""The race engine (fasttrack) and RPT sampling (ag_sampler).

Runs the C tests in tests/engine/:
  test_fasttrack      constructed traces with known outcomes
  test_sampler        the window chooser on simulated event counts
  test_rpt_sound      random race traces: full analysis against a brute-force
                      HB oracle, sampled and suffix analyses against the full one
  test_rpt_atomicity  sampled atomicity engines against the brute-force
                      reference (ag_ref.c)
Uses $AG_BUILD/<name> (or $AG_BUILD/tests/engine/<name>) when it exists, else
compiles it from the sources with `cc`.  Fixed seeds throughout.
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

_tmpdir = None
_objs = None
_built = {}


def _engine_objs(cc):
    """Compile the engine sources once; returns the object files."""
    global _tmpdir, _objs
    if _objs is None:
        _tmpdir = tempfile.mkdtemp(prefix="ag_races.")
        _objs = []
        srcs = sorted(glob.glob(os.path.join(ENGINE, "*.c")))
        if os.path.exists(os.path.join(TESTS, "ag_ref.c")):
            srcs.append(os.path.join(TESTS, "ag_ref.c"))
        for src in srcs:
            obj = os.path.join(_tmpdir, os.path.basename(src)[:-2] + ".o")
            _run_cc([cc, "-std=gnu99", "-O2", "-I", ENGINE, "-I", TESTS, "-c", src, "-o", obj])
            _objs.append(obj)
    return _objs


def _run_cc(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        raise RuntimeError("build failed:\n" + " ".join(cmd) + "\n" + p.stdout)


def binary(name):
    if name in _built:
        return _built[name]
    build = os.environ.get("AG_BUILD", os.path.join(ROOT, "build"))
    for cand in (os.path.join(build, name), os.path.join(build, "tests", "engine", name)):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            _built[name] = cand
            return cand
    cc = os.environ.get("CC", "cc")
    objs = _engine_objs(cc)
    out = os.path.join(_tmpdir, name)
    _run_cc([cc, "-std=gnu99", "-O2", "-I", ENGINE, "-I", TESTS,
             os.path.join(TESTS, name + ".c")] + objs + ["-lm", "-o", out])
    _built[name] = out
    return out


def tearDownModule():
    if _tmpdir:
        shutil.rmtree(_tmpdir, ignore_errors=True)


class Races(unittest.TestCase):
    def run_test(self, name, *args):
        p = subprocess.run([binary(name)] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
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

    def test_rpt_sound_atomicity(self):
        """sampled atomicity reports only at events where the reference finds a cycle."""
        if not os.path.exists(os.path.join(TESTS, "ag_ref.c")):
            self.skipTest("tests/engine/ag_ref.c not present")
        out = self.run_test("test_rpt_atomicity", "3000")
        self.assertIn("all passed", out)


if __name__ == "__main__":
    unittest.main()
