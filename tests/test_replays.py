"""Replay identity: every trace kept in the tests (tests/traces/*.std and
the fuzz corpus, binary and text, good and bad) replayed by the build's
atomgrind-trace under every engine and mode gives exactly the stored
reports (tests/traces/replays.json): the JSON reports, the text report,
the first cycle drawn, the exit status and the messages.  A change that
must not change behaviour (a refactoring of the engines, the dispatcher,
the trace format) shows here as any difference at all.

The expectations are made by a build known to be right:
    AG_BUILD=<that build> AG_REGEN=1 python3 tests/run.py test_replays.py
and a change that means to change reports regenerates them and says so."""
import glob
import json
import os
import subprocess
import unittest

from agtest import BUILD, REPO

GOLDEN = os.path.join(REPO, "tests", "traces", "replays.json")


def tool():
    return os.path.join(BUILD, "atomgrind-trace")


def traces():
    """Every kept trace, by its name relative to tests/."""
    tests = os.path.join(REPO, "tests")
    files = glob.glob(os.path.join(tests, "traces", "*.std"))
    files += [f for f in glob.glob(os.path.join(tests, "fuzz", "corpus", "*")) if os.path.isfile(f)]
    return sorted(os.path.relpath(f, tests) for f in files)


# How each trace is replayed: every engine, both checks, the increasing
# cycles, the text report and the first cycle's picture.
MODES = [
    ["--json", "--engine=atomsanitizer"],
    ["--json", "--engine=atomsanitizer", "--cycles=increasing"],
    ["--json", "--engine=aerodrome"],
    ["--json", "--engine=velodrome"],
    ["--json", "--engine=predict"],
    ["--json", "--check=races"],
    ["--engine=aerodrome"],
    ["--explain=1", "--engine=atomsanitizer"],
    ["--explain=1", "--engine=aerodrome", "--format=dot"],
    ["--stats", "--parse-only"],
]


def replay(name, mode):
    path = os.path.join(REPO, "tests", name)
    r = subprocess.run([tool()] + mode + [path], capture_output=True, text=True,
                       errors="replace", timeout=120)
    # reports and messages name the file: by its name in the tests,
    # wherever the tree is (a clean clone, a worktree)
    return {"rc": r.returncode, "out": r.stdout.replace(path, name),
            "err": r.stderr.replace(path, name)}


def replay_all():
    """{trace: {mode: result}}; a trace that does not parse, in one mode."""
    got = {}
    for name in traces():
        parse = replay(name, MODES[-1])
        modes = MODES[:-1] if parse["rc"] != 2 else []
        got[name] = {" ".join(m): replay(name, m) for m in modes}
        got[name][" ".join(MODES[-1])] = parse
    return got


@unittest.skipUnless(os.path.exists(tool()), "atomgrind-trace is not built")
class Replays(unittest.TestCase):
    def test_every_trace_replays_as_stored(self):
        got = replay_all()
        if os.environ.get("AG_REGEN"):
            with open(GOLDEN, "w") as f:
                json.dump(got, f, indent=1, sort_keys=True)
                f.write("\n")
        with open(GOLDEN) as f:
            want = json.load(f)
        self.assertEqual(sorted(got), sorted(want), "traces added or removed: AG_REGEN=1")
        for name in sorted(want):
            for mode in sorted(want[name]):
                with self.subTest(trace=name, mode=mode):
                    self.assertEqual(got[name].get(mode), want[name][mode])

    def test_the_check_sees_reports(self):
        # (expectations without one report would pass any engine)
        with open(GOLDEN) as f:
            want = json.load(f)
        self.assertGreaterEqual(len(want), 20)
        reported = sum(1 for runs in want.values() for r in runs.values() if r["rc"] == 1)
        self.assertGreaterEqual(reported, 20)
        self.assertTrue(any('"kind":"race"' in r["out"] for runs in want.values()
                            for r in runs.values()))


if __name__ == "__main__":
    unittest.main()
