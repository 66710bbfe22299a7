#!/usr/bin/env python3
"""Run atomgrind's test suite: every tests/test_*.py module (unittest).

Usage: tests/run.py [-v] [-k PATTERN] [MODULE...]
The build directory is $AG_BUILD (default: <repo>/build)."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    args = sys.argv[1:]
    verbosity = 2 if "-v" in args else 1
    args = [a for a in args if a != "-v"]
    pattern = None
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
    result = unittest.TextTestRunner(verbosity=verbosity).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
