"""What reports say: inline frames, the README's own example and its
suppression, what conflicted in lock-closed reports, merged contexts.
Exact report texts are checked on the tool's output with addresses and
pids filtered out."""
import os
import re
import subprocess
import unittest

from agtest import BUILD, OUT, REPO, compile_prog, supp_file, tool_built, valgrind


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s" % BUILD)


def bank():
    """examples/bank.c, built as the README says (-g, no optimisation)."""
    os.makedirs(OUT, exist_ok=True)
    src = os.path.join(REPO, "examples", "bank.c")
    exe = os.path.join(OUT, "bank")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["cc", "-g", "-pthread", "-I", os.path.join(REPO, "atomgrind"),
                        "-o", exe, src], check=True)
    return exe


def readme():
    with open(os.path.join(REPO, "README.md")) as f:
        return f.read()


class Readme(unittest.TestCase):
    """The README's example and its suppression entry."""

    def test_readme_suppression_suppresses_readme_report(self):
        # the indented entry that follows "Suppression entries use the kinds"
        m = re.search(r"Suppression entries use the kinds.*?\n\n((?:    [^\n]*\n)+)", readme(), re.S)
        self.assertTrue(m, "no suppression example in README.md")
        entry = "\n".join(l[4:] for l in m.group(1).splitlines()) + "\n"
        self.assertIn("Atomgrind:Atomicity", entry)
        exe = bank()
        r = valgrind(exe)
        self.assertEqual((r.atomicity, r.errors), (1, 1), r)
        with supp_file(entry) as f:
            r = valgrind(exe, "--suppressions=" + f)
        self.assertEqual((r.errors, r.suppressed), (0, 1), r)


class InlineFrames(unittest.TestCase):
    """--read-inline-info is on by default, as in Helgrind and DRD."""

    def test_inlined_frame_shown_by_default(self):
        # the preload's pthread_mutex_lock wrapper inlines its worker
        # (ag_pthread_mutex_lock): a frame of its own only with inline info
        exe = bank()
        r = valgrind(exe)
        self.assertRegex(r.text, r"(?m)^   at 0x[0-9A-F]+: ag_pthread_mutex_lock \(ag_intercepts.c:\d+\)\n"
                                 r"   by 0x[0-9A-F]+: pthread_mutex_lock@\* \(ag_intercepts.c:\d+\)$", r)
        r = valgrind(exe, "--read-inline-info=no")
        self.assertNotIn("ag_pthread_mutex_lock", r.text, r)


if __name__ == "__main__":
    unittest.main()
