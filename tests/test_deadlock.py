"""Deadlocks are reported and end the run instead of hanging it; lock-order
inversions that did not deadlock are reported as possible deadlocks (as
Helgrind's LockOrder), and orders that cannot deadlock are not.  Each
deadlock program hangs natively: every run here has a timeout."""
import os
import re
import tempfile
import unittest
import xml.etree.ElementTree as ET

from agtest import OUT, PROGS, compile_prog, supp_file, tool_built, valgrind

TIMEOUT = 120     # a hang would fail here, not block the suite


def prog(name):
    os.makedirs(os.path.join(OUT, "deadlock"), exist_ok=True)
    return compile_prog("deadlock/" + name)


def bug_prog(name):
    os.makedirs(os.path.join(OUT, "bugs"), exist_ok=True)
    return compile_prog("bugs/" + name)


def where(fn, marker):
    """'fn (two_locks.c:N)' for the line of two_locks.c marked /* marker */."""
    with open(os.path.join(PROGS, "deadlock", "two_locks.c")) as f:
        n = next(i for i, l in enumerate(f, 1) if "/* %s */" % marker in l)
    return "%s (two_locks.c:%d)" % (fn, n)


def deadlocks(r):
    return len(re.findall(r"^Deadlock: ", r.text, re.M))


def orders(r):
    return len(re.findall(r"^Thread #\d+: lock order \"0x[0-9a-f]+ before 0x[0-9a-f]+\" violated",
                          r.text, re.M))


