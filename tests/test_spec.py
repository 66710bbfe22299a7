"""Atomic regions from function specs (issue 12): --atomic-fns and
--atomic-spec on programs without annotations, the frames that end a
call's region (return, tail call, longjmp, exception, recursion, signal
handler, PLT), marked regions abandoned by an exception, --infer-spec and
atomgrind-infer, bad spec files, and the warning when nothing is checked.

The programs force their interleaving with sleeps (the region waits
400 ms, the other thread writes at 150 ms), so each verdict is exact."""
import os
import re
import subprocess
import tempfile
import unittest

from agtest import BUILD, OUT, PROGS, REPO, compile_prog, tool_built, valgrind, vg_in_place


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s (run the README's setup)" % BUILD)


def _newer(exe, *srcs):
    return os.path.exists(exe) and all(os.path.getmtime(s) <= os.path.getmtime(exe) for s in srcs)


def build_bank():
    """spec_bank at -O2 (tail calls are jumps there), linked to
    libspecbank.so for the PLT case."""
    os.makedirs(OUT, exist_ok=True)
    lib_src = os.path.join(PROGS, "spec_banklib.c")
    lib = os.path.join(OUT, "libspecbank.so")
    if not _newer(lib, lib_src):
        subprocess.run(["cc", "-g", "-O2", "-shared", "-fPIC", "-o", lib, lib_src], check=True)
    return compile_prog("spec_bank", extra=["-O2", "-L" + OUT, "-lspecbank",
                                            "-Wl,-rpath," + OUT], suffix="-O2")


def build_throw():
    src = os.path.join(PROGS, "spec_throw.cpp")
    exe = os.path.join(OUT, "spec_throw")
    hdr = os.path.join(REPO, "atomgrind", "atomgrind.h")
    if not _newer(exe, src, hdr):
        os.makedirs(OUT, exist_ok=True)
        subprocess.run(["c++", "-g", "-O2", "-pthread", "-I", os.path.join(REPO, "atomgrind"),
                        "-o", exe, src], check=True)
    return exe


CALL = r"The atomic region \(call of %s\) of thread #1 began at\n\s+at 0x[0-9A-F]+: %s "


class FunctionRegions(unittest.TestCase):
    """spec_bank: the known violation is found through every way of
    entering and leaving the call, and the locked variant stays clean."""

    @classmethod
    def setUpClass(cls):
        cls.exe = build_bank()

    def run_mode(self, mode, *opts):
        return valgrind(self.exe, *opts, args=[mode])

    def assert_found(self, r, fn):
        self.assertEqual(r.atomicity, 1, r)
        self.assertEqual(r.errors, 1, r)
        self.assertRegex(r.text, CALL % (fn, fn), r)

    def test_plain_call(self):
        self.assert_found(self.run_mode("plain", "--atomic-fns=withdraw"), "withdraw")

    def test_locked_variant_is_clean(self):
        r = self.run_mode("locked", "--atomic-fns=withdraw")
        self.assertEqual(r.errors, 0, r)
        self.assertNotIn("no atomic region was entered", r.text)

    def test_without_a_spec_nothing_is_checked_and_it_says_so(self):
        r = self.run_mode("plain")
        self.assertEqual(r.errors, 0, r)
        self.assertIn("no atomic region was entered", r.text)
        self.assertIn("--atomic-fns=", r.text)

    def test_all_leaves_out_main_and_start_routines(self):
        # main and depositor (a start routine) would each hold the whole
        # run in one region: the report would blame them, not withdraw
        self.assert_found(self.run_mode("plain", "--atomic-fns=all"), "withdraw")

    def test_exclusion_wins(self):
        r = self.run_mode("plain", "--atomic-fns=withdr*,!withdraw")
        self.assertEqual(r.errors, 0, r)

    def test_tail_call_stays_inside(self):
        # withdraw_tail jumps to finish_withdraw, which does the write
        self.assert_found(self.run_mode("tail", "--atomic-fns=withdraw_tail"), "withdraw_tail")

    def test_first_region_while_another_thread_is_in_a_request(self):
        # this seed opened the run's first region while the depositor was
        # parked inside a client request: the core then allows discards,
        # the region's own superblock was discarded under it, and its read
        # of balance went unanalysed (the lost update happened, 0 reports)
        self.assert_found(self.run_mode("tail", "--atomic-fns=withdraw_tail",
                                        "--sched-seed=34408668"), "withdraw_tail")

    def test_recursion_outermost_call_counts(self):
        # the inner calls return before the outermost call writes
        self.assert_found(self.run_mode("recurse", "--atomic-fns=withdraw_rec"), "withdraw_rec")

    def test_signal_handler_returns_inside(self):
        # on_signal, atomic too, runs and returns inside withdraw_sig
        self.assert_found(self.run_mode("signal", "--atomic-fns=withdraw_sig,on_signal"),
                          "withdraw_sig")

    def test_shared_library_through_plt(self):
        self.assert_found(self.run_mode("plt", "--atomic-fns=lib_withdraw"), "lib_withdraw")

    def test_code_runs_uninstrumented_until_the_first_call(self):
        # the floor holds with a spec too: accesses are instrumented from
        # withdraw's first call on, when every translation is discarded once
        # (the call's own first block runs again, instrumented: the other
        # tests find the violation its read begins)
        r = self.run_mode("plain", "--atomic-fns=withdraw", "--stats=yes")
        self.assert_found(r, "withdraw")
        m = re.search(r"transtab: discarded\s+([\d,]+)", r.text)
        self.assertIsNotNone(m, r)
        self.assertGreater(int(m.group(1).replace(",", "")), 100, r)

    def test_sp_rises_cost_nothing_while_no_frame_is_open(self):
        # frames are tracked in both runs (atomicity is checked), but SP's
        # rises reach the tool only while some frame is open: none without
        # a spec, though the program returns from hundreds of calls
        counts = []
        for opts in ([], ["--atomic-fns=withdraw"]):
            r = self.run_mode("plain", "--stats=yes", *opts)
            m = re.search(r"frames: (\d+) rises of SP checked", r.text)
            self.assertIsNotNone(m, r)
            counts.append(int(m.group(1)))
        self.assertEqual(counts[0], 0)
        self.assertGreater(counts[1], 0)

    def test_longjmp_ends_the_call(self):
        r = self.run_mode("longjmp", "--atomic-fns=withdraw_jump")
        self.assertEqual(r.errors, 0, r)
        # --check-stack-var=yes tracks frames with the core's die_mem_stack
        # instead of the tool's own test in the IR
        r = self.run_mode("longjmp", "--atomic-fns=withdraw_jump", "--check-stack-var=yes")
        self.assertEqual(r.errors, 0, r)
        # without frame tracking the region would stay open: the control
        r = self.run_mode("longjmp", "--atomic-fns=withdraw_jump", "--track-frames=no")
        self.assertEqual(r.atomicity, 1, r)

    def test_entry_yield_interleaves_calls(self):
        # no sleep or syscall inside withdraw_tight: the violation shows
        # only because the thread gives way after entering the call
        # (the scheduler may preempt it at the call's entry: ag_sched_region_enter)
        r = self.run_mode("tight", "--atomic-fns=withdraw_tight")
        self.assertGreater(r.atomicity, 0, r)

    def test_spec_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".spec", delete=False) as f:
            f.write("# the account\n\nwithdraw   # the racy one\n!audit\n")
        try:
            self.assert_found(self.run_mode("plain", "--atomic-spec=" + f.name), "withdraw")
        finally:
            os.unlink(f.name)


