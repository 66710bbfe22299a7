"""The tarball is whole: every source and header is named in Makefile.am
(what it does not name, make dist leaves out, and the tarball does not
build), and the tool built here runs a program.  make distcheck (run by
.ci/run) runs this module on a build of the tarball itself."""
import glob
import os
import re
import sys
import unittest

from agtest import PROGS, REPO, build_corpus, tool_built, valgrind

sys.path.insert(0, PROGS)
import corpus  # noqa: E402  (tests/progs/corpus.py)

# the folders whose C sources and headers the build uses
SOURCE_DIRS = ["atomgrind", "atomgrind/engine", "trace"]


def makefile_names():
    """The source paths Makefile.am names (atomgrind/..., trace/...)."""
    with open(os.path.join(REPO, "Makefile.am")) as f:
        return set(re.findall(r"(?<![\w./$()-])(?:atomgrind|trace)/[\w./-]+\.[ch]\b", f.read()))


class Distributed(unittest.TestCase):
    def test_every_source_and_header_is_in_makefile_am(self):
        named = makefile_names()
        missing = [os.path.relpath(p, REPO) for d in SOURCE_DIRS
                   for p in sorted(glob.glob(os.path.join(REPO, d, "*.[ch]")))
                   if os.path.relpath(p, REPO) not in named]
        self.assertEqual(missing, [], "not in Makefile.am, so not in make dist's tarball")

    def test_named_files_exist(self):
        # a file renamed or removed but still listed breaks make dist too
        gone = sorted(n for n in makefile_names() if not os.path.exists(os.path.join(REPO, n)))
        self.assertEqual(gone, [])

    @unittest.skipUnless(tool_built(), "the tool is not built")
    def test_the_built_tool_runs_a_program(self):
        prog = next(p for p in corpus.OK if p.name == "lock_across")
        r = valgrind(build_corpus(prog))
        self.assertEqual(r.errors, 0, r)
        self.assertEqual(r.rc, 0, r)
        self.assertIn("consistent", r.stdout)


if __name__ == "__main__":
    unittest.main()
