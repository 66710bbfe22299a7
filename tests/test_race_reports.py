"""Race reports at Helgrind's level (--check=races): the locks each of the
two accesses held (the earlier one's as they were at that access), a heap
block's allocation stack and allocating thread, and thread announcements,
once per thread; the same in --xml=yes.  tests/progs/race_report.c orders
its two races with a SysV message, which atomgrind does not model (a pipe
it does), so the reports are the same in every run."""
import re
import tempfile
import unittest
import xml.etree.ElementTree as ET

from agtest import BUILD, compile_prog, tool_built, valgrind


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s" % BUILD)


def masked(text):
    """The reports and announcements of a run: addresses, the preload's
    line numbers and path masked, glibc's thread creation and start frames
    left out."""
    start = text.index("---Thread-Announcement")
    end = text.index("\nChecked: ")
    text = text[start:end]
    text = re.sub(r"0x[0-9A-Fa-f]+", "0x..", text)
    text = re.sub(r"\(ag_intercepts\.c:\d+\)", "(ag_intercepts.c:N)", text)
    text = re.sub(r"\(in \S*/(vgpreload_atomgrind-amd64-linux\.so)\)", r"(in \1)", text)
    return "\n".join(l for l in text.splitlines()
                     if not re.search(r"\((clone\.S|clone-internal\.c|pthread_create\.c):\d+\)", l)
                     ).strip() + "\n"


EXPECTED = """\
---Thread-Announcement------------------------------------------

Thread #3 was created
   by 0x..: ag_pthread_create (ag_intercepts.c:N)
   by 0x..: pthread_create@* (ag_intercepts.c:N)
   by 0x..: spawn (common.h:23)
   by 0x..: main (race_report.c:41)

---Thread-Announcement------------------------------------------

Thread #2 was created
   by 0x..: ag_pthread_create (ag_intercepts.c:N)
   by 0x..: pthread_create@* (ag_intercepts.c:N)
   by 0x..: spawn (common.h:23)
   by 0x..: main (race_report.c:41)

----------------------------------------------------------------

Possible data race during write of size 4 at 0x.. by thread #3
Locks held: none
   at 0x..: second (race_report.c:32)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

This conflicts with a previous write by thread #2
Locks held: 1, at address 0x..
   at 0x..: first (race_report.c:19)
 Address 0x.. is 0 bytes inside data symbol "shared"

The lock at 0x.. was first acquired by thread #2 at
   at 0x..: ag_pthread_mutex_lock (ag_intercepts.c:N)
   by 0x..: pthread_mutex_lock@* (ag_intercepts.c:N)
   by 0x..: first (race_report.c:18)
   by 0x..: ag_thread_start (ag_intercepts.c:N)
 Address 0x.. is 0 bytes inside data symbol "mu"

---Thread-Announcement------------------------------------------

Thread #1 is the program's root thread

----------------------------------------------------------------

Possible data race during write of size 8 at 0x.. by thread #3
Locks held: none
   at 0x..: second (race_report.c:33)
   by 0x..: ag_thread_start (ag_intercepts.c:N)

This conflicts with a previous write by thread #2
Locks held: none
   at 0x..: first (race_report.c:21)
 Address 0x.. is 16 bytes inside a block of size 64 alloc'd
   at 0x..: malloc (in vgpreload_atomgrind-amd64-linux.so)
   by 0x..: main (race_report.c:39)
 Block was alloc'd by thread #1
"""


