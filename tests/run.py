#!/usr/bin/env python3
"""Run atomgrind's test suite: every tests/test_*.py module (unittest).

Usage: tests/run.py [-v] [-k PATTERN] [--durations N] [MODULE...]
The build directory is $AG_BUILD (default: <repo>/build).  --durations N
lists the N slowest tests at the end (the suite's time budget)."""
import os
import sys
import time
import unittest

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


def main():
    args = sys.argv[1:]
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