@unittest.skipUnless(tool_built(), "the tool is not built")
class Deadlocks(unittest.TestCase):
    def run_mode(self, mode, *opts):
        return valgrind(prog("two_locks"), *opts, args=(mode,), timeout=TIMEOUT)

    def test_two_locks(self):
        r = self.run_mode("two_locks")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertEqual(r.errors, 1, r)
        self.assertIn("threads wait for each other in a cycle", r.text)
        self.assertNotIn("done", r.stdout)
        self.assertEqual(r.rc, 1, r)           # the default: 1 (docs/atomgrind.md)
        # both threads' stacks, each lock's holder and where it was taken
        # (either thread may be the one whose wait closes the cycle: the
        # report's own stack is that one's, the other's follows its line)
        self.assertRegex(r.text, r"Thread #2 waits for the lock at 0x[0-9a-f]+, held by thread #3")
        self.assertRegex(r.text, r"Thread #3 waits for the lock at 0x[0-9a-f]+, held by thread #2")
        for w in (where("t1", "t1 waits for B"), where("t2", "t2 waits for A")):
            self.assertIn(w, r.text)
        self.assertRegex(r.text, r"Thread #3 took the lock at 0x[0-9a-f]+ at\n(.*\n)*?.*"
                         + re.escape(where("t2", "t2 takes B")))
        self.assertRegex(r.text, r"Thread #2 took the lock at 0x[0-9a-f]+ at\n(.*\n)*?.*"
                         + re.escape(where("t1", "t1 takes A")))
        # and what the locks are
        self.assertIn('is 0 bytes inside data symbol "A"', r.text)
        self.assertIn('is 0 bytes inside data symbol "B"', r.text)

    def test_error_exitcode_honoured(self):
        r = self.run_mode("two_locks", "--error-exitcode=42")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertEqual(r.rc, 42, r)

    def test_join_and_lock(self):
        r = self.run_mode("join_lock")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertIn("Thread #1 waits for thread #2 to end (a join)", r.text)
        self.assertIn("Thread #2 waits for the lock at", r.text)
        self.assertIn("held by thread #1", r.text)

    def test_lost_wakeup(self):
        r = self.run_mode("cond_never")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertIn("every thread is blocked", r.text)
        self.assertRegex(r.text, r"Thread #3 waits on condition variable 0x[0-9a-f]+ \(mutex 0x[0-9a-f]+\), "
                                 r"which no thread that can run will signal")
        self.assertIn("Thread #1 waits for thread #3 to end (a join)", r.text)

    def test_woken_waiter_needs_its_mutex(self):
        r = self.run_mode("woken_mutex")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertRegex(r.text, r"Thread #2, woken from condition variable 0x[0-9a-f]+, waits for its "
                                 r"mutex 0x[0-9a-f]+, held by thread #1")

    def test_barrier_short_of_its_count(self):
        r = self.run_mode("barrier_short")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertIn("every thread is blocked", r.text)
        self.assertEqual(len(re.findall(r"Thread #[23] waits at barrier 0x[0-9a-f]+, where 2 of its "
                                        r"3 threads have arrived", r.text)), 2, r)

    def test_semaphore_nobody_posts(self):
        r = self.run_mode("sem_never")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertRegex(r.text, r"Thread #2 waits on semaphore 0x[0-9a-f]+, whose value is 0")

    def test_semaphore_a_handler_posts_is_no_deadlock(self):
        # every thread waits, but a signal handler may post: not reported
        r = self.run_mode("sem_alarm")
        self.assertEqual(r.errors, 0, r)
        self.assertIn("done", r.stdout)
        self.assertEqual(r.rc, 0, r)

    def test_cancelled_waiters_are_no_deadlock(self):
        # main cancels threads blocked in condvar, semaphore and join waits,
        # then joins them: they leave their waits (tests/progs/cancel_waits.c)
        r = valgrind(compile_prog("cancel_waits"), timeout=TIMEOUT)
        self.assertEqual(r.errors, 0, r)
        self.assertIn("cancel_waits: ok", r.stdout)

    def test_last_runnable_thread_ends(self):
        # no announcement follows the end of the thread that should have
        # signalled: main's join, waiting in slices, finds it
        r = self.run_mode("exit_last")
        self.assertEqual(deadlocks(r), 1, r)
        self.assertIn("every thread is blocked", r.text)
        self.assertIn("Thread #1 waits for thread #2 to end (a join)", r.text)
        self.assertRegex(r.text, r"Thread #2 waits on condition variable 0x[0-9a-f]+ ")
        self.assertNotIn("done", r.stdout)

    def test_main_ends_leaving_a_waiter(self):
        # main ends with no join left: the detached waiter's own wait, in
        # slices, finds that nothing can wake it (it hung before)
        for mode, waits in (("exit_main_cond", r"waits on condition variable 0x[0-9a-f]+ "),
                            ("exit_main_sem", r"waits on semaphore 0x[0-9a-f]+, whose value is 0")):
            with self.subTest(mode=mode):
                r = self.run_mode(mode)
                self.assertEqual(deadlocks(r), 1, r)
                self.assertRegex(r.text, r"Thread #2 " + waits)
                self.assertEqual(r.rc, 1, r)

    def test_wait_across_slices_is_woken(self):
        # a condvar wait of 2.5 s (several slices) ends by its signal
        r = self.run_mode("slow_signal")
        self.assertEqual((r.rc, r.errors), (0, 0), r)
        self.assertIn("done", r.stdout)

    def test_lock_held_by_an_ended_thread(self):
        # tests/progs/bugs/exit_holding_lock.c: a thread ends holding a plain
        # mutex, the next locker waits for good (hung before: the holder's
        # end was taken as a possible robust hand-over)
        r = valgrind(bug_prog("exit_holding_lock"), timeout=TIMEOUT)
        self.assertEqual(deadlocks(r), 1, r)
        self.assertIn("every thread is blocked", r.text)
        self.assertRegex(r.text, r"Thread #3 waits for the lock at 0x[0-9a-f]+, held by thread #2")
        self.assertIn("Thread #1 waits for thread #3 to end (a join)", r.text)
        self.assertNotIn("done", r.stdout)
        self.assertEqual(r.rc, 1, r)

    def test_robust_mutex_of_an_ended_thread_is_no_deadlock(self):
        r = valgrind(bug_prog("exit_holding_lock"), args=("robust",), timeout=TIMEOUT)
        self.assertEqual(r.errors, 0, r)
        self.assertIn("done 2", r.stdout)
        self.assertEqual(r.rc, 0, r)

    def test_relock_of_a_normal_mutex(self):
        # tests/progs/bugs/relock_self.c (SCTBench's din_phil7_sat: a second
        # begin where an end was meant): hung before
        r = valgrind(bug_prog("relock_self"), timeout=TIMEOUT)
        self.assertEqual(deadlocks(r), 1, r)
        self.assertIn("every thread is blocked", r.text)
        self.assertIn("Thread #1 waits for thread #2 to end (a join)", r.text)
        self.assertRegex(r.text, r"Thread #2 waits for the lock at 0x[0-9a-f]+, held by thread #2")
        self.assertNotIn("done", r.stdout)
        self.assertEqual(r.rc, 1, r)

    def test_relock_of_recursive_or_errorcheck_is_no_deadlock(self):
        for kind in ("recursive", "errorcheck"):
            r = valgrind(bug_prog("relock_self"), args=(kind,), timeout=TIMEOUT)
            self.assertEqual(deadlocks(r), 0, r)
            self.assertIn("done 2", r.stdout)
            self.assertEqual(r.rc, 0, r)

    def test_suppressed(self):
        exe = prog("two_locks")
        r = valgrind(exe, "--gen-suppressions=all", args=("two_locks",), timeout=TIMEOUT)
        m = re.search(r"(?s)\{\n.*?\n\}", r.text)
        self.assertTrue(m, r)
        supp = m.group(0)
        self.assertIn("Atomgrind:Deadlock", supp)
        # either thread's wait may close the cycle: its start routine, t1 or t2
        supp = re.sub(r"fun:t[12]\n", "fun:t?\n", supp)
        with supp_file(supp.replace("<insert_a_suppression_name_here>", "dl") + "\n") as f:
            r = valgrind(exe, "--suppressions=" + f, args=("two_locks",), timeout=TIMEOUT)
        self.assertEqual(r.errors, 0, r)
        self.assertEqual(r.suppressed, 1, r)
        self.assertIn("the program is deadlocked: ending the run", r.text)   # still not a hang

    def test_xml(self):
        with tempfile.NamedTemporaryFile("r", suffix=".xml") as xf:
            valgrind(prog("two_locks"), "--xml=yes", "--xml-file=" + xf.name, args=("two_locks",),
                     timeout=TIMEOUT)
            text = xf.read()
        root = ET.fromstring(text)
        self.assertEqual([e.text for e in root.iter("kind")], ["Deadlock"], text)
        aux = [e.text for e in root.iter("auxwhat")]
        self.assertTrue(any("held by thread #" in a for a in aux), text)
        self.assertTrue(any(re.match(r"Thread #\d took the lock", a) for a in aux), text)
        self.assertGreaterEqual(len(list(root.iter("stack"))), 4, text)