class RaceReports(unittest.TestCase):
    def test_text(self):
        # the lock on one side and none on the other, the lock's origin, the
        # heap block's stack and thread, each thread announced once
        r = valgrind(compile_prog("race_report"), "--check=races")
        self.assertEqual(r.races, 2, r)
        self.maxDiff = None
        self.assertEqual(masked(r.text), EXPECTED)

    def test_freed_lock_origin(self):
        # tests/progs/lock_reuse_race.c: a new mutex in a freed one's memory;
        # where it was first acquired is the new one's (thread #2's, the old
        # one's, before)
        r = valgrind(compile_prog("lock_reuse_race"), "--check=races")
        self.assertEqual(r.races, 1, r)
        self.assertNotIn("not at the same address", r.stdout)   # not vacuous
        self.assertRegex(r.text, r"The lock at 0x[0-9a-f]+ was first acquired by thread #3 at\n"
                                 r"(.*\n)*?.*second \(lock_reuse_race.c")
        self.assertNotIn("by thread #2 at", r.text)

    def test_xml(self):
        with tempfile.NamedTemporaryFile("r", suffix=".xml") as xf:
            valgrind(compile_prog("race_report"), "--check=races", "--xml=yes",
                     "--xml-file=" + xf.name)
            root = ET.fromstring(xf.read())
        ann = root.findall("announcethread")
        self.assertEqual([a.findtext("hthreadid") for a in ann], ["3", "2", "1"])
        self.assertIsNotNone(ann[2].find("isrootthread"))
        self.assertIsNotNone(ann[0].find("stack"))
        errors = root.findall("error")
        self.assertEqual([e.findtext("kind") for e in errors], ["Race", "Race"])
        aux = [a.text for a in errors[0].findall("auxwhat")]
        self.assertEqual(aux[:3], ["Locks held: none", "This conflicts with a previous write by thread #2",
                                   aux[2]])
        self.assertRegex(aux[2], r"^Locks held: 1, at address 0x[0-9a-f]+$")
        # the earlier access is a stack of one frame, not escaped text
        self.assertFalse(any("<frame>" in (a or "") for a in aux))
        self.assertEqual(len(errors[0].findall("stack")), 3)   # access, earlier, lock
        aux2 = [a.text for a in errors[1].findall("auxwhat")]
        self.assertIn("Block was alloc'd by thread #1", aux2)

    def test_history_full(self):
        # --history-level=full: the earlier access with its whole stack (as
        # Helgrind's default), and still one report per pair of code sites
        r = valgrind(compile_prog("race_report"), "--check=races", "--history-level=full")
        self.assertEqual(r.races, 2, r)
        earlier = re.findall(r"(?m)^This conflicts with a previous write by thread #2\n"
                             r"Locks held: .*\n((?:   (?:at|by) .*\n)+)", r.text)
        self.assertEqual(len(earlier), 2, r.text)
        for stack, line in zip(earlier, ("19", "21")):
            frames = re.findall(r"(?m)^   (?:at|by) 0x[0-9A-F]+: (\S+) \((\S+?):\d+\)", stack)
            self.assertEqual([f for f, _ in frames[:2]], ["first", "ag_thread_start"], stack)
            self.assertIn("first (race_report.c:%s)" % line, stack)
        # the approximate default keeps one frame
        r = valgrind(compile_prog("race_report"), "--check=races")
        self.assertNotIn("by 0x", r.text.split("This conflicts with a previous write by thread #2")[1]
                         .split("Address")[0])

    def test_too_many_locks_held(self):
        # 70 locks at once: not known; after releasing them all: none again
        r = valgrind(compile_prog("race_many_locks"), "--check=races")
        self.assertEqual(r.races, 2, r)
        held = re.findall(r"(?m)^This conflicts with a previous write by thread #2\n(Locks held: .*)\n"
                          r"   at 0x[0-9A-F]+: first \(race_many_locks\.c:(\d+)\)", r.text)
        self.assertEqual(held, [("Locks held: not known (over 64 at once, or over 65534 sets "
                                 "in the run)", "18"), ("Locks held: none", "20")], r)



class EpochNaming(unittest.TestCase):
    def test_epoch_naming(self):
        """the earlier access a race report names: by default the first of
        its thread's epoch (first_write), with --history-level=full the
        last (second_write); the same single report either way
        (tests/progs/race_epoch.c)"""
        exe = compile_prog("race_epoch")
        for opts, named in (((), "first_write"), (("--history-level=full",), "second_write")):
            with self.subTest(opts=opts):
                r = valgrind(exe, "--check=races", *opts)
                self.assertEqual(r.errors, 1, r)
                self.assertRegex(r.text, r"(?s)This conflicts with a previous write by thread #2\n"
                                 r"Locks held: none\n\s+at 0x[0-9A-F]+: " + named + r" \(race_epoch\.c:")

if __name__ == "__main__":
    unittest.main()