class Exceptions(unittest.TestCase):
    """spec_throw: a C++ exception leaves the region; main's later
    read-wait-write, outside any region, must not be reported."""

    @classmethod
    def setUpClass(cls):
        cls.exe = build_throw()

    def test_call_left_by_exception(self):
        for opts in ([], ["--check-stack-var=yes"]):    # the tool's SP test, the core's
            r = valgrind(self.exe, "--atomic-fns=withdraw_throw", *opts, args=["spec"])
            self.assertEqual(r.errors, 0, r)
        r = valgrind(self.exe, "--atomic-fns=withdraw_throw", "--track-frames=no", args=["spec"])
        self.assertEqual(r.atomicity, 1, r)
        self.assertRegex(r.text, r"\(call of withdraw_throw\(int\)\)", r)

    def test_marked_region_abandoned_is_a_misuse(self):
        r = valgrind(self.exe, args=["marker"])      # frames are tracked by default
        self.assertEqual((r.atomicity, r.misuse, r.errors), (0, 1, 1), r)
        self.assertRegex(r.text, r"(?m)^Atomic region abandoned by a longjmp or an exception "
                         r"\(closed here\); it began at 0x[0-9A-F]+: withdraw_marked\(int\) "
                         r"\(spec_throw.cpp:\d+\)", r)
        # today's behaviour without frames: the region stays open
        r = valgrind(self.exe, "--track-frames=no", args=["marker"])
        self.assertGreater(r.atomicity, 0, r)

    def test_scope_helper_ends_with_the_scope(self):
        r = valgrind(self.exe, args=["scope"])
        self.assertEqual(r.errors, 0, r)

    def test_markers_and_spec_combine(self):
        # the call's region and the scope's nest; the exception ends both
        r = valgrind(self.exe, "--atomic-fns=withdraw_scoped", args=["scope"])
        self.assertEqual(r.errors, 0, r)
        self.assertNotIn("no atomic region was entered", r.text)


