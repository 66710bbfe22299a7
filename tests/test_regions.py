"""One owner of atomic regions (issue 29) and inlined instances of atomic
functions as regions (issue 33).

ag_regions.c alone opens and closes regions for the engines and the
scheduler, so their depths agree: a marked region left by a longjmp ends
for both (the scheduler's count of regions at exit shows it), and each
thread's exit checks the three depths (an internal error otherwise).

Inlined instances: programs built with Debian's flags and at -O3 whose
named functions are inlined (one always_inline), with and without a
violation, through --atomic-fns and --atomic-spec; the exit names the
patterns that checked nothing and why."""
import os
import re
import subprocess
import tempfile
import unittest
from xml.etree import ElementTree

from agtest import OUT, PROGS, REPO, compile_prog, parallel, tool_built, valgrind


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built (run the README's setup)")


def checked(r):
    """(regions, overlapped) from the scheduler's exit line."""
    m = re.search(r"^Checked: (\d+) region\(s\), (\d+) overlapped", r.text, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else None


class LongjmpOutOfMarkedRegion(unittest.TestCase):
    """region_longjmp: main's region is abandoned by a longjmp; its three
    later regions and the worker's are regions of their own, none of
    them overlapped (before: main stayed at depth 1, "Checked: 2
    region(s)")."""

    @classmethod
    def setUpClass(cls):
        cls.exe = compile_prog("region_longjmp")

    def check(self, *opts):
        r = valgrind(self.exe, "-v", *opts)
        # the abandoned region, once (-v lists it again at exit)
        self.assertEqual((r.errors, r.contexts), (1, 1), r)
        self.assertRegex(r.text, r"(?m)^Atomic region abandoned by a longjmp")
        self.assertEqual(r.atomicity, 0, r)
        self.assertEqual(checked(r), (5, 0), r)
        self.assertRegex(r.text, r"(?m)^atomgrind: regions: 5 marked, .*; 0 thread\(s\) exited inside one$")
        self.assertNotIn("depths disagree", r.text)
        return r

    def test_default(self):
        self.check()

    def test_fatal_depth_check(self):
        self.check("--sanity-level=2")

    def test_pct(self):
        self.check("--sched=pct", "--sched-seed=3")

    def test_native(self):
        self.check("--sched=native")


def debian_cflags():
    """Debian's CFLAGS (dpkg-buildflags), the file-prefix map left out."""
    try:
        out = subprocess.run(["dpkg-buildflags", "--get", "CFLAGS"], capture_output=True,
                             text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = ["-g", "-O2", "-fstack-protector-strong"]
    return [f for f in out if not f.startswith("-ffile-prefix-map")]


def defined_functions(exe):
    out = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    return {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in "tT"}


def regions_line(r):
    m = re.search(r"^atomgrind: regions: (\d+) marked, (\d+) call\(s\) of atomic functions, "
                  r"(\d+) inlined instance\(s\)", r.text, re.M)
    return tuple(int(g) for g in m.groups()) if m else None


class InlineBankChecks:
    """What holds for inline_bank however it was built (the classes below
    give exes, {opt: binary}, and run_mode(opt, mode, via, *opts)): the
    clean modes are clean with one region each, and the bug is reported
    at every seed under both schedulers."""

    def test_clean_variants(self):
        for opt in self.exes:
            for via in ("fns", "spec"):
                for mode in ("ok", "ok_ai"):
                    with self.subTest(opt=opt, via=via, mode=mode):
                        r = self.run_mode(opt, mode, via)
                        self.assertEqual((r.errors, r.atomicity), (0, 0), r)
                        self.assertEqual(checked(r), (1, 1), r)
                        self.assertEqual(regions_line(r), (0, 0, 1), r)

    def test_every_seed(self):
        for seed in (1, 2, 3):
            for sched in ("random", "pct"):
                with self.subTest(seed=seed, sched=sched):
                    r = self.run_mode("O2", "bug", "fns", "--sched=" + sched,
                                      "--sched-seed=%d" % seed)
                    self.assertEqual((r.errors, r.contexts), (1, 1), r)


class InlinedAtomicFunctions(InlineBankChecks, unittest.TestCase):
    """inline_bank built with Debian's flags (-O2), at -O3 and -O1: withdraw and
    deposit (always_inline) leave no symbol, and each inlined instance is a
    region: the interleaved write is reported in every run, the clean
    variants give zero errors.  Without inline regions these runs entered
    no region at all."""

    @classmethod
    def setUpClass(cls):
        cls.exes = {"O2": compile_prog("inline_bank", extra=debian_cflags(), suffix="-deb"),
                    "O3": compile_prog("inline_bank", extra=["-O3"], suffix="-O3"),
                    "O1": compile_prog("inline_bank", extra=["-O1"], suffix="-O1")}
        cls.spec = tempfile.NamedTemporaryFile("w", suffix=".spec", delete=False)
        cls.spec.write("# the bank's atomic functions\nwithdraw\ndeposit\n")
        cls.spec.close()

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.spec.name)

    def test_functions_are_inlined(self):
        for opt, exe in self.exes.items():
            fns = defined_functions(exe)
            self.assertNotIn("withdraw", fns, opt)
            self.assertNotIn("deposit", fns, opt)
            self.assertIn("teller", fns, opt)

    def run_mode(self, opt, mode, via, *opts):
        spec = "--atomic-fns=withdraw,deposit" if via == "fns" else "--atomic-spec=" + self.spec.name
        return valgrind(self.exes[opt], spec, "-v", *opts, args=[mode])

    def test_violation_reported(self):
        for opt in self.exes:
            for via in ("fns", "spec"):
                for mode, fn, thread_fn in (("bug", "withdraw", "teller"),
                                            ("bug_ai", "deposit", "teller_ai")):
                    with self.subTest(opt=opt, via=via, mode=mode):
                        r = self.run_mode(opt, mode, via)
                        self.assertEqual((r.errors, r.contexts, r.atomicity), (1, 1, 2), r)
                        # the region names the inlined function and its caller
                        self.assertRegex(r.text, r"The atomic region \(call of %s\) of thread #2 "
                                         r"began at\n\s+at 0x[0-9A-F]+: %s \(inline_bank.c:\d+\)\n"
                                         r"\s+by 0x[0-9A-F]+: %s \(inline_bank.c:\d+\)"
                                         % (fn, fn, thread_fn))
                        self.assertEqual(regions_line(r), (0, 0, 1), r)
                        self.assertNotIn("depths disagree", r.text)

    def test_xml(self):
        with tempfile.NamedTemporaryFile("r", suffix=".xml") as xf:
            valgrind(self.exes["O2"], "--atomic-fns=withdraw", "--xml=yes",
                     "--xml-file=" + xf.name, args=["bug"])
            xml = xf.read()
        self.assertEqual(xml.count("<error>"), 1, xml)
        self.assertIn("<fn>withdraw</fn>", xml)

    def test_O0_unchanged(self):
        """Not inlined at -O0: the calls are regions, as before."""
        exe = compile_prog("inline_bank")
        self.assertIn("withdraw", defined_functions(exe))
        r = valgrind(exe, "--atomic-fns=withdraw,deposit", "-v", args=["bug"])
        self.assertEqual((r.errors, r.contexts), (1, 1), r)
        self.assertEqual(regions_line(r), (0, 1, 0), r)
        r = valgrind(exe, "--atomic-fns=withdraw,deposit", "-v", args=["ok"])
        self.assertEqual(r.errors, 0, r)
        self.assertEqual(regions_line(r), (0, 1, 0), r)


class PatternsThatCheckNothing(unittest.TestCase):
    """At exit each pattern under which no region ran is named with the
    reason, and the warning that nothing was checked does not repeat the
    advice to name functions."""

    @classmethod
    def setUpClass(cls):
        cls.exe = compile_prog("inline_bank", extra=debian_cflags(), suffix="-deb")

    def test_reasons(self):
        r = valgrind(self.exe, "--atomic-fns=withdraw,nosuch_fn,never_called,Bank::nosuch",
                     args=["ok"])
        self.assertEqual(r.errors, 0, r)
        self.assertIn("atomgrind: --atomic-fns: 'nosuch_fn' checked nothing: no such function", r.text)
        self.assertIn("atomgrind: --atomic-fns: 'Bank::nosuch' checked nothing: no such function", r.text)
        self.assertIn("atomgrind: --atomic-fns: 'never_called' checked nothing: never_called is "
                      "defined but was never called", r.text)
        self.assertNotIn("'withdraw' checked nothing", r.text)
        self.assertNotIn("WARNING: no atomic region", r.text)

    def test_spec_lines_and_warning(self):
        with tempfile.NamedTemporaryFile("w", suffix=".spec") as f:
            f.write("nosuch_fn\nnever_called\n")
            f.flush()
            r = valgrind(self.exe, "--atomic-spec=" + f.name, args=["ok"])
        self.assertIn("atomgrind: %s:1: 'nosuch_fn' checked nothing: no such function" % f.name, r.text)
        self.assertIn("atomgrind: %s:2: 'never_called' checked nothing: never_called is defined "
                      "but was never called" % f.name, r.text)
        self.assertIn("WARNING: no atomic region was entered", r.text)
        self.assertIn("No function named by --atomic-fns/--atomic-spec ran", r.text)
        self.assertNotIn("name atomic functions", r.text)

    def test_unnamed_warning_keeps_its_advice(self):
        r = valgrind(self.exe, args=["ok"])
        self.assertIn("Mark regions with ATOMGRIND_ATOMIC_BEGIN/END, or name atomic functions", r.text)


def compile_cxx(name, extra, suffix, cxx="c++"):
    """Compile tests/progs/NAME.cpp with cxx (once) and return the binary."""
    src = os.path.join(PROGS, name + ".cpp")
    exe = os.path.join(OUT, os.path.basename(name) + suffix)
    deps = [src, os.path.join(PROGS, "common.h")]
    if not os.path.exists(exe) or os.path.getmtime(exe) < max(map(os.path.getmtime, deps)):
        os.makedirs(OUT, exist_ok=True)
        subprocess.run([cxx, "-g", "-pthread", "-I", os.path.join(REPO, "atomgrind"),
                        "-o", exe, src, *extra], check=True)
    return exe


# the region names the inlined function and, on the next line, its caller
BEGAN = (r"The atomic region \(call of %s\) of thread #2 began at\n"
         r"\s+at 0x[0-9A-F]+: %s \(%s:\d+\)\n"
         r"\s+by 0x[0-9A-F]+: %s \(%s:\d+\)")


class LinkTimeOptimisation(InlineBankChecks, unittest.TestCase):
    """inline_bank built with -flto at -O2 and -O3: GCC keeps the inlined
    functions' DWARF in the compile-time unit and refers to it from the
    link-time one, which Valgrind 3.19's reader does not follow (its
    inlined frames are "UnknownInlinedFun").  atomgrind-inlines (libdw)
    names them, so each inlined instance is a region as without -flto:
    the same verdicts as InlinedAtomicFunctions.  Before it, these runs
    entered no region ("checked nothing ... link-time optimisation")."""

    @classmethod
    def setUpClass(cls):
        cls.exes = {"O2": compile_prog("inline_bank", extra=["-flto", "-O2"], suffix="-lto"),
                    "O3": compile_prog("inline_bank", extra=["-flto", "-O3"], suffix="-lto-O3")}
        cls.spec = tempfile.NamedTemporaryFile("w", suffix=".spec", delete=False)
        cls.spec.write("withdraw\ndeposit\n")
        cls.spec.close()

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.spec.name)

    def run_mode(self, opt, mode, via="fns", *opts, env=None):
        spec = "--atomic-fns=withdraw,deposit" if via == "fns" else "--atomic-spec=" + self.spec.name
        return valgrind(self.exes[opt], spec, "-v", *opts, args=[mode], env=env)

    def test_functions_are_inlined(self):
        for opt, exe in self.exes.items():
            fns = defined_functions(exe)
            self.assertNotIn("withdraw", fns, opt)
            self.assertNotIn("deposit", fns, opt)
            self.assertIn("teller", fns, opt)
            r = valgrind(exe, "--atomic-fns=teller", "-v", "--read-inline-info=yes", args=["ok"])
            self.assertIn("cross-CU LIMITATION", r.text, opt)

    def test_violation_reported(self):
        for opt in self.exes:
            for via in ("fns", "spec"):
                for mode, fn, thread_fn in (("bug", "withdraw", "teller"),
                                            ("bug_ai", "deposit", "teller_ai")):
                    with self.subTest(opt=opt, via=via, mode=mode):
                        r = self.run_mode(opt, mode, via)
                        self.assertEqual((r.errors, r.contexts, r.atomicity), (1, 1, 2), r)
                        self.assertRegex(r.text, BEGAN % (fn, fn, "inline_bank.c", thread_fn,
                                                          "inline_bank.c"))
                        self.assertEqual(regions_line(r), (0, 0, 1), r)
                        self.assertNotIn("cannot read", r.text)
                        self.assertNotIn("depths disagree", r.text)

    def test_stacks_name_the_frames(self):
        """Every stack of the report, in text and in XML, names the inlined
        frames (Valgrind's own printer says UnknownInlinedFun: ag_stacks.c
        prints these stacks); the thread announcement's spawn too."""
        r = self.run_mode("O2", "bug")
        self.assertNotIn("UnknownInlinedFun (", r.text)
        self.assertRegex(r.text, r"by 0x[0-9A-F]+: spawn \(common.h:\d+\)\n"
                                 r"\s+by 0x[0-9A-F]+: main \(inline_bank.c:\d+\)")
        self.assertRegex(r.text, r"Atomicity violation: .*\n\s+at 0x[0-9A-F]+: withdraw "
                                 r"\(inline_bank.c:\d+\)\n\s+by 0x[0-9A-F]+: teller ")
        with tempfile.NamedTemporaryFile("r", suffix=".xml") as xf:
            valgrind(self.exes["O2"], "--atomic-fns=withdraw", "--xml=yes",
                     "--xml-file=" + xf.name, args=["bug"])
            xml = xf.read()
        ElementTree.fromstring(xml)
        self.assertEqual(xml.count("<error>"), 1, xml)
        self.assertEqual(xml.count("<fn>withdraw</fn>"), 2, xml)
        self.assertNotIn("UnknownInlinedFun", xml)

    def test_all(self):
        """--atomic-fns=all: each inlined copy is a region of its own
        function (before: every unnamed copy was one function,
        "UnknownInlinedFun", for the report and for inference)."""
        r = valgrind(self.exes["O2"], "--atomic-fns=all", args=["bug"])
        self.assertGreaterEqual(r.atomicity, 1, r)
        self.assertRegex(r.text, BEGAN % ("withdraw", "withdraw", "inline_bank.c", "teller",
                                          "inline_bank.c"))
        self.assertNotIn("call of UnknownInlinedFun", r.text)

    def test_helper_runs_once_for_the_program_only(self):
        """Run lazily, once, for the object with unnamed frames (not libc,
        not the preloads): --stats counts one object."""
        r = self.run_mode("O2", "bug", "fns", "--stats=yes")
        self.assertEqual(r.text.count("atomgrind: reading the inlined copies of "), 1, r)
        self.assertRegex(r.text, r"(?m)^atomgrind: reading the inlined copies of \S+inline_bank-lto: ")
        self.assertRegex(r.text, r"(?m)^atomgrind: inline names: 1 of 1 object\(s\) read by "
                                 r"atomgrind-inlines, \d+ range\(s\), [1-9]\d* frame\(s\) named, 0 not$")

    def test_without_lto_entries_only(self):
        """A program built without -flto has no unnamed frame: the helper
        runs once, for the program (where the copies of withdraw are), to
        find where copies begin (UnrolledCalls); it names nothing."""
        exe = compile_prog("inline_bank", extra=debian_cflags(), suffix="-deb")
        r = valgrind(exe, "--atomic-fns=withdraw", "-v", "--stats=yes", args=["bug"])
        self.assertEqual((r.errors, r.contexts), (1, 1), r)
        self.assertEqual(r.text.count("atomgrind: reading the inlined copies of "), 1, r)
        self.assertRegex(r.text, r"(?m)^atomgrind: inline names: 1 of 1 object\(s\) read by "
                                 r"atomgrind-inlines, \d+ range\(s\), 0 frame\(s\) named, 0 not$")
        r = valgrind(exe, "--atomic-fns=nothing_inlined", "-v", args=["bug"])
        self.assertNotIn("reading the inlined copies", r.text)

    def test_separate_debug_file(self):
        """The debug information in a separate file (.gnu_debuglink), as
        distributions ship it: named as well."""
        exe = self.exes["O2"] + "-split"
        subprocess.run(["cp", self.exes["O2"], exe], check=True)
        subprocess.run(["objcopy", "--only-keep-debug", exe, exe + ".debug"], check=True)
        subprocess.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + exe + ".debug", exe],
                       check=True)
        r = valgrind(exe, "--atomic-fns=withdraw", "-v", args=["bug"])
        self.assertEqual((r.errors, r.contexts), (1, 1), r)
        self.assertEqual(regions_line(r), (0, 0, 1), r)

    def test_not_inlined_function_still_checked(self):
        """teller (a thread's start routine, not inlined) named exactly is a
        region under LTO too: the bug inside it is reported."""
        r = valgrind(self.exes["O2"], "--atomic-fns=teller", args=["bug"])
        self.assertGreaterEqual(r.atomicity, 1, r)

    def check_fallback(self, env, why):
        r = self.run_mode("O2", "bug", "fns", env=env)
        self.assertEqual(r.errors, 0, r)
        self.assertIn("'withdraw' checked nothing: no such function among those the debug "
                      "info names; some code that ran is inlined from functions whose names "
                      "Valgrind cannot read (link-time optimisation keeps them in another "
                      "unit) and " + why, r.text)
        self.assertIn("build without -flto, or mark the region in the source", r.text)
        self.assertIn("No function named by --atomic-fns/--atomic-spec ran", r.text)

    def test_helper_missing(self):
        """Without the helper (ATOMGRIND_INLINES names its path), the exit
        says why nothing was checked and what to do, as before it."""
        self.check_fallback({"ATOMGRIND_INLINES": "/nonexistent/atomgrind-inlines"},
                            "atomgrind-inlines, which reads those names, is not installed "
                            "(/nonexistent/atomgrind-inlines): ")

    def test_helper_disabled(self):
        self.check_fallback({"ATOMGRIND_INLINES": ""},
                            "ATOMGRIND_INLINES is set empty, so atomgrind-inlines was not run: ")

    def test_helper_fails(self):
        """A helper that fails (here: prints nothing) is no crash: the same
        explanation."""
        self.check_fallback({"ATOMGRIND_INLINES": "/bin/true"},
                            "atomgrind-inlines could not read the debug information of ")


