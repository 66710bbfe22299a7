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


def remote_region_masked(text):
    """The report's last paragraph, "Thread #N ran conflicting code inside
    its atomic region, which began at <stack>", as the "... in between."
    that the same report says when that region had ended already."""
    return re.sub(r"ran conflicting code inside its atomic region, which began at\n"
                  r"(?:   (?:at|by) [^\n]*\n)+", "ran conflicting code in between.\n", text)


def report_text(run, n=0):
    """The n-th report of a run, as a stable text: addresses and the
    preload's line numbers masked, libc's thread-start frames left out."""
    starts = [m.start() for m in re.finditer(r"(?m)^(Atomicity violation|Possible data race)", run.text)]
    end = re.compile(r"(?m)^(Atomicity violation|Possible data race|For lists of|ERROR SUMMARY|"
                     r"Checked: |Scheduler: |---Thread-Announcement|"
                     r"\d+ errors in context|Thread #\d+ (unlocked|exited|waits))")
    m = end.search(run.text, starts[n] + 1)
    text = run.text[starts[n]:m.start() if m else len(run.text)]
    text = re.sub(r"0x[0-9A-Fa-f]+", "0x..", text)
    text = re.sub(r"\(ag_intercepts\.c:\d+\)", "(ag_intercepts.c:N)", text)
    return "\n".join(l for l in text.splitlines()
                     if not re.search(r": (start_thread|clone) \(", l)).strip() + "\n"


# Expected reports (atomsanitizer, the default engine)

LOCKED_REPORT = """\
Atomicity violation: lock 0x.. acquired by thread #2 breaks its atomic region (interleaved by thread #3)
   at 0x..: ag_pthread_mutex_lock (ag_intercepts.c:N)
   by 0x..: pthread_mutex_lock@* (ag_intercepts.c:N)
   by 0x..: buyer (locked_check_act.c:19)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 read 4 bytes at 0x.. under the lock, as thread #2's atomic region had
   at 0x..: buyer (locked_check_act.c:16)
 Address 0x.. is 0 bytes inside data symbol "stock"

The read of thread #2 inside its atomic region was
   at 0x..: buyer (locked_check_act.c:16)

Thread #3 acquired the lock at
   at 0x..: ag_pthread_mutex_lock (ag_intercepts.c:N)
   by 0x..: pthread_mutex_lock@* (ag_intercepts.c:N)
   by 0x..: buyer (locked_check_act.c:15)
   by 0x..: ag_thread_start (ag_intercepts.c:N)
and released it at
   at 0x..: ag_pthread_mutex_unlock (ag_intercepts.c:N)
   by 0x..: pthread_mutex_unlock@* (ag_intercepts.c:N)
   by 0x..: buyer (locked_check_act.c:17)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #2 had released it inside its atomic region at
   at 0x..: ag_pthread_mutex_unlock (ag_intercepts.c:N)
   by 0x..: pthread_mutex_unlock@* (ag_intercepts.c:N)
   by 0x..: buyer (locked_check_act.c:17)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

The atomic region of thread #2 began at
   at 0x..: buyer (locked_check_act.c:14)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 ran conflicting code inside its atomic region, which began at
   at 0x..: buyer (locked_check_act.c:14)
   by 0x..: ag_thread_start (ag_intercepts.c:N)
 Address 0x.. is 0 bytes inside data symbol "mu"
"""

CONDVAR_REPORT = """\
Atomicity violation: wake-up from condition variable 0x.. in thread #2 breaks its atomic region (interleaved by thread #3)
   at 0x..: ag_pthread_cond_wait (ag_intercepts.c:N)
   by 0x..: pthread_cond_wait@* (ag_intercepts.c:N)
   by 0x..: consumer (condvar_region.c:17)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 wrote 4 bytes at 0x.. after thread #2's atomic region read them
   at 0x..: producer (condvar_region.c:31)
 Address 0x.. is 0 bytes inside data symbol "ready"

The read of thread #2 inside its atomic region was
   at 0x..: consumer (condvar_region.c:17)

Thread #3's last operation on the condition variable before it was at
   at 0x..: ag_pthread_cond_signal (ag_intercepts.c:N)
   by 0x..: pthread_cond_signal@* (ag_intercepts.c:N)
   by 0x..: producer (condvar_region.c:32)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

The atomic region of thread #2 began at
   at 0x..: consumer (condvar_region.c:14)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 ran conflicting code inside its atomic region, which began at
   at 0x..: producer (condvar_region.c:28)
   by 0x..: ag_thread_start (ag_intercepts.c:N)
 Address 0x.. is 0 bytes inside data symbol "cv"
"""

