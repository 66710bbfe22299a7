"""Tool-level tests of --check=races and of RPT sampling (--sample=rpt)."""
import os
import re
import subprocess
import unittest

from agtest import BUILD, OUT, REPO, compile_prog, supp_file, tool_built, valgrind


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s" % BUILD)


def race_sites(run):
    """The set of (access kind, source line) of every race report."""
    return set(re.findall(r"(?m)^Possible data race during (\w+(?: \w+)?) of size \d+ at 0x[0-9a-f]+ by thread #\d+\n"
                          r"Locks held: [^\n]*\n"
                          r"\s+at 0x[0-9A-F]+: \w+ \(([\w.]+:\d+)\)", run.text))


def race_pairs(run, src):
    """For each race report, the first line of src named in the racing
    access's stack and in the previous access's: both stacks are there."""
    pairs = []
    for block in run.text.split("Possible data race")[1:]:
        now, _, prev = block.partition("This conflicts with a previous")
        prev = prev.split("\n\n")[0]
        a = re.search(r"\(%s:(\d+)\)" % re.escape(src), now)
        b = re.search(r"\(%s:(\d+)\)" % re.escape(src), prev)
        pairs.append((a and int(a.group(1)), b and int(b.group(1))))
    return pairs


class World(unittest.TestCase):
    """What the program does outside its own memory and locks: stdio,
    descriptors, system calls, the pthread objects' memory, stacks.
    Each cause has a racy form (reported, with both accesses' stacks in
    the program) and a correct one (no error at all)."""

    def run_prog(self, prog, mode, *opts):
        return valgrind(compile_prog(prog), "--check=races", *opts, args=[mode])

    def assert_clean(self, prog, mode, *opts):
        r = self.run_prog(prog, mode, *opts)
        self.assertEqual(r.errors, 0, r)
        return r

    def assert_racy(self, prog, mode, *opts):
        r = self.run_prog(prog, mode, *opts)
        self.assertGreaterEqual(r.races, 1, r)
        pairs = race_pairs(r, prog + ".c")
        self.assertTrue(any(a and b for a, b in pairs), (pairs, r))
        return r

    def test_stdio_from_threads_is_clean(self):
        # glibc's stdio reads its FILE's flags and lock owner outside
        # the lock: its lock is a lock and libc's accesses to the lock and
        # the FILE are its own (ag_stdio.c), with or without atomgrind.supp
        for mode in ("printf", "fprintf", "flockfile", "file", "read", "exit"):
            for opts in ([], ["--default-suppressions=no"]):
                with self.subTest(mode=mode, opts=opts):
                    self.assert_clean("race_stdio", mode, *opts)

    def test_stdio_suppressions_are_the_default_file(self):
        # atomgrind.supp (installed, and in .in_place) is read by default
        r = self.run_prog("race_stdio", "printf", "-v")
        self.assertIn("atomgrind.supp", r.text, r)
        r = self.run_prog("race_stdio", "printf", "-v", "--default-suppressions=no")
        self.assertNotIn("atomgrind.supp", r.text, r)

    def test_stdio_race_on_program_data(self):
        self.assert_racy("race_stdio", "racy")
        # the program's buffer, read by stdio's strlen/memcpy, still races
        r = self.run_prog("race_stdio", "racybuf")
        self.assertGreaterEqual(r.races, 1, r)
        self.assertRegex(r.text, r"at 0x[0-9A-F]+: __(strlen|memcpy)\w*")

    def test_descriptors_order(self):
        # write -> read, send -> recv, connect -> accept, epoll_ctl ->
        # epoll_wait (ag_fd.c); without the model each is a race on data
        for mode in ("pipe", "socketpair", "socket", "epoll", "close", "dup2"):
            with self.subTest(mode=mode):
                self.assert_clean("race_fd", mode)

    def test_descriptor_races(self):
        for mode in ("pipe_racy", "socketpair_racy", "socket_racy", "epoll_racy"):
            with self.subTest(mode=mode):
                r = self.assert_racy("race_fd", mode)
                self.assertIn('data symbol "data"', r.text)
        for mode in ("close_racy", "dup2_racy"):
            with self.subTest(mode=mode):
                r = self.assert_racy("race_fd", mode)
                self.assertRegex(r.text, r"Possible data race during close of file descriptor \d+ "
                                 r"by thread #\d+(.|\n)*This conflicts with a previous use")

    def test_system_call_memory(self):
        # read() fills its buffer, write() reads it, fstat() fills a struct:
        # accesses of the calling thread (pre_mem_read/post_mem_write)
        for mode in ("read", "write"):
            with self.subTest(mode=mode):
                self.assert_clean("race_sysmem", mode)
        for mode in ("read_racy", "write_racy", "stat_racy"):
            with self.subTest(mode=mode):
                r = self.assert_racy("race_sysmem", mode)
                self.assertRegex(r.text, r'inside data symbol "(buf|st)"')

    def test_pthread_objects_memory(self):
        # init/destroy write the object, other operations read it; a
        # barrier wait reads it at its return too, so the serial thread's
        # destroy races with the other waiter's leaving (last_user), as
        # ThreadSanitizer (race_on_barrier2) and DRD (pth_barrier_race) count it
        for mode in ("after_join",):
            with self.subTest(mode=mode):
                self.assert_clean("race_objects", mode)
        for mode in ("mutex_racy", "cond_racy", "barrier_racy", "free_racy", "last_user"):
            with self.subTest(mode=mode):
                r = self.assert_racy("race_objects", mode)
                # the waiter's leaving and the destroy are unordered: either
                # may come first (CI, with the suite's modules side by side:
                # the read came last once); sleeps order the other forms
                later = r"(write|read) of size 1" if mode == "last_user" else \
                    r"(write of size 1|free of size \d+)"
                self.assertRegex(r.text, r"Possible data race during " + later)
        # a use after the destroy (the destroy's write is kept when the
        # object's clock is dropped), or after the free of the struct
        # holding it (the free's write is kept until the block is reused;
        # before, a free forgot the block: no report); a lock whose only
        # ordering after the init is the lock itself (the lock word is
        # read before the acquire)
        for mode in ("use_destroyed", "use_freed", "init_racy"):
            with self.subTest(mode=mode):
                r = self.assert_racy("race_objects", mode)
                self.assertRegex(r.text, r"Possible data race during read of size 1[^\n]*\n"
                                         r"(.*\n)*?.*This conflicts with a previous write")

    def test_condvar_freed_by_its_waiter(self):
        # tests/progs/race_cond_free.c: the signal reads the condvar after
        # it wakes the waiter (ThreadSanitizer's cond_race); a signal made
        # under the mutex is ordered by the waiter's relock.  Before, the
        # read was taken before the wake-up's release: no race
        self.assert_clean("race_cond_free", "inside")
        r = self.assert_racy("race_cond_free", "outside")
        # the signal's read comes before the free, or -- main woken and
        # run first, as on a loaded machine -- after it: a read of the
        # freed block, which keeps the free's write (ag_ev_free)
        self.assertRegex(r.text, r"Possible data race during free of size \d+(.|\n)*"
                                 r"This conflicts with a previous read by thread #2\n.*\n"
                                 r" +at 0x[0-9A-F]+: signaller \(race_cond_free.c:28\)"
                                 r"|Possible data race during read of size \d+ at 0x[0-9a-f]+ by "
                                 r"thread #2\n(.*\n){1,3}.* by 0x[0-9A-F]+: signaller "
                                 r"\(race_cond_free.c:28\)\n(.*\n)*?"
                                 r"This conflicts with a previous write by thread #1\n")

    def test_posix_aio(self):
        # tests/progs/race_aio.c: glibc's AIO helper thread reads a
        # request's state that the enqueuer stores again after starting
        # it (atomgrind.supp; before: 1 report on every aio_read).  The
        # buffer read before the request is done races with the helper's
        # pread.
        exe = compile_prog("race_aio", ["-lrt"])
        r = valgrind(exe, "--check=races", args=["wait"])
        self.assertEqual(r.errors, 0, r)
        r = valgrind(exe, "--check=races", args=["early"])
        self.assertGreaterEqual(r.races, 1, r)
        self.assertIn('data symbol "buf"', r.text)

    def test_glibc_lookups_and_conversions(self):
        # tests/progs/race_glibc.c: NSS lookups and first wide-character
        # conversions from two threads (glibc's nscd retry counter and its
        # converters' double-checked loading: atomgrind.supp).  Before,
        # 1-3 reports a run, inside glibc.
        exe = compile_prog("race_glibc")
        for _ in range(3):
            r = valgrind(exe, "--check=races")
            self.assertEqual(r.errors, 0, r)

    def test_files_from_threads(self):
        # tests/progs/race_files.c: four threads write, read, stat and list
        # files, make temporary ones and print strerror's message in a
        # locale.  Before, 25-83 reports a run inside glibc: gettext's
        # double-checked catalogue load (atomgrind.supp), and strcmp's
        # 32-byte reads past a string into a block another thread
        # allocated later (an allocation is new memory).
        import tempfile
        exe = compile_prog("race_files", ["-O2"], "_o2")
        with tempfile.TemporaryDirectory() as tmp:
            for seed in (1, 2, 3):
                with self.subTest(seed=seed):
                    r = valgrind(exe, "--check=races", "--sched-seed=%d" % seed, args=[tmp])
                    self.assertEqual(r.errors, 0, r)

    def test_string_functions_read_no_further(self):
        # tests/progs/race_strings.c, -O2: glibc's strlen, strcmp, strchr
        # ... read 32-byte chunks past a read-only name into the count
        # beside it, which another thread updates under a mutex: 23,650
        # false reports a run before the preload's byte-loop replacements
        # (atomgrind/events/ag_strmem.c); 9,500 more from strcasecmp,
        # strncasecmp, stpncpy and strncat before they were replaced too.
        # A real write to a name is still
        # a race, named in the replaced function called from the program.
        exe = compile_prog("race_strings", ["-O2", "-D_GNU_SOURCE"], "_o2")
        r = valgrind(exe, "--check=races", "--sched-seed=1", args=["clean"])
        self.assertEqual(r.errors, 0, r)
        r = valgrind(exe, "--check=races", "--sched-seed=1", args=["race"])
        self.assertGreaterEqual(r.races, 1, r)
        for fn in ("strlen", "strchr", "rawmemchr", "stpcpy", "strcspn", "strstr", "strcasecmp",
                   "strncasecmp", "stpncpy", "strncat", "wcslen", "wcschr"):
            with self.subTest(fn=fn):
                self.assertRegex(r.text, r"by 0x[0-9A-F]+: (__)?%s\w* \(ag_strmem.c:\d+\)\n"
                                 r"\s+by 0x[0-9A-F]+: reader \(race_strings.c" % fn)

    def test_openmp(self):
        # tests/progs/race_openmp.c, GCC's OpenMP: libgomp's barriers and
        # team starts order the program's work (its plain movs on a
        # barrier's generation are atomic by provenance); before, a
        # reduction's shared sum and libgomp's own words gave 28 false
        # races.  A loop's `nowait` and an unprotected sum are races.
        exe = compile_prog("race_openmp", ["-fopenmp", "-O2"], "_omp")
        r = valgrind(exe, "--check=races", args=["constructs"])
        self.assertEqual(r.errors, 0, r)
        for mode in ("nowait", "no_reduction"):
            with self.subTest(mode=mode):
                r = valgrind(exe, "--check=races", args=[mode])
                self.assertGreaterEqual(r.races, 1, r)
                pairs = race_pairs(r, "race_openmp.c")
                self.assertTrue(any(a and b for a, b in pairs), (pairs, r))

    def test_barrier_misuse(self):
        # Helgrind's barrier misuses (its bar_bad), each reported once, and
        # nothing else: no race on the barrier's memory besides the misuse
        cases = {"zero": ["pthread_barrier_init: 'count' argument is zero"],
                 "twice": ["pthread_barrier_init: barrier 0x[0-9a-f]+ is already initialised"],
                 "never_inited": ["pthread_barrier_destroy: barrier 0x[0-9a-f]+ was never initialised"],
                 "init_waiters": ["pthread_barrier_init: barrier 0x[0-9a-f]+ is already initialised",
                                  "pthread_barrier_init: threads are waiting at barrier"],
                 "destroy_waiters": ["pthread_barrier_destroy: threads are waiting at barrier"]}
        for mode, said in cases.items():
            with self.subTest(mode=mode):
                r = self.run_prog("barrier_misuse", mode)
                self.assertEqual(r.errors, len(said), r)
                for msg in said:
                    self.assertRegex(r.text, r"Thread #1: " + msg, r)
                self.assertIn("(barrier_misuse.c:", r.text)
        # a stack barrier re-initialised by the next call, a freed one,
        # destroys right after the waits: no misuse
        self.assert_clean("barrier_misuse", "clean")

    def test_signals_order(self):
        # sigaction and kill/tgkill before the handler (ag_fd.c); without
        # it the handler's read of x, and glibc's setxid handler, race
        for mode in ("clean", "setuid"):
            with self.subTest(mode=mode):
                self.assert_clean("race_signal", mode)
        self.assert_racy("race_signal", "racy")

    def test_polling_loops(self):
        # a flag polled with usleep, sched_yield or select on no descriptor
        # between rounds, reached through __atomic builtins on a plain int
        # (plain movs): its load is an acquire, as a spin loop's
        # (ag_poll.c); before, 3 races each.  Data written after the flag still races, and a value read
        # under a lock in a sleeping loop is no poll: a store without the
        # lock races with it
        for mode in ("sleep", "yield", "select"):
            with self.subTest(mode=mode):
                self.assert_clean("race_poll", mode)
        r = self.assert_racy("race_poll", "racy")
        self.assertIn('data symbol "data"', r.text)
        r = self.assert_racy("race_poll", "locked")
        self.assertIn('data symbol "q"', r.text)

    def test_iostreams_from_threads(self):
        # libstdc++'s stream state (the width operator<< resets) and
        # ctype's widen cache (std::endl) are updated outside any lock:
        # atomgrind.supp and ag_provenance.c; -O2, as programs are built
        src = os.path.join(REPO, "tests", "progs", "race_iostream.cpp")
        exe = os.path.join(OUT, "race_iostream")
        if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
            subprocess.run(["c++", "-O2", "-g", "-pthread", "-o", exe, src], check=True)
        r = valgrind(exe, "--check=races", args=["cout"])
        self.assertEqual(r.errors, 0, r)
        r = valgrind(exe, "--check=races", args=["racy"])
        self.assertGreaterEqual(r.races, 1, r)
        self.assertIn('data symbol "_ZL7counter"', r.text)

    def test_vtable_pointer_same_value(self):
        # a destructor's first store writes the vtable pointer the object
        # holds: no race with a virtual call (ThreadSanitizer's
        # vptr_benign_race); a vtable pointer that changes races with it
        src = os.path.join(REPO, "tests", "progs", "race_vptr.cpp")
        for opt in ("-O1", "-O2"):
            exe = os.path.join(OUT, "race_vptr" + opt)
            if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
                subprocess.run(["c++", opt, "-g", "-pthread", "-o", exe, src], check=True)
            with self.subTest(opt=opt):
                r = valgrind(exe, "--check=races", args=["same"])
                self.assertEqual(r.errors, 0, r)
                r = valgrind(exe, "--check=races", args=["change"])
                self.assertGreaterEqual(r.races, 1, r)
                self.assertIn("during read of size 8", r.text)
                self.assertIn("caller(void*) (race_vptr.cpp:", r.text)

    def test_pi_mutex_interrupted_by_signal(self):
        # the core lets the signalled waiter through while main holds the
        # mutex (ag_sync.c: the displaced holder); main's unlock was
        # reported as a misuse
        self.assert_clean("pi_signal", "")

    def test_fork_child(self):
        # the forked child's log follows the parent's in the same file; in
        # the child the vanished threads are joined by the forking one
        # (without: 6 races on the reused stack of the sleeping thread)
        exe = compile_prog("race_fork")
        for mode, want in (("clean", 0), ("racy", 1)):
            with self.subTest(mode=mode):
                r = valgrind(exe, "--check=races", args=[mode])
                counts = [int(n) for n in re.findall(r"ERROR SUMMARY: (\d+) errors", r.text)]
                self.assertEqual(len(counts), 2, r)
                self.assertEqual(sum(counts) > 0, bool(want), r)
                if want:
                    self.assertTrue(any(a and b for a, b in race_pairs(r, "race_fork.c")), r)

    def test_barrier_generations(self):
        # a departure is ordered after its own generation's arrivals only
        # (as one RMW object the barrier ordered a late departure after
        # the next round's arrival: the racy writes were missed)
        self.assert_clean("race_barrier", "clean")
        self.assert_racy("race_barrier", "racy")

    def test_stack_variable_shared_by_creator(self):
        # the creating thread's live frames are checked after a creation,
        # without --check-stack-var (the base build found neither race)
        self.assert_clean("race_stack", "clean")
        for mode in ("racy", "deep"):
            with self.subTest(mode=mode):
                r = self.assert_racy("race_stack", mode)
                self.assertIn("is on thread 1's stack", r.text)