class LinkTimeOptimisationCxx(unittest.TestCase):
    """inline_account.cpp: a C++ member function inlined at -O2, with and
    without -flto, by Clang, and out of line at -O0: one pattern names it
    in every build, bare, with its class, or fully as a spec inferred at
    -O0 writes it (the helper gives inlined copies their full names, which
    Valgrind does not), and the reports name it so.  Before, the Clang
    build checked nothing ("no such function")."""

    @classmethod
    def setUpClass(cls):
        cls.exes = {"O2": compile_cxx("inline_account", ["-O2"], "-O2"),
                    "lto": compile_cxx("inline_account", ["-O2", "-flto"], "-lto"),
                    "O0": compile_cxx("inline_account", ["-O0"], "-O0"),
                    # Clang's DWARF 5, whose inline records Valgrind 3.19
                    # does not read: the helper's frames stand in
                    "clang": compile_cxx("inline_account", ["-O2"], "-clang", "clang++")}

    def test_refcounts_under_lto(self):
        """atomics/sp_regions.cpp with -flto: the standard library's inlined
        reference-count updates are told apart by their functions' names
        (ag_provenance.c), which only atomgrind-inlines can read here.  An
        atomic function copying and dropping a shared_ptr, locking a
        weak_ptr: clean (47-50 reports in 7-12 contexts with the helper off);
        the real snapshot bug: still reported."""
        exe = compile_cxx(os.path.join("atomics", "sp_regions"), ["-O2", "-flto"], "-lto")
        for mode in ("copy_drop", "weak_lock", "locale"):
            for seed in (1, 2):
                with self.subTest(mode=mode, seed=seed):
                    r = valgrind(exe, "--atomic-fns=use", "--sched-seed=%d" % seed, args=[mode])
                    self.assertEqual(r.errors, 0, r)
                    self.assertGreater(checked(r)[0], 0, r)
        r = valgrind(exe, "--atomic-fns=use", "--sched-seed=1", args=["snapshot"])
        self.assertGreaterEqual(r.atomicity, 1, r)
        self.assertNotIn("_M_release", r.text)

    def test_inlined(self):
        for build in ("O2", "lto", "clang"):
            self.assertFalse([f for f in defined_functions(self.exes[build]) if "withdraw" in f])

    def test_same_verdicts(self):
        """Before, "Account::withdraw" checked nothing at -O2 ("no such
        function") and at -O0 ("defined but was never called"), and
        "withdraw" checked nothing at -O0."""
        for build, exe in self.exes.items():
            for pat in ("withdraw", "Account::withdraw", "bank::Account::withdraw(int)"):
                with self.subTest(build=build, pattern=pat):
                    r = valgrind(exe, "--atomic-fns=" + pat, "-v", args=["bug"])
                    self.assertEqual((r.errors, r.contexts, r.atomicity), (1, 1, 2), r)
                    if build == "clang":     # Valgrind's stacks have no inlined frames
                        self.assertRegex(r.text, r"The atomic region \(call of bank::Account::"
                                         r"withdraw\(int\)\) of thread #2 began at\n\s+at "
                                         r"0x[0-9A-F]+: teller\(void\*\) \(inline_account.cpp")
                    else:
                        self.assertRegex(r.text, BEGAN % (r"bank::Account::withdraw\(int\)",
                                                          r"(bank::Account::)?withdraw(\(int\))?",
                                                          "inline_account.cpp", r"teller\(void\*\)",
                                                          "inline_account.cpp"))
                    self.assertEqual(regions_line(r), (0, 0, 1) if build != "O0" else (0, 1, 0), r)
                    self.assertNotIn("checked nothing", r.text)
            with self.subTest(build=build, args="ok"):
                r = valgrind(exe, "--atomic-fns=Account::withdraw", "-v", args=["ok"])
                self.assertEqual((r.errors, r.atomicity), (0, 0), r)
                self.assertEqual(regions_line(r), (0, 0, 1) if build != "O0" else (0, 1, 0), r)

    def test_other_scopes(self):
        """A scope the function is not in, or "::" (the global scope's
        only), names nothing, and the exit says so."""
        for build in ("O2", "O0"):
            for pat in ("Teller::withdraw", "::withdraw"):
                with self.subTest(build=build, pattern=pat):
                    r = valgrind(self.exes[build], "--atomic-fns=" + pat, args=["bug"])
                    self.assertEqual(r.errors, 0, r)
                    self.assertIn("'%s' checked nothing: no such function" % pat, r.text)


