"""Race mode (--check=races) on C11/C++ atomics idioms: tests/progs/atomics/.

Each program runs one idiom per mode, built with -O2 as real code is.  The
verdict is the number of race reports: 0 for correct idioms, at least 1 for
the real races beside atomics.  C11 _Atomic variables are atomic by their
type in the debug information, also where only plain movs touch them (a
ticket lock's "now serving" counter, release/acquire flags).
"""
import os
import subprocess
import unittest

from agtest import OUT, REPO, tool_built, valgrind

PROGS = os.path.join(REPO, "tests", "progs", "atomics")

# ticket_store: its served counter is only ever plain-stored and the
# threads run one after the other (no spin loop waits), but it is an
# atomic_int: atomic by the debug info's type (ag_atomictypes.c)
CLEAN_C = ["mp_seqcst", "mp_relacq", "mp_rmw", "dekker", "tas", "ttas", "ticket", "ticket_store",
           "refcount", "lfstack", "dcl"]
RACY_C = ["race_after", "race_beside", "free_race", "seqlock"]
CLEAN_CXX = ["mp_seqcst", "mp_relacq", "shared_ptr", "flag_lock", "load_store", "call_once",
             "static_local", "dcl"]
# std::atomic loads and stores compiled to plain movs, no spin loop: atomic
# by where their code comes from (ag_provenance.c)
CLEAN_MOVS = ["flag_before", "relaxed_fence", "ptr_publish"]
RACY_MOVS = ["race_after", "plain_flag", "init_race"]
# relacq: plain movs on an _Atomic flag, atomic by the debug info's type
# (ag_atomictypes.c)
CLEAN_C11 = ["seqcst", "counter", "relacq"]
# atomic functions (--atomic-fns=use) over the standard library's
# reference-counted types, at these scheduler seeds
SP_CLEAN = ["copy_drop", "weak_lock", "locale"]
SEEDS = [1, 2, 3]
# C++20's atomic waits: semaphores, latches, barriers, atomic<T>::wait
CLEAN_WAITS = ["semaphore", "latch", "barrier", "atomic_wait"]
SOURCES = {"sp_regions": "sp_regions.cpp", "dcl_regions": "dcl_regions.cpp", "idioms": "idioms.c", "idioms_cxx": "idioms_cxx.cpp", "plain_movs": "plain_movs.cpp",
           "c11_globals": "c11_globals.c", "waits": "waits.cpp"}
# what a source needs beyond the defaults
STD = {"waits.cpp": ["-std=c++20"]}


def build(name, src, compiler):
    os.makedirs(OUT, exist_ok=True)
    exe = os.path.join(OUT, "atomics_" + name + ("_clang" if "clang" in compiler else ""))
    src = os.path.join(PROGS, src)
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run([compiler, "-O2", "-g", "-pthread", *STD.get(os.path.basename(src), []),
                        "-I", os.path.join(REPO, "atomgrind"), "-o", exe, src], check=True)
    return exe


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built")


def races(prog, mode, clang=False):
    src = SOURCES[prog]
    cc = ("clang" if src.endswith(".c") else "clang++") if clang else \
         ("cc" if src.endswith(".c") else "c++")
    return valgrind(build(prog, src, cc), "--check=races", args=[mode])