def leaves_line(fn, marker):
    """'fn (exit_leaves.c:N)' for the line of exit_leaves.c marked /* marker */."""
    with open(os.path.join(PROGS, "deadlock", "exit_leaves.c")) as f:
        n = next(i for i, l in enumerate(f, 1) if "/* %s */" % marker in l)
    return "%s (exit_leaves.c:%d)" % (fn, n)


@unittest.skipUnless(tool_built(), "the tool is not built")
class ExitLeavesBlocked(unittest.TestCase):
    """The last thread that could run ends (pthread_exit, or a return) and
    leaves the others in waits that are not made in slices: a barrier, a
    mutex, a rwlock.  Nothing is announced after that end, so the check runs
    at the thread's exit system call (ag_deadlock_thread_ends).  Each mode
    hung until killed before (tests/progs/deadlock/exit_leaves.c); condvar,
    semaphore and join waits were found by their slices already
    (Deadlocks.test_main_ends_leaving_a_waiter, test_last_runnable_thread_ends)."""

    def run_mode(self, mode, *opts):
        return valgrind(prog("exit_leaves"), *opts, args=(mode,), timeout=TIMEOUT)

    def assert_deadlock(self, r):
        self.assertEqual(deadlocks(r), 1, r)
        self.assertEqual(r.errors, 1, r)
        self.assertIn("every thread is blocked", r.text)
        self.assertIn("the program is deadlocked: ending the run (exit status 1)", r.text)
        self.assertNotIn("done", r.stdout)
        self.assertEqual(r.rc, 1, r)

    def test_barrier_after_main_ends(self):
        # the program: main's pthread_exit leaves T at a barrier of 2
        r = self.run_mode("barrier_main")
        self.assert_deadlock(r)
        self.assertRegex(r.text, r"Thread #2 waits at barrier 0x[0-9a-f]+, where 1 of its 2 "
                                 r"threads have arrived")
        self.assertIn(leaves_line("at_barrier", "T waits here"), r.text)

    def test_barrier_after_a_thread_returns(self):
        r = self.run_mode("barrier_return")
        self.assert_deadlock(r)
        for t in (1, 2):
            self.assertRegex(r.text, r"Thread #%d waits at barrier 0x[0-9a-f]+, where 2 of its 3 "
                                     r"threads have arrived" % t)
        self.assertIn(leaves_line("main", "main waits here"), r.text)
        self.assertIn(leaves_line("at_barrier", "T waits here"), r.text)
        self.assertIn("Thread #3, the last thread that could run, has ended", r.text)

    def test_mutex_of_an_ended_thread(self):
        # (main may reach its lock after T ended: then its own wait finds it)
        r = self.run_mode("mutex_ended")
        self.assert_deadlock(r)
        self.assertRegex(r.text, r"Thread #1 waits for the lock at 0x[0-9a-f]+, held by thread #2")
        self.assertIn(leaves_line("main", "main waits for A"), r.text)
        self.assertRegex(r.text, r"Thread #2 took the lock at 0x[0-9a-f]+ at\n(.*\n)*?.*"
                         + re.escape(leaves_line("lock_and_return", "T takes A")))
        self.assertIn('is 0 bytes inside data symbol "A"', r.text)

    def test_mutex_of_a_blocked_thread(self):
        r = self.run_mode("mutex_blocked")
        self.assert_deadlock(r)
        self.assertRegex(r.text, r"Thread #1 waits for the lock at 0x[0-9a-f]+, held by thread #2")
        self.assertRegex(r.text, r"Thread #2 took the lock at 0x[0-9a-f]+ at\n(.*\n)*?.*"
                         + re.escape(leaves_line("lock_then_barrier", "T1 takes A")))
        self.assertRegex(r.text, r"Thread #2 waits at barrier 0x[0-9a-f]+, where 1 of its 2 "
                                 r"threads have arrived, at\n(.*\n)*?.*"
                         + re.escape(leaves_line("lock_then_barrier", "T1 waits here")))
        self.assertIn(leaves_line("main", "main waits for A, T1 blocked"), r.text)
        self.assertIn("Thread #3, the last thread that could run, has ended", r.text)

    def test_rwlock_of_an_ended_writer(self):
        r = self.run_mode("rwlock_ended")
        self.assert_deadlock(r)
        self.assertRegex(r.text, r"Thread #1 waits for the rwlock at 0x[0-9a-f]+, held by thread #2")
        self.assertRegex(r.text, r"Thread #2 took the rwlock at 0x[0-9a-f]+ at\n(.*\n)*?.*"
                         + re.escape(leaves_line("wrlock_and_return", "T takes R")))

    def test_rwlock_of_an_ended_reader(self):
        r = self.run_mode("rwlock_reader")
        self.assert_deadlock(r)
        self.assertRegex(r.text, r"Thread #1 waits for the rwlock at 0x[0-9a-f]+, held by readers, "
                                 r"blocked or ended")
        self.assertIn(leaves_line("main", "main waits to write R"), r.text)

    def test_error_exitcode_and_xml(self):
        with tempfile.NamedTemporaryFile("r", suffix=".xml") as xf:
            r = self.run_mode("barrier_return", "--error-exitcode=42", "--xml=yes",
                              "--xml-file=" + xf.name)
            text = xf.read()
        self.assertEqual(r.rc, 42, r)
        root = ET.fromstring(text)          # closed: the run ended as an exit does
        self.assertEqual([e.text for e in root.iter("kind")], ["Deadlock"], text)
        aux = [e.text for e in root.iter("auxwhat")]
        self.assertIn("Thread #3, the last thread that could run, has ended", aux, text)
        self.assertGreaterEqual(len(list(root.iter("stack"))), 2, text)

    def test_suppressed(self):
        with supp_file("{\n   dl\n   Atomgrind:Deadlock\n   ...\n   fun:main\n}\n") as f:
            r = self.run_mode("barrier_return", "--suppressions=" + f)
        self.assertEqual((r.errors, r.suppressed), (0, 1), r)
        self.assertIn("the program is deadlocked: ending the run", r.text)   # not a hang

    def test_waiters_that_a_live_thread_will_release(self):
        # main ends while T1 waits at a barrier; the others reach it after a
        # sleep of 2 s and a second of computing (ok_sleep), or after a
        # blocking read that a third thread feeds 2 s later, then returns
        # (ok_read): no deadlock, the program finishes
        for mode in ("ok_sleep", "ok_read"):
            with self.subTest(mode=mode):
                r = self.run_mode(mode)
                self.assertEqual((r.rc, r.errors, deadlocks(r)), (0, 0, 0), r)
                self.assertIn("done", r.stdout)

    def test_thread_code_after_the_start_routine_releases(self):
        # the check is at the exit system call, after the ending thread's
        # TSD destructors (ok_tsd: one reaches the barrier T1 waits at;
        # ok_tsd_unlock: one unlocks the mutex main waits for, inside the
        # teardown's bracket, where the release is not recorded) and its
        # cleanup handler (ok_cleanup: it unlocks the mutex main waits for).
        # ok_tsd and ok_tsd_unlock were reported as deadlocks before the
        # arrival was counted and the unseen release made the check give up.
        for mode, out in (("ok_tsd", "done"), ("ok_tsd_unlock", "main done"),
                          ("ok_cleanup", "main done")):
            with self.subTest(mode=mode):
                r = self.run_mode(mode)
                self.assertEqual((r.rc, r.errors, deadlocks(r)), (0, 0, 0), r)
                self.assertIn(out, r.stdout)

    def test_process_shared_barrier(self):
        # pshared_barrier.c: main waits at a process-shared barrier while
        # the process's other thread ends; a forked process arrives 2 s
        # later.  Reported as a deadlock in both processes before (the
        # count was taken to be this process's threads alone)
        r = valgrind(prog("pshared_barrier"), timeout=TIMEOUT)
        self.assertEqual((r.rc, r.errors, deadlocks(r)), (0, 0, 0), r)
        self.assertNotIn("Deadlock", r.text)
        self.assertIn("done", r.stdout)