SEMAPHORE_REPORT = """\
Atomicity violation: wait on semaphore 0x.. by thread #2 breaks its atomic region (interleaved by thread #3)
   at 0x..: ag_sem_wait (ag_intercepts.c:N)
   by 0x..: sem_wait@* (ag_intercepts.c:N)
   by 0x..: waiter (sem_region.c:15)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 wrote 4 bytes at 0x.. after thread #2's atomic region read them
   at 0x..: poster (sem_region.c:25)
 Address 0x.. is 0 bytes inside data symbol "level"

The read of thread #2 inside its atomic region was
   at 0x..: waiter (sem_region.c:14)

Thread #3's last operation on the semaphore before it was at
   at 0x..: ag_sem_post (ag_intercepts.c:N)
   by 0x..: sem_post@* (ag_intercepts.c:N)
   by 0x..: poster (sem_region.c:26)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

The atomic region of thread #2 began at
   at 0x..: waiter (sem_region.c:13)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 ran conflicting code in between.
 Address 0x.. is 0 bytes inside data symbol "go"
"""

ACCESS_REPORT = """\
Atomicity violation: write of size 4 at 0x.. by thread #2 breaks its atomic region (interleaved by thread #3)
   at 0x..: withdraw (plain_write.c:14)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

This conflicts with an earlier write by thread #3
   at 0x..: deposit (plain_write.c:23)

The atomic region of thread #2 began at
   at 0x..: withdraw (plain_write.c:11)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

Thread #3 ran conflicting code in between.
 Address 0x.. is 0 bytes inside data symbol "balance"
"""


def readme_report():
    """The report the README shows, without its ==PID== prefixes."""
    # (after the thread announcements that precede it)
    m = re.search(r"(?s)```\n(?:==\d+==[^\n]*\n)*?(==\d+== Atomicity violation.*?)```", readme())
    return "\n".join(re.sub(r"^==\d+== ?", "", l) for l in m.group(1).splitlines())


def message_lines(text):
    """A report's lines other than stack frames, addresses and thread
    numbers masked (either customer's withdrawal may be the one reported)."""
    text = re.sub(r"0x[0-9A-Fa-f]+", "0x..", text)
    text = re.sub(r"#\d+", "#N", text)
    # whether the other withdrawal was still inside its region when the
    # cycle closed depends on the schedule too
    text = re.sub(r"ran conflicting code (inside its atomic region, which began at|in between\.)",
                  "ran conflicting code ...", text)
    # what the other customer did with the balance meanwhile (read it, or
    # already wrote it) depends on the schedule: not compared
    return [l for l in text.splitlines() if l.strip() and not re.match(r"   (at|by) ", l)
            and not l.startswith(("final balance", "ERROR SUMMARY"))
            and not re.match(r"(Thread #N (read|wrote) |The (read|write) of thread | Address 0x.. is 0 bytes inside data symbol .balance)", l)]


class Readme(unittest.TestCase):
    """The README's example and its suppression entry."""

    def test_readme_suppression_suppresses_readme_report(self):
        # the README's report is the tool's (its message lines), and the
        # README's suppression entry suppresses it
        # the indented entry that follows "Suppression entries use the kinds"
        m = re.search(r"Suppression entries use the kinds.*?\n\n((?:    [^\n]*\n)+)", readme(), re.S)
        self.assertTrue(m, "no suppression example in README.md")
        entry = "\n".join(l[4:] for l in m.group(1).splitlines()) + "\n"
        self.assertIn("Atomgrind:Atomicity", entry)
        exe = bank()
        r = valgrind(exe)
        self.assertEqual((r.atomicity, r.errors), (1, 1), r)
        self.assertEqual(message_lines(readme_report()), message_lines(report_text(r)))
        with supp_file(entry) as f:
            r = valgrind(exe, "--suppressions=" + f)
        self.assertEqual((r.errors, r.suppressed), (0, 1), r)