class CxxNames(unittest.TestCase):
    """inline_scopes.cpp, at -O0 (out of line) and -O2 (inlined, the
    function template and the anonymous namespace's class without mangled
    names): a class template's member, a function template and an
    anonymous namespace's member function are named by their bare names,
    with their class or template arguments, and in full.  Each run names
    all three, one call each; a pattern that names nothing says so at
    exit.  Before, only the bare names and the full names at -O0 named
    anything."""

    FORMS = {"bare": "push,twice,deposit",
             "class": "Stack::push,twice<int>,Account::deposit",
             "full": "ds::Stack<int>::push(int),::twice,(anonymous namespace)::Account::deposit"}

    @classmethod
    def setUpClass(cls):
        cls.exes = {o: compile_cxx("inline_scopes", ["-" + o], "-" + o) for o in ("O0", "O2")}
        cls.exes["clang"] = compile_cxx("inline_scopes", ["-O2"], "-clang", "clang++")

    def test_forms(self):
        for build, exe in self.exes.items():
            for form, pats in self.FORMS.items():
                with self.subTest(build=build, form=form):
                    r = valgrind(exe, "--atomic-fns=" + pats, "-v")
                    self.assertNotIn("checked nothing", r.text)
                    calls, inlined = regions_line(r)[1:]
                    # GCC interleaves the three copies: each return to one
                    # is an instance of its own
                    if build != "O0":
                        self.assertEqual(calls, 0, r)
                        self.assertGreaterEqual(inlined, 3, r)
                    else:
                        self.assertEqual((calls, inlined), (3, 0), r)

    def test_other_names(self):
        """Other template arguments, the global scope, another class:
        nothing, and each pattern says so."""
        pats = ("Stack<long>::push", "::deposit", "Bank::deposit")
        for build, exe in self.exes.items():
            with self.subTest(build=build):
                r = valgrind(exe, "--atomic-fns=" + ",".join(pats), "-v")
                self.assertEqual(regions_line(r), (0, 0, 0), r)
                for p in pats:
                    self.assertIn("'%s' checked nothing: no such function" % p, r.text)