class Races(unittest.TestCase):
    def races(self, mode, *opts):
        return valgrind(compile_prog("race_counter"), "--check=races", *opts, args=[mode])

    def test_unsynchronized_counter(self):
        r = self.races("counter")
        self.assertGreaterEqual(r.races, 1, r)
        self.assertRegex(r.text, r"This conflicts with a previous (read|write) by thread #\d")
        self.assertIn('inside data symbol "counter"', r.text)

    def test_missing_lock_on_one_side(self):
        self.assertGreaterEqual(self.races("onesided").races, 1)

    def test_locked_is_clean(self):
        self.assertEqual(self.races("locked").errors, 0)

    def test_adjacent_bytes_are_clean(self):
        self.assertEqual(self.races("bytes").errors, 0)

    def test_atomics_do_not_race_with_atomics(self):
        self.assertEqual(self.races("atomics").errors, 0)

    def test_atomic_vs_plain_races(self):
        r = self.races("mixed")
        self.assertEqual(r.races, 1, r)
        self.assertIn("previous atomic", r.text)

    def test_every_sync_kind_orders(self):
        # semaphore, condvar, barrier, rwlock, once and join
        self.assertEqual(self.races("sync").errors, 0, self.races("sync"))

    def test_check_all_reports_both(self):
        r = valgrind(compile_prog("plain_write"), "--check=all")
        self.assertEqual(r.atomicity, 1, r)
        self.assertGreaterEqual(r.races, 1, r)

    def test_spin_handoffs_take_turns_quickly(self):
        # 20000 hand-offs each way through a flag both threads spin on:
        # a spin loop's jump back cuts the thread's timeslice short at
        # Valgrind's own pace (ag_spin.c).  Before, each hand-off waited
        # out a timeslice: 10-20 ms each, some 400-800 s in all; now 1-2 s
        for opt in ("-O0", "-O2"):
            exe = compile_prog("race_spin_handoff", [opt], suffix=opt)
            for mode in (["--check=races"], ["--sched=native"]):
                with self.subTest(opt=opt, mode=mode):
                    r = valgrind(exe, *mode, args=["flag"], timeout=90)
                    self.assertEqual(r.errors, 0, r)
                    self.assertEqual(r.rc, 0, r)

    def test_counted_loops_keep_their_timeslice(self):
        # a loop that reads a volatile 10^7 times by its count waits for
        # nobody: it keeps Valgrind's 100,000-superblock timeslices (25 of
        # them, the core's major scheduling events), not one per 32 turns
        # of the loop (75,758) as when every loop reading an unchanged
        # address was cut (AG_SPIN_WAITS, ag_spin.c)
        exe = compile_prog("race_spin_handoff", ["-O2"], suffix="-O2")
        r = valgrind(exe, "--check=races", "--stats=yes", args=["count"])
        self.assertEqual(r.rc, 0, r)
        major = r.major_sched_events()
        self.assertIsNotNone(major, r)
        self.assertLess(major, 5000, r)

    def test_race_suppression(self):
        with supp_file("{\n   counter-race\n   Atomgrind:Race\n   fun:worker\n}\n") as f:
            r = self.races("counter", "--suppressions=" + f)
        self.assertEqual(r.errors, 0, r)
        self.assertGreaterEqual(r.suppressed, 1, r)


