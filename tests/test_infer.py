"""atomgrind-infer (issue 33): it ends at the fixpoint whatever is dropped
(also when the last function goes: an empty spec), its spec is the start
patterns minus '!NAME' lines with the reports that dropped them, so it
carries over to inputs the inference never ran, and its exit status and
summary say what happened: a clean program, observed violations, only
predicted ones, a program that aborts, one that deadlocks.  Also the
'!NAME' lines of --atomic-spec files it relies on."""
import os
import re
import subprocess
import tempfile
import unittest

from agtest import BUILD, REPO, compile_prog, tool_built, valgrind
from test_spec import build_bank

SCRIPT = os.path.join(REPO, "atomgrind-infer")


def infer(*args, timeout=600):
    """Run atomgrind-infer ARGS; (CompletedProcess, the spec's text or None)."""
    with tempfile.TemporaryDirectory() as d:
        spec = os.path.join(d, "out.spec")
        p = subprocess.run([SCRIPT, "--spec=" + spec, *args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout,
                           env=dict(os.environ, AG_BUILD=BUILD))
        text = open(spec).read() if os.path.exists(spec) else None
    return p, text


def patterns(spec):
    return [l for l in spec.splitlines() if l and not l.startswith("#")]


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s (run the README's setup)" % BUILD)


class Fixpoint(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bank = build_bank()

    def test_last_function_dropped_is_a_fixpoint(self):
        # used to end "the run did not finish normally (exit code 1)": the
        # second run was given a spec with nothing atomic
        p, spec = infer("--start=withdraw", "--", self.bank, "plain")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout.splitlines(), [
            "atomgrind-infer: run 1: 1 function(s) atomic, 1 dropped, 1 violation(s)",
            "atomgrind-infer: run 2: 0 function(s) atomic, 0 dropped, 0 violation(s)",
            "atomgrind-infer: fixpoint after 2 run(s): 1 function(s) at start, 0 atomic at the end, "
            "1 violation(s) found, 1 function(s) dropped; spec in " + p.stdout.split("spec in ")[-1].strip()])
        self.assertEqual(patterns(spec), ["withdraw", "!withdraw"], spec)
        self.assertRegex(spec, r"# dropped in run 1: withdraw\n#   Atomicity violation: .*\n"
                               r"#   at 0x[0-9A-F]+: withdraw \(spec_bank.c:\d+\)\n!withdraw\n")
        self.assertIn("# atomic and entered in the last run: none", spec)

    def test_clean_program(self):
        p, spec = infer("--start=withdraw", "--vg-opt=-q", "--", self.bank, "locked")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("atomgrind-infer: fixpoint after 1 run(s): 1 function(s) at start, 1 atomic "
                      "at the end, 0 violation(s) found, 0 function(s) dropped", p.stdout)
        self.assertEqual(patterns(spec), ["withdraw"])

    def test_spec_from_all_carries_over_to_another_input(self):
        # inferred on 'loop' (withdraw is never called there), checked on
        # 'plain' (withdraw's violation): the spec still holds withdraw.
        # The old spec listed only what 'loop' entered, and was clean.
        p, spec = infer("--", self.bank, "loop")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(patterns(spec), ["all", "!withdraw_fast"], spec)
        with tempfile.NamedTemporaryFile("w", suffix=".spec") as f:
            f.write(spec)
            f.flush()
            r = valgrind(self.bank, "--atomic-spec=" + f.name, args=["plain"])
            self.assertGreater(r.atomicity, 0, r)
            self.assertRegex(r.text, r"call of withdraw\)")
            r = valgrind(self.bank, "--atomic-spec=" + f.name, args=["loop"])
            self.assertEqual(r.errors, 0, r)

    def test_list_start_keeps_its_patterns(self):
        p, spec = infer("--start=withdraw_fast,audit,withdraw", "--", self.bank, "loop")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(patterns(spec), ["withdraw_fast", "audit", "withdraw", "!withdraw_fast"])

    def test_bad_start(self):
        p, spec = infer("--start=!withdraw", "--", self.bank, "plain")
        self.assertEqual(p.returncode, 1)
        self.assertIn("names no function to start from", p.stderr)
        self.assertIsNone(spec)


class InlinedFunctions(unittest.TestCase):
    """Inference through inlined instances: inline_bank built with Debian's
    flags (-O2), withdraw and deposit inlined (no symbol).  The bug in
    withdraw drops it by name; the next run with the spec checks deposit's
    inlined instances (its bug reported, its clean form clean) and not
    withdraw's."""

    @classmethod
    def setUpClass(cls):
        from test_regions import debian_cflags, defined_functions
        cls.exe = compile_prog("inline_bank", extra=debian_cflags(), suffix="-deb")
        assert "withdraw" not in defined_functions(cls.exe)

    def check_with(self, spec, mode):
        with tempfile.NamedTemporaryFile("w", suffix=".spec") as f:
            f.write(spec)
            f.flush()
            return valgrind(self.exe, "--atomic-spec=" + f.name, args=[mode])

    def test_all_drops_the_inlined_function(self):
        p, spec = infer("--", self.exe, "bug")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(patterns(spec), ["all", "!withdraw"], spec)
        self.assertIn("# dropped in run 1: withdraw", spec)
        r = self.check_with(spec, "bug_ai")
        self.assertGreaterEqual(r.atomicity, 1, r)
        self.assertIn("(call of deposit)", r.text)
        self.assertEqual(self.check_with(spec, "ok_ai").errors, 0)
        self.assertEqual(self.check_with(spec, "bug").errors, 0)

    def test_list_start(self):
        p, spec = infer("--start=withdraw,deposit", "--", self.exe, "bug")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(patterns(spec), ["withdraw", "deposit", "!withdraw"], spec)
        r = self.check_with(spec, "bug_ai")
        self.assertGreaterEqual(r.atomicity, 1, r)


class InlinedFunctionsLto(InlinedFunctions):
    """The same with -flto, where Valgrind cannot name the inlined copies
    (UnknownInlinedFun) and atomgrind-inlines does: withdraw is dropped by
    its name, deposit stays checked (with the helper off, the first run
    dropped '!UnknownInlinedFun', every inlined copy at once)."""

    @classmethod
    def setUpClass(cls):
        from test_regions import defined_functions
        cls.exe = compile_prog("inline_bank", extra=["-flto", "-O2"], suffix="-lto")
        assert "withdraw" not in defined_functions(cls.exe)


class Outcomes(unittest.TestCase):
    def test_only_predicted_reports(self):
        # predictions drop nothing (the inference drops on observed
        # violations); the summary counts them
        # (full prediction: the bounded default predicts nothing here)
        p, spec = infer("--start=withdraw", "--vg-opt=--predict=yes", "--",
                        compile_prog("predict_serial"), "after")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("atomgrind-infer: run 1: 1 function(s) atomic, 0 dropped, 0 violation(s), "
                      "1 predicted (they drop nothing)", p.stdout)
        self.assertIn("fixpoint after 1 run(s)", p.stdout)

    def test_program_aborts(self):
        p, spec = infer("--", compile_prog("aborts"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("; the program failed: killed by signal 6\n", p.stdout)
        self.assertIn("atomgrind-infer: the program failed in run(s) 1: the spec is from runs "
                      "that did not complete", p.stdout)
        self.assertIsNotNone(spec)

    def test_program_hangs(self):
        p, spec = infer("--timeout=10", "--", compile_prog("hangs"))
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("atomgrind-infer: the program was still running after 10 s (deadlock or "
                      "hang?): killed; no spec", p.stderr)
        self.assertIsNone(spec)


class ExcludingSpecLines(unittest.TestCase):
    """'!NAME' in an --atomic-spec file: the exclusion wins over 'all' and
    over the function's own name, wherever it stands."""

    def check(self, lines, atomicity):
        with tempfile.NamedTemporaryFile("w", suffix=".spec") as f:
            f.write("".join(l + "\n" for l in lines))
            f.flush()
            r = valgrind(build_bank(), "--atomic-spec=" + f.name, args=["plain"])
        self.assertEqual(r.atomicity > 0, atomicity, r)

    def test_exclusions(self):
        self.check(["all"], True)
        self.check(["all", "# why", "!withdraw"], False)
        self.check(["!withdraw", "withdraw"], False)
        self.check(["withdraw", "!  withdraw   # spaces and a comment"], False)


class OperatorNames(unittest.TestCase):
    """Names with glob characters (tests/progs/spec_ops.cpp): a pattern
    with a parameter list or an operator's name is compared, not matched
    as a glob, so '!Counter::operator*(int)' (as atomgrind-infer writes a
    dropped function) does not also exclude operator*=(int), whose
    violation stays reported; at -O2 the names carry '[clone .isra.0]',
    which a name without it still matches."""

    @classmethod
    def setUpClass(cls):
        src = os.path.join(REPO, "tests", "progs", "spec_ops.cpp")
        cls.exes = {}
        for opt in ("-O0", "-O2"):
            exe = os.path.join(BUILD, "tests-bin", "spec_ops" + opt)
            os.makedirs(os.path.dirname(exe), exist_ok=True)
            subprocess.run(["c++", opt, "-g", "-pthread", "-I", os.path.join(REPO, "atomgrind"),
                            "-I", os.path.join(REPO, "tests", "progs"), "-o", exe, src], check=True)
            cls.exes[opt] = exe

    def errors(self, opt, lines):
        with tempfile.NamedTemporaryFile("w", suffix=".spec") as f:
            f.write("".join(l + "\n" for l in lines))
            f.flush()
            r = valgrind(self.exes[opt], "--sched=native", "--atomic-spec=" + f.name)
        return r.errors

    def test_exclusions_are_names(self):
        for opt in self.exes:
            with self.subTest(opt=opt):
                self.assertEqual(self.errors(opt, ["all"]), 1)
                self.assertEqual(self.errors(opt, ["all", "!Counter::operator*(int)"]), 1)
                self.assertEqual(self.errors(opt, ["all", "!Counter::operator*"]), 1)
                self.assertEqual(self.errors(opt, ["all", "!Counter::operator[](int)"]), 1)
                self.assertEqual(self.errors(opt, ["all", "!Counter::operator*=(int)"]), 0)
                self.assertEqual(self.errors(opt, ["all", "!Counter::operator*="]), 0)

    def test_inclusions_are_names(self):
        for opt in self.exes:
            with self.subTest(opt=opt):
                self.assertEqual(self.errors(opt, ["Counter::operator*(int)"]), 0)
                self.assertEqual(self.errors(opt, ["Counter::operator*=(int)"]), 1)
                self.assertEqual(self.errors(opt, ["Count*"]), 1)       # still a glob


if __name__ == "__main__":
    unittest.main()