class InlinedNestingAndExits(unittest.TestCase):
    """inline_nest (Debian's flags), one thread: inlined instances nest
    (inner inlined into outer), recursion through an inlined copy nests as
    calls do, and a longjmp out of one closes it; every depth agrees at
    exit (fatal with --sanity-level=2)."""

    @classmethod
    def setUpClass(cls):
        cls.exe = compile_prog("inline_nest", extra=debian_cflags(), suffix="-deb")

    def run_mode(self, mode, *opts):
        r = valgrind(self.exe, "-v", "--sanity-level=2", "--atomic-fns=outer,inner,step,jumpy",
                     *opts, args=[mode])
        self.assertEqual(r.errors, 0, r)
        self.assertNotIn("depths disagree", r.text)
        return r

    def test_nested(self):
        r = self.run_mode("nested")          # 3 rounds of outer with inner in it
        self.assertEqual(regions_line(r), (0, 0, 6), r)
        self.assertEqual(checked(r), (3, 0), r)

    def test_recursion_nests(self):
        r = self.run_mode("recurse")         # rec(3): 4 nested copies of step, one region
        self.assertEqual(regions_line(r), (0, 0, 4), r)
        self.assertEqual(checked(r), (1, 0), r)

    def test_longjmp_closes(self):
        # jumpy's region ends at the longjmp; the load -O2 hoisted above the
        # setjmp test runs again after it (a second, short jumpy region);
        # then outer with inner
        r = self.run_mode("longjmp")
        self.assertEqual(regions_line(r), (0, 0, 4), r)
        self.assertEqual(checked(r), (3, 0), r)

    def test_stop_in_gap_keeps_region(self):
        # this seed's scheduler stops the lone thread in a gap (main's code
        # scheduled inside jumpy's): the stop must not split the region
        r = self.run_mode("longjmp", "--sched-seed=499516096")
        self.assertEqual(regions_line(r), (0, 0, 4), r)