SAMPLE = ["--sample=rpt", "--rpt-epsilon=0.2"]   # small windows, so a short test run is "long"


class Sampling(unittest.TestCase):
    def test_summary_and_reproducible_seed(self):
        exe = compile_prog("race_long")
        a = valgrind(exe, "--check=races", *SAMPLE, "--sample-seed=7")
        b = valgrind(exe, "--check=races", *SAMPLE, "--sample-seed=7")
        m = re.search(r"RPT sampling: (\d+) window\(s\) analysed, (\d+) of (\d+) events", a.text)
        self.assertTrue(m, a)
        windows, analysed, total = map(int, m.groups())
        self.assertGreater(windows, 1)
        self.assertLess(analysed, total / 4)      # most of the run is not analysed
        # same seed, same windows (the run is deterministic enough in event counts)
        m2 = re.search(r"RPT sampling: (\d+) window", b.text)
        self.assertEqual(abs(int(m2.group(1)) - windows) <= windows // 20, True)

    def test_success_rate_on_long_racy_run(self):
        # --fair-sched=yes: the threads then really alternate at each
        # sched_yield, so races are frequent in the observed trace (with the
        # default unfair lock one thread may run long stretches alone, and
        # the trace is then not far from race-free)
        exe = compile_prog("race_long")
        found = 0
        seeds = range(1, 11)
        for s in seeds:
            r = valgrind(exe, "--fair-sched=yes", "--check=races", *SAMPLE, "--sample-seed=%d" % s)
            found += r.races > 0
        self.assertGreaterEqual(found, 9, "races found in %d of %d runs" % (found, len(seeds)))

    def test_sampled_reports_are_full_reports(self):
        # soundness: every race reported under sampling is one the full
        # analysis reports (same access kind and source line)
        exe = compile_prog("race_long")
        full = race_sites(valgrind(exe, "--check=races"))
        self.assertTrue(full)      # the report format is still parsed
        for s in (1, 2, 3):
            sampled = race_sites(valgrind(exe, "--check=races", *SAMPLE, "--sample-seed=%d" % s))
            self.assertTrue(sampled <= full, (sampled, full))

    def test_sampling_keeps_clean_programs_clean(self):
        for prog in ("many_locked", "malloc_regions", "rwlock_readers"):
            for s in (1, 2):
                r = valgrind(compile_prog(prog), "--check=all", *SAMPLE, "--sample-seed=%d" % s)
                self.assertEqual(r.errors, 0, r)

    def test_stack_test_same_with_sampling(self):
        # under --sample=rpt the thread's own stack is filtered out in the
        # helper, not inline; a run shorter than the first window is
        # analysed whole, so the race engine must see the same accesses
        # (without the helper's test, 181,082 events against 16,799)
        exe = compile_prog("stack_heavy")

        def events(*opts):
            r = valgrind(exe, "--check=races", "--stats=yes", *opts)
            m = re.search(r"fasttrack: (\d+) events", r.text)
            self.assertTrue(m, r)
            return int(m.group(1))
        dense = events()
        self.assertLess(dense, 30000)            # the stack is not analysed
        self.assertEqual(events("--sample=rpt"), dense)

    def test_sampling_finds_atomicity_violation_in_short_run(self):
        # a run shorter than the whole-run threshold is analysed entirely
        r = valgrind(compile_prog("plain_write"), "--sample=rpt")
        self.assertEqual(r.atomicity, 1, r)


if __name__ == "__main__":
    unittest.main()
