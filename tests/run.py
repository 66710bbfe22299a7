#!/usr/bin/env python3
"""Run atomgrind's test suite: every tests/test_*.py module (unittest).

Usage: tests/run.py [-v] [-k PATTERN] [--durations N] [-j N] [MODULE...]
The build directory is $AG_BUILD (default: <repo>/build).  --durations N
lists the N slowest tests at the end (the suite's time budget).  -j N runs
N modules at a time, each in a process of its own with a fresh $TMPDIR
(the race sites a module's runs learn stay its own), the largest first;
each module's output is printed whole when it ends."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))


class TimedResult(unittest.TextTestResult):
    """Records each test's wall time."""
    times = []

    def startTest(self, test):
        self._t0 = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        TimedResult.times.append((time.monotonic() - self._t0, test.id()))
        super().stopTest(test)


def run_module(path, opts):
    """One module in a child runner; returns (ok, tests run, seconds, output)."""
    tmp = tempfile.mkdtemp(prefix="agtest-")
    t0 = time.monotonic()
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), *opts, path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, TMPDIR=tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ran = [int(n) for n in re.findall(r"^Ran (\d+) tests? in", p.stdout, re.M)]
    return p.returncode == 0, sum(ran), time.monotonic() - t0, p.stdout


def run_parallel(jobs, modules, opts):
    """The modules, jobs at a time (the largest files first: they take
    longest, and the last to start should be short); exit status 1 if any
    failed."""
    modules = sorted(modules, key=os.path.getsize, reverse=True)
    t0 = time.monotonic()
    failed, total = [], 0

    def one(path):
        ok, ran, took, out = run_module(path, opts)
        name = os.path.basename(path)
        print("==== %s: %s, %d tests, %.0f s\n%s" % (name, "OK" if ok else "FAILED", ran, took, out),
              flush=True)
        return name, ok, ran
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for name, ok, ran in pool.map(one, modules):
            total += ran
            if not ok:
                failed.append(name)
    print("Ran %d tests in %d modules, %d at a time, in %.0f s: %s"
          % (total, len(modules), jobs, time.monotonic() - t0,
             "FAILED (%s)" % ", ".join(failed) if failed else "OK"))
    sys.exit(1 if failed else 0)


def main():
    args = sys.argv[1:]
    jobs = 1
    if "-j" in args:
        i = args.index("-j")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    verbosity = 2 if "-v" in args else 1
    args = [a for a in args if a != "-v"]
    pattern = None
    durations = 0
    if "--durations" in args:
        i = args.index("--durations")
        durations = int(args[i + 1])
        del args[i:i + 2]
    if "-k" in args:
        i = args.index("-k")
        pattern = args[i + 1]
        del args[i:i + 2]
    if jobs > 1:
        opts = (["-v"] if verbosity == 2 else []) + (["-k", pattern] if pattern else []) \
            + (["--durations", str(durations)] if durations else [])
        modules = [os.path.join(HERE, a if a.endswith(".py") else a + ".py") for a in args] or \
            [os.path.join(HERE, f) for f in sorted(os.listdir(HERE))
             if f.startswith("test_") and f.endswith(".py")]
        run_parallel(jobs, modules, opts)
    sys.path.insert(0, HERE)
    os.environ.setdefault("AG_BUILD", os.path.join(os.path.dirname(HERE), "build"))
    loader = unittest.TestLoader()
    if pattern:
        loader.testNamePatterns = ["*%s*" % pattern]
    if args:
        suite = unittest.TestSuite(loader.loadTestsFromName(os.path.splitext(os.path.basename(a))[0])
                                   for a in args)
    else:
        suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=verbosity, resultclass=TimedResult).run(suite)
    if durations:
        print("\nSlowest %d tests (seconds):" % durations)
        for t, name in sorted(TimedResult.times, reverse=True)[:durations]:
            print("%8.1f  %s" % (t, name))
        by_module = {}
        for t, name in TimedResult.times:
            by_module[name.split(".")[0]] = by_module.get(name.split(".")[0], 0) + t
        print("\nBy module (seconds):")
        for name, t in sorted(by_module.items(), key=lambda kv: -kv[1])[:durations]:
            print("%8.1f  %s" % (t, name))
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
