"""--record-trace: a recorded run replays offline (atomgrind-trace) to the
same reports, at the same event indices, as the online run."""
import json
import os
import re
import subprocess
import tempfile
import unittest

from agtest import BUILD, compile_prog, tool_built, valgrind, vg_in_place

TRACE_TOOL = os.path.join(BUILD, "atomgrind-trace")
PROGS = ["plain_write", "locked_check_act", "condvar_region", "nested", "many_locked", "adjacent_fields"]


def setUpModule():
    if not tool_built() or not os.path.exists(TRACE_TOOL):
        raise AssertionError("atomgrind and atomgrind-trace are not built in %s" % BUILD)


def online_events(run):
    return [int(e) for e in re.findall(r"atomgrind: report: engine=\w+ event=(\d+)", run.text)]


def replay(path, *opts):
    p = subprocess.run([TRACE_TOOL, "--json", *opts, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    assert p.returncode in (0, 1), p.stderr
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")], p.returncode


class Replay(unittest.TestCase):
    def test_binary_replay_same_events(self):
        for prog in PROGS:
            for eng in ("atomsanitizer", "aerodrome", "velodrome"):
                with self.subTest(prog=prog, engine=eng), tempfile.TemporaryDirectory() as d:
                    path = os.path.join(d, "t.agt")
                    # --predict=no: the replay runs the atomicity engine alone
                    r = valgrind(compile_prog(prog), "--engine=" + eng, "--predict=no", "--trace-reports=yes",
                                 "--record-trace=" + path)
                    online = online_events(r)
                    offline, rc = replay(path, "--engine=" + eng)
                    self.assertEqual([v["event"] for v in offline], online, r)
                    self.assertEqual(rc, 1 if online else 0)

    def test_races_replay_same_events(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.agt")
            r = valgrind(compile_prog("race_counter"), "--check=races", "--trace-reports=yes",
                         "--record-trace=" + path, args=["mixed"])
            offline, _ = replay(path, "--check=races")
            self.assertEqual([v["event"] for v in offline], online_events(r))
            self.assertTrue(online_events(r))

    def test_std_text_recording(self):
        for prog in ("plain_write", "many_locked"):
            with self.subTest(prog=prog), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "t.std")
                r = valgrind(compile_prog(prog), "--record-trace=" + path, "--record-trace-format=std")
                with open(path) as f:
                    first = f.readline()
                self.assertRegex(first, r"^T\d+\|\w+(\(.*\))?\|\d+")
                offline, rc = replay(path)
                self.assertEqual(rc, 1 if r.atomicity else 0, (offline, r))

    def test_unwritable_trace_file(self):
        r = vg_in_place("--tool=atomgrind", "--record-trace=/nonexistent/dir/t.agt",
                        compile_prog("plain_write"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot open --record-trace file", r.stdout)


if __name__ == "__main__":
    unittest.main()