class UnrolledCalls(unittest.TestCase):
    """inline_unrolled: withdraw called twice in a loop the compiler
    unrolled completely (-O1, Debian's -O2, -O3, -flto): two copies of one
    inlined call on one line, which the DWARF gives one record.  Each call
    is a region: the deposit made between them is no violation (before: one
    region for both, "Atomicity violation" in every run); the one made
    inside the second call is; a copy whose code lies in two ranges (a cold
    part) is one region."""

    @classmethod
    def setUpClass(cls):
        cls.exes = {"O1": compile_prog("inline_unrolled", extra=["-O1"], suffix="-O1"),
                    "O2": compile_prog("inline_unrolled", extra=debian_cflags(), suffix="-deb"),
                    "O3": compile_prog("inline_unrolled", extra=["-O3"], suffix="-O3"),
                    "lto": compile_prog("inline_unrolled", extra=["-flto", "-O2"], suffix="-lto")}
        cls.entries = {opt: cls.copy_entries(exe) for opt, exe in cls.exes.items()}

    @staticmethod
    def copy_entries(exe):
        """Where atomgrind-inlines says copies of withdraw begin (their
        offsets in a page: the load moves the program by whole pages)."""
        out = subprocess.run([os.path.join(REPO, "build", "atomgrind-inlines"), exe],
                             capture_output=True, text=True, check=True).stdout
        return {int(l.split()[1], 16) & 0xfff for l in out.splitlines()
                if l.startswith("e ") and l.endswith(" withdraw")}

    def run_mode(self, opt, mode, *opts, env=None):
        return valgrind(self.exes[opt], "--atomic-fns=withdraw", "-v", *opts, args=[mode],
                        env=env)

    def test_unrolled(self):
        """withdraw is inlined, the loop unrolled (two lock calls in
        teller), and the second copy's entry is known."""
        for opt, exe in self.exes.items():
            self.assertNotIn("withdraw", defined_functions(exe), opt)
            asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True,
                                 text=True, check=True).stdout
            teller = asm[asm.index("<teller>:"):].split("\n\n")[0]
            self.assertEqual(teller.count("<pthread_mutex_lock@plt>"), 2, opt)
            self.assertTrue(self.entries[opt], opt)

    def began_at_entry(self, r, opt):
        m = re.search(r"The atomic region \(call of withdraw\) of thread #2 began at\n"
                      r"\s+at 0x([0-9A-F]+): withdraw \(inline_unrolled.c:\d+\)\n"
                      r"\s+by 0x[0-9A-F]+: teller \(inline_unrolled.c:\d+\)", r.text)
        self.assertIsNotNone(m, r)
        self.assertIn(int(m.group(1), 16) & 0xfff, self.entries[opt], r)

    def test_calls_are_regions(self):
        for opt in self.exes:
            for mode in ("between", "inside", "cold"):
                with self.subTest(opt=opt, mode=mode):
                    r = self.run_mode(opt, mode)
                    self.assertEqual(regions_line(r), (0, 0, 2), r)
                    self.assertEqual(checked(r)[0], 2, r)
                    self.assertNotIn("depths disagree", r.text)
                    if mode == "between":
                        self.assertEqual(r.errors, 0, r)
                        continue
                    # the lock taken again inside the second call, after the
                    # deposit: that call's region, begun at its copy's entry
                    self.assertEqual((r.errors, r.contexts), (1, 1), r)
                    self.assertRegex(r.text, r"Atomicity violation: lock 0x[0-9A-Fa-f]+ acquired "
                                             r"by thread #2 breaks its atomic region")
                    self.began_at_entry(r, opt)
                    # the read before the jump to the cold part is in it
                    self.assertRegex(r.text, r"The read of thread #2 inside its atomic region "
                                             r"was\n\s+at 0x[0-9A-F]+: (withdraw|teller) "
                                             r"\(inline_unrolled.c:41\)")

    def test_every_seed(self):
        for seed in (1, 2, 3):
            for sched in ("random", "pct"):
                for mode, errors in (("between", 0), ("inside", 1)):
                    with self.subTest(seed=seed, sched=sched, mode=mode):
                        r = self.run_mode("O2", mode, "--sched=" + sched, "--sched-seed=%d" % seed)
                        self.assertEqual(r.errors, errors, r)
                        self.assertEqual(regions_line(r), (0, 0, 2), r)

    def test_without_helper(self):
        """Without atomgrind-inlines the copies are told apart by call site
        only: one region for the two calls, and -v says so once."""
        r = self.run_mode("O2", "inside", env={"ATOMGRIND_INLINES": ""})
        self.assertEqual(regions_line(r), (0, 0, 1), r)
        self.assertEqual(r.text.count("are told apart only by their call sites"), 1, r)