class Atomics(unittest.TestCase):
    def test_clean_c(self):
        """C11 idioms that synchronise through atomics: no report."""
        for m in CLEAN_C:
            with self.subTest(mode=m):
                r = races("idioms", m)
                self.assertEqual(r.errors, 0, r)

    def test_spin_wait_is_served(self):
        """A reader spinning on a flag while the writer sleeps: Valgrind's
        default pipe lock lets the spinner retake the big lock before the
        woken writer for a minute or more (seen in CI); atomgrind asks for the
        ticket lock, and --fair-sched=no still wins."""
        exe = build("idioms", "idioms.c", "cc")
        for check in ("--check=races", "--check=atomicity"):
            with self.subTest(check=check):
                r = valgrind(exe, "-v", check, args=["mp_rmw"], timeout=60)
                self.assertIn("using ticket lock scheduler lock", r.log)
                self.assertEqual(r.errors, 0, r)
        r = valgrind(exe, "-v", "--fair-sched=no", "--sched=native", args=["dekker"])
        self.assertIn("using generic scheduler lock", r.log)

    def test_clean_cxx(self):
        """shared_ptr, atomic_flag, call_once, function statics, ...: no report."""
        for m in CLEAN_CXX:
            with self.subTest(mode=m):
                r = races("idioms_cxx", m)
                self.assertEqual(r.errors, 0, r)

    def test_real_races_beside_atomics(self):
        """data after the release store, a plain counter beside an atomic one,
        a free racing with a read, relaxed seqlock data: reported."""
        for m in RACY_C:
            with self.subTest(mode=m):
                r = races("idioms", m)
                self.assertGreaterEqual(r.races, 1, r)
        r = races("idioms", "free_race")
        self.assertIn("during free of size", r.text)

    def test_std_atomic_plain_movs(self):
        """std::atomic store(release)/load(acquire), relaxed plus fences and
        atomic<T*> publication, with the reader started after the writer is
        done (no spin loop, no atomic instruction on the flag): clean, since
        the movs come from std::atomic's code.  A write after the release
        store, the same hand-off through a plain bool, and a std::atomic's
        constructor (a plain store) unordered with a later load: reported.
        Clang keeps the flag's release store in no inlined function's code
        (the global split by its optimiser): the flag's type says it is a
        std::atomic (before: flag_before and relaxed_fence, 2 false races
        each under Clang)."""
        for clang in (False, True):
            for m in CLEAN_MOVS:
                with self.subTest(mode=m, clang=clang):
                    self.assertEqual(races("plain_movs", m, clang).races, 0)
            for m in RACY_MOVS:
                with self.subTest(mode=m, clang=clang):
                    r = races("plain_movs", m, clang)
                    self.assertGreaterEqual(r.races, 1, r)
            self.assertIn('data symbol "_ZL4data"', races("plain_movs", "race_after", clang).text)

    def test_plain_before_the_first_atomic(self):
        """A plain `count++` (one add to memory, no LOCK prefix), then
        another thread's first atomic RMW on count with no order between:
        reported under GCC, which compiles no atomic operation to such an
        instruction (ThreadSanitizer's atomic_stack; before: 0 reports, the
        add taken for an atomic one after the fact).  An atomic load, +1
        and an atomic store, which Clang fuses into that same add, then the
        RMW: clean under both compilers (Clang's objects are not trusted
        with the rule).  A block freed, then another thread's atomic RMW on
        it: reported (before: 0, the free's write taken for atomic).  Each
        once: the read and update halves of the racing LOCK instruction
        are one report, as Helgrind and DRD give (before: two)."""
        r = races("idioms", "rmw_before")
        self.assertEqual(r.races, 1, r)
        self.assertIn('data symbol "plain_count"', r.text)
        for clang in (False, True):
            with self.subTest(mode="rmw_fused", clang=clang):
                r = races("idioms", "rmw_fused", clang)
                self.assertEqual(r.races, 0, r)
            with self.subTest(mode="free_atomic", clang=clang):
                r = races("idioms", "free_atomic", clang)
                self.assertEqual(r.races, 1, r)
                self.assertIn("unallocated block", r.text)

    def test_cxx20_waits(self):
        """Data handed over through a binary_semaphore, a latch, a barrier and
        atomic<int>::wait/notify_one: clean, under GCC and Clang.  libstdc++
        loads the word with __atomic builtins in atomic_wait.h (plain movs),
        and its futex calls read it (before: 2 false races on the
        semaphore, the load and the futex call's "write").  Data written
        after the release is still a race."""
        for clang in (False, True):
            for m in CLEAN_WAITS:
                with self.subTest(mode=m, clang=clang):
                    r = races("waits", m, clang)
                    self.assertEqual(r.races, 0, r)
            with self.subTest(mode="race_after", clang=clang):
                r = races("waits", "race_after", clang)
                self.assertGreaterEqual(r.races, 1, r)
                self.assertIn('data symbol "_ZL4data"', r.text)

    def test_c11_atomic_globals(self):
        """_Atomic globals: a seq_cst flag (xchg) tested once by a later
        reader, a counter incremented and read from two threads: clean.
        Built by Clang too, whose DWARF 5 gives the globals' addresses
        through .debug_addr (DW_OP_addrx; before: relacq's flag, 2 false
        races)."""
        for clang in (False, True):
            for m in CLEAN_C11:
                with self.subTest(mode=m, clang=clang):
                    self.assertEqual(races("c11_globals", m, clang).races, 0)
            # the flag's type does not hide a race on the data beside it
            with self.subTest(mode="relacq_late", clang=clang):
                r = races("c11_globals", "relacq_late", clang)
                self.assertGreaterEqual(r.races, 1, r)
                self.assertIn('data symbol "data"', r.text)
                self.assertNotIn('data symbol "ready"', r.text)

    def test_refcounts_in_regions(self):
        """An atomic function copying and dropping a shared_ptr, locking a
        weak_ptr, copying a locale while other threads do the same: clean at
        every seed (56-58 reports in 7-8 contexts, all in the counts'
        updates, before AG_COMMUTE).  Two snapshots of a shared_ptr that
        another thread replaces in between, in the same function: reported
        at every seed (on the mutex the snapshots take), not on the counts."""
        src = SOURCES["sp_regions"]
        # Clang: its inlined frames come from atomgrind-inlines (Valgrind
        # reads none of its DWARF 5 inline records), and it merges the
        # copies' count updates into code of line 0 (before: 76 reports
        # in 4 contexts at seed 1 for copy_drop, 4 for weak_lock)
        for cc, seeds in (("c++", SEEDS), ("clang++", SEEDS[:2])):
            exe = build("sp_regions", src, cc)
            for m in SP_CLEAN:
                for seed in seeds:
                    with self.subTest(cc=cc, mode=m, seed=seed):
                        r = valgrind(exe, "--atomic-fns=use", "--sched-seed=%d" % seed, args=[m])
                        self.assertEqual(r.errors, 0, r)
            for seed in seeds:
                with self.subTest(cc=cc, mode="snapshot", seed=seed):
                    r = valgrind(exe, "--atomic-fns=use", "--sched-seed=%d" % seed,
                                 args=["snapshot"])
                    self.assertGreaterEqual(r.atomicity, 1, r)
                    self.assertIn("sp_regions.cpp", r.text)
                    self.assertNotIn("_M_release", r.text)

    def test_double_checked_locking(self):
        """DCL in an atomic function, thread 2's first check made while
        thread 1 initialises under the lock: the correct form (acquire load,
        lock, re-check, release store) is clean at every seed, whether
        thread 2 blocks on the lock or takes it later (reported at every
        seed before check-lock-recheck); without the re-check, or with it
        before the lock, thread 2 initialises again: reported at every seed."""
        exe = build("dcl_regions", SOURCES["dcl_regions"], "c++")
        for m in ["correct", "correct_late", "no_recheck", "outside"]:
            for seed in SEEDS:
                with self.subTest(mode=m, seed=seed):
                    r = valgrind(exe, "--atomic-fns=get", "--sched-seed=%d" % seed, args=[m])
                    if m.startswith("correct"):
                        self.assertEqual(r.errors, 0, r)
                        self.assertIn("inits 1", r.stdout)
                    else:
                        self.assertGreaterEqual(r.atomicity, 1, r)
                        self.assertIn("inits 2", r.stdout)


if __name__ == "__main__":
    unittest.main()