@unittest.skipUnless(tool_built(), "the tool is not built")
class LockOrders(unittest.TestCase):
    def run_mode(self, mode, *opts):
        return valgrind(prog("lock_orders"), *opts, args=(mode,), timeout=TIMEOUT)

    def test_inversion_reported_as_possible(self):
        r = self.run_mode("inversion")
        self.assertEqual(orders(r), 1, r)
        self.assertEqual(deadlocks(r), 0, r)
        self.assertEqual(r.errors, 1, r)
        self.assertIn("done", r.stdout)                # it did not deadlock
        self.assertRegex(r.text, r"Observed \(incorrect\) order: thread #3 acquired the lock at .*\n"
                                 r"(.*\n)*?.*ba \(lock_orders.c")
        self.assertRegex(r.text, r"Required order was established by: thread #2 acquired the lock at .*\n"
                                 r"(.*\n)*?.*ab \(lock_orders.c")
        self.assertIn('is 0 bytes inside data symbol "A"', r.text)
        self.assertIn('is 0 bytes inside data symbol "B"', r.text)

    def test_three_lock_cycle(self):
        r = self.run_mode("cycle3")
        self.assertEqual(orders(r), 1, r)
        self.assertIn("and by: thread #3", r.text)

    def test_rwlock_orders(self):
        """A read hold of an rwlock excludes a writer (Helgrind reports the
        inversion too), and two read holds are no gate; before, read holds
        were left out of the orders and neither was reported."""
        for mode in ("rw_mutex", "rw_gate"):
            with self.subTest(mode=mode):
                r = self.run_mode(mode)
                self.assertEqual(orders(r), 1, r)
                self.assertEqual(deadlocks(r), 0, r)
                self.assertIn("done", r.stdout)
        r = self.run_mode("rw_mutex")
        self.assertIn('is 0 bytes inside data symbol "R"', r.text)
        self.assertRegex(r.text, r"(?s)Observed \(incorrect\) order: .*?a_r \(lock_orders.c")

    def test_orders_that_cannot_deadlock(self):
        for mode in ("gate", "trylock", "timed", "one_thread", "readers", "rd_mutex", "reinit",
                     "heap_reuse", "fork_held", "exit_held"):
            with self.subTest(mode=mode):
                r = self.run_mode(mode)
                self.assertEqual(r.errors, 0, r)
                self.assertEqual(orders(r), 0, r)          # fork_held: the child's too
                self.assertIn("done", r.stdout)
                self.assertNotIn("not at the same address", r.stdout)   # not vacuous

    def test_suppressed(self):
        exe = prog("lock_orders")
        r = valgrind(exe, "--gen-suppressions=all", args=("inversion",), timeout=TIMEOUT)
        m = re.search(r"(?s)\{\n.*?\n\}", r.text)
        self.assertTrue(m, r)
        supp = m.group(0)
        self.assertIn("Atomgrind:LockOrder", supp)
        with supp_file(supp.replace("<insert_a_suppression_name_here>", "lo") + "\n") as f:
            r = valgrind(exe, "--suppressions=" + f, args=("inversion",), timeout=TIMEOUT)
        self.assertEqual(r.errors, 0, r)
        self.assertEqual(r.suppressed, 1, r)

    def test_handwritten_suppression(self):
        with supp_file("{\n   any-order\n   Atomgrind:LockOrder\n   ...\n   fun:take2\n}\n") as f:
            r = self.run_mode("inversion", "--suppressions=" + f)
        self.assertEqual(r.errors, 0, r)
        self.assertEqual(r.suppressed, 1, r)

    def test_xml(self):
        with tempfile.NamedTemporaryFile("r", suffix=".xml") as xf:
            valgrind(prog("lock_orders"), "--xml=yes", "--xml-file=" + xf.name, args=("inversion",),
                     timeout=TIMEOUT)
            text = xf.read()
        root = ET.fromstring(text)
        self.assertEqual([e.text for e in root.iter("kind")], ["LockOrder"], text)
        self.assertIn("violated", root.find(".//error/what").text)
        self.assertGreaterEqual(len(list(root.iter("stack"))), 5, text)


if __name__ == "__main__":
    unittest.main()
