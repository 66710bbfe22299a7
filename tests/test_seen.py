"""What the tool sees: pthread_once is a write of its control by the
initialising call and a read by every later call, not a lock every caller
takes (tests/progs/once_regions.c); a load from a global whose value is
unused, which VEX deletes before the tool sees the block, still counts
(tests/progs/dead_load.c, built with -O2; atomgrind/events/ag_deadload.c decodes
the instruction; docs/atomgrind.md, section 3)."""
import os
import unittest

from agtest import BUILD, CTESTS, REPO, compile_prog, host_binary, run_host, tool_built, valgrind

ENGINES = ["atomsanitizer", "aerodrome", "velodrome"]


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s" % BUILD)


class Seen(unittest.TestCase):
    def test_pthread_once_in_regions(self):
        exe = compile_prog("once_regions")
        for opts in [["--engine=" + e] for e in ENGINES] + [["--check=all"]]:
            with self.subTest(opts=opts):
                r = valgrind(exe, *opts)
                self.assertEqual(r.errors, 0, r)

    def test_unused_volatile_load(self):
        # by default (the second read is deleted by VEX: without the
        # decoder 0 reports), and with VEX keeping every load itself
        exe = compile_prog("dead_load", extra=["-O2"], suffix="-O2")
        for opts in ([], ["--vex-iropt-register-updates=allregs-at-each-insn"]):
            with self.subTest(opts=opts):
                r = valgrind(exe, "--predict=no", *opts)
                self.assertEqual((r.atomicity, r.errors), (1, 1), r)

    def test_paper_traces_with_dead_reads(self):
        # rho2-rho4 of the AeroDrome paper, every read a deleted load: each
        # has its violation (0 reports each without the decoder)
        exe = compile_prog("paper_dead_reads", extra=["-O2"], suffix="-O2")
        for trace in ("rho2", "rho3", "rho4"):
            with self.subTest(trace=trace):
                r = valgrind(exe, "--predict=no", args=[trace])
                self.assertEqual((r.atomicity, r.errors), (1, 1), r)

    def test_dead_load_decoder(self):
        exe = host_binary("test_deadload", [os.path.join(CTESTS, "test_deadload.c"),
                                            os.path.join(REPO, "atomgrind", "events", "ag_deadload.c")],
                          includes=[os.path.join(REPO, "atomgrind", "events"), "/usr/include/valgrind"],
                          defines=["VGA_amd64", "VGO_linux", "VGP_amd64_linux"])
        p = run_host(exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