class UnrolledByPragma(unittest.TestCase):
    """inline_unroll_pragma: 7 calls of an inlined, locked withdraw in a
    loop unrolled four times (#pragma GCC unroll; the trip count known at
    run time), against 50 locked deposits: serializable at every seed, no
    sleeps.  7 calls are 7 regions (before: 5, and a false "Atomicity
    violation" in 17 of 20 seeds at -O2)."""

    @classmethod
    def setUpClass(cls):
        cls.exes = {"O2": compile_prog("inline_unroll_pragma", extra=debian_cflags(), suffix="-deb"),
                    "O3": compile_prog("inline_unroll_pragma", extra=["-O3"], suffix="-O3")}

    def test_every_seed_clean(self):
        for opt, exe in self.exes.items():
            for sched, seeds in (("random", range(1, 6)), ("pct", range(1, 3))):
                for seed in seeds:
                    with self.subTest(opt=opt, sched=sched, seed=seed):
                        r = valgrind(exe, "--atomic-fns=withdraw", "-v", "--sched=" + sched,
                                     "--sched-seed=%d" % seed)
                        self.assertEqual(r.errors, 0, r)
                        self.assertEqual(regions_line(r), (0, 0, 7), r)


class CopyBeginsBeforeItsEntry(unittest.TestCase):
    """inline_before_entry (Debian's flags): take's first instruction is
    scheduled before its copy's entry, with the caller's code in between.
    It is the same copy: one call, one region (an entry ends only a copy
    that passed its own; before that rule, 2 regions)."""

    def test_one_region(self):
        exe = compile_prog("inline_before_entry", extra=debian_cflags(), suffix="-deb")
        out = subprocess.run([os.path.join(REPO, "build", "atomgrind-inlines"), exe],
                             capture_output=True, text=True, check=True).stdout.splitlines()
        take = [l.split() for l in out if l.endswith(" take")]
        entries = {int(f[1], 16) for f in take if f[0] == "e"}
        self.assertTrue(entries, out)
        # (the layout this test is about: code of the copy before its entry)
        self.assertTrue(any(f[0] != "e" and int(f[0], 16) < min(entries) for f in take), out)
        r = valgrind(exe, "--atomic-fns=take", "-v")
        self.assertEqual(r.errors, 0, r)
        self.assertEqual(regions_line(r), (0, 0, 1), r)

    def test_one_region_whatever_the_schedule(self):
        """The scheduler stopping the worker at the caller's store between
        the copy's first instruction and its entry (a point at its new
        stack's first touch) while main could run: still one region.
        Before, the gap closed there and the entry opened a second one
        (seeds 3, 26 and 29 of 40)."""
        exe = compile_prog("inline_before_entry", extra=debian_cflags(), suffix="-deb")
        seeds = [3, 26, 29] + list(range(1, 14))
        runs = parallel(lambda s: valgrind(exe, "--atomic-fns=take", "-v", "--sched-seed=%d" % s),
                        seeds)
        for seed, r in zip(seeds, runs):
            with self.subTest(seed=seed):
                self.assertEqual(r.errors, 0, r)
                self.assertEqual(regions_line(r), (0, 0, 1), r)


if __name__ == "__main__":
    unittest.main()