class Announcements(unittest.TestCase):
    def test_atomicity_report_announces_its_threads(self):
        # as Helgrind: each thread the report names is announced once,
        # with its creation stack, before the report
        r = valgrind(bank())
        self.assertEqual(r.atomicity, 1, r)
        created = re.findall(r"(?m)^Thread #(\d+) was created\n   at 0x[0-9A-F]+: clone ", r.text)
        self.assertEqual(sorted(created), ["2", "3"], r.text)
        self.assertLess(r.text.rindex("was created"), r.text.index("Atomicity violation"))
        self.assertRegex(r.text, r"(?m)^   by 0x[0-9A-F]+: main \(bank.c:54\)$")


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


class ReportTexts(unittest.TestCase):
    """The whole text of each kind of report, as a user reads it."""

    def check(self, prog, want):
        r = valgrind(compile_prog(prog))
        self.assertEqual((r.atomicity, r.errors), (1, 1), r)
        got = report_text(r)
        if got != want:
            # whether the other thread's region was still open when the
            # report was made depends on the schedule: both are true texts
            got, want = remote_region_masked(got), remote_region_masked(want)
        self.assertEqual(got, want)

    def test_lock_closed(self):
        # the cycle runs through the lock alone: both buyers only read the
        # stock under it; the report names it and where each held the lock
        self.check("locked_check_act", LOCKED_REPORT)

    def test_condvar_named_as_such(self):
        self.check("condvar_region", CONDVAR_REPORT)

    def test_semaphore_named_as_such(self):
        self.check("sem_region", SEMAPHORE_REPORT)

    def test_access_closed(self):
        self.check("plain_write", ACCESS_REPORT)


class HistoryLevels(unittest.TestCase):
    """--history-level: what is known of the other thread's side."""

    OTHER = r"(?m)^This conflicts with an earlier write by thread #3\n   at 0x[0-9A-F]+: deposit \(plain_write.c:23\)\n"

    def test_access_closed(self):
        exe = compile_prog("plain_write")
        full = valgrind(exe, "--history-level=full")
        # the whole stack of the other thread's write
        self.assertRegex(full.text, self.OTHER + r"   by 0x[0-9A-F]+: ag_thread_start ", full)
        for lvl in ("approx", "none"):
            with self.subTest(level=lvl):
                r = valgrind(exe, "--history-level=" + lvl)
                # its code address only: the next line ends the block
                self.assertRegex(r.text, self.OTHER + r"\n", r)

    def test_lock_closed(self):
        exe = compile_prog("locked_check_act")
        runs = {lvl: valgrind(exe, "--history-level=" + lvl) for lvl in ("none", "approx", "full")}
        data = r"(?m)^Thread #3 read 4 bytes at 0x[0-9a-f]+ under the lock.*\n   at 0x[0-9A-F]+: buyer \(locked_check_act.c:16\)\n"
        self.assertRegex(runs["full"].text, data + r"   by 0x[0-9A-F]+: ag_thread_start ")
        self.assertRegex(runs["approx"].text, data + r" Address ")
        for lvl, r in runs.items():
            with self.subTest(level=lvl):
                self.assertEqual((r.atomicity, r.errors), (1, 1), r)
                # lock stacks at approx and full
                self.assertEqual("Thread #3 acquired the lock at" in r.text, lvl != "none", r)


class Merging(unittest.TestCase):
    """One bug, one report: instances of the same code sites are one
    context, counted."""

    def test_same_sites_other_call_paths_merged(self):
        # the buyer's region is interleaved twice, by a restocking region
        # reached through two call paths (each report names it): one
        # context of two errors, and -s lists it with its count
        r = valgrind(compile_prog("merge_sites"), "-s")
        self.assertEqual((r.errors, r.contexts), (2, 1), r)
        self.assertRegex(r.text, r"(?m)^2 errors in context 1 of 1:$")
        self.assertIn("restock_by_truck", r.text)


if __name__ == "__main__":
    unittest.main()