class Inference(unittest.TestCase):
    def test_infer_converges_to_a_clean_spec(self):
        exe = build_bank()
        with tempfile.TemporaryDirectory() as d:
            spec = os.path.join(d, "bank.spec")
            p = subprocess.run([os.path.join(REPO, "atomgrind-infer"), "--spec=" + spec,
                                "--", exe, "loop"], capture_output=True, text=True,
                               env=dict(os.environ, AG_BUILD=BUILD), timeout=600)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            m = re.search(r"fixpoint after (\d+) run\(s\): (\d+) function\(s\) at start, "
                          r"(\d+) atomic at the end, (\d+) violation\(s\) found", p.stdout)
            self.assertIsNotNone(m, p.stdout)
            start, end, found = int(m.group(2)), int(m.group(3)), int(m.group(4))
            self.assertGreater(found, 0, p.stdout)
            self.assertLess(end, start, p.stdout)
            text = open(spec).read()
            names = [l for l in text.splitlines() if l and not l.startswith("#")]
            self.assertEqual(names, ["all", "!withdraw_fast"], text)
            self.assertIn("# dropped in run 1: withdraw_fast", text)
            r = valgrind(exe, "--atomic-spec=" + spec, args=["loop"])
            self.assertEqual(r.errors, 0, r)


    def test_callees_of_a_dropped_function_stay_in_the_spec(self):
        # one call of teller holds all of withdraw_fast's and audit's, so
        # in the first run only teller's call is an outermost region, and
        # dropping it does not end the call; the refined spec must still
        # hold its callees (they used to be left out, and the next run
        # checked nothing), and the next run drops withdraw_fast, keeps audit
        exe = build_bank()
        with tempfile.TemporaryDirectory() as d:
            spec = os.path.join(d, "nested.spec")
            p = subprocess.run([os.path.join(REPO, "atomgrind-infer"), "--spec=" + spec,
                                "--", exe, "nested"], capture_output=True, text=True,
                               env=dict(os.environ, AG_BUILD=BUILD), timeout=600)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            text = open(spec).read()
            names = [l for l in text.splitlines() if l and not l.startswith("#")]
            self.assertIn("# dropped in run 1: teller", text)
            self.assertIn("# dropped in run 2: withdraw_fast", text)
            self.assertIn("!withdraw_fast", names)
            self.assertNotIn("!audit", names)

    def test_dropped_at_a_lock_says_where_in_the_program(self):
        # the cycle closes at the second lock of withdraw_split: the spec's
        # comment names that call, not the lock event's stack record (was
        # '0x...: ???') nor atomgrind's pthread wrapper
        exe = build_bank()
        with tempfile.TemporaryDirectory() as d:
            spec = os.path.join(d, "split.spec")
            r = valgrind(exe, "--atomic-fns=withdraw_split", "--infer-spec=" + spec,
                         args=["split"])
            self.assertGreater(r.errors, 0, r)
            text = open(spec).read()
            self.assertIn("# dropped: withdraw_split", text)
            at = re.search(r"^#   at (.*)$", text, re.M)
            self.assertIsNotNone(at, text)
            self.assertRegex(at.group(1), r"withdraw_split \(spec_bank\.c:\d+\)", text)


class BadSpecs(unittest.TestCase):
    def check_bad(self, text, lineno, what):
        with tempfile.NamedTemporaryFile("w", suffix=".spec", delete=False) as f:
            f.write(text)
        try:
            p = vg_in_place("--tool=atomgrind", "--atomic-spec=" + f.name, "/bin/true")
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn("%s:%d: %s" % (f.name, lineno, what), p.stdout)
        finally:
            os.unlink(f.name)

    def test_infer_on_a_missing_program(self):
        # a clear message and exit 1, not a traceback
        p = subprocess.run([os.path.join(REPO, "atomgrind-infer"), "--", "/nonexistent/prog"],
                           capture_output=True, text=True, env=dict(os.environ, AG_BUILD=BUILD))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("atomgrind-infer: valgrind did not run /nonexistent/prog", p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_two_names_on_a_line(self):
        self.check_bad("# ok\nwithdraw\nwithdraw deposit\n", 3, "two words on one line")

    def test_bang_alone(self):
        self.check_bad("!\n", 1, "'!' without a pattern")

    def test_unbalanced(self):
        self.check_bad("\n\nA::f(int\n", 3, "unbalanced '('")

    def test_not_all(self):
        self.check_bad("all\n!all\n", 2, "'!all' would exclude everything")

    def test_cxx_names_are_fine(self):
        with tempfile.NamedTemporaryFile("w", suffix=".spec", delete=False) as f:
            f.write("std::vector<int, std::allocator<int> >::push_back(int const&)\n"
                    "Account::withdraw(int) const  # a comment\n"
                    # a template function's return type, a clone suffix
                    # (pbzip2's spec as --infer-spec wrote it was rejected)
                    "bool ends_with_icase<char>(std::string const&) [clone .isra.0]\n")
        try:
            p = vg_in_place("--tool=atomgrind", "-q", "--atomic-spec=" + f.name, "/bin/true")
            self.assertEqual(p.returncode, 0, p.stdout)
        finally:
            os.unlink(f.name)

    def test_missing_file(self):
        p = vg_in_place("--tool=atomgrind", "--atomic-spec=/nonexistent/x.spec", "/bin/true")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("--atomic-spec: cannot open '/nonexistent/x.spec'", p.stdout)

    def test_bad_option_pattern(self):
        p = vg_in_place("--tool=atomgrind", "--atomic-fns=withdraw,!", "/bin/true")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("--atomic-fns: bad pattern '!'", p.stdout)


if __name__ == "__main__":
    unittest.main()
