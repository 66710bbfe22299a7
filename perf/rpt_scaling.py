#!/usr/bin/env python3
"""rpt_scaling.py -- RPT sampling against run length and against the floor.

Runs tests/progs/race_long.c (two threads, a racy counter, frequent thread
switches) at 1x, 10x and 100x its base length under:
    --tool=none                         (Valgrind's floor)
    --tool=atomgrind --check=races      (full analysis)
    --tool=atomgrind --check=races --sample=rpt   (default epsilon/delta)
    --tool=helgrind, --tool=drd
and prints CPU time, ratios to the floor, and the events analysed by RPT
out of the events of the run.  Run it alone: it measures time.

    perf/rpt_scaling.py [--base N] [--scales 1,10,100] [--skip-slow]"""
import argparse
import os
import re
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.environ.get("AG_BUILD", os.path.join(ROOT, "build"))


def build():
    exe = os.path.join(BUILD, "perf-race_long")
    subprocess.run(["cc", "-O2", "-g", "-pthread", "-I", os.path.join(ROOT, "atomgrind"),
                    "-o", exe, os.path.join(ROOT, "tests", "progs", "race_long.c")], check=True)
    return exe


def run(cmd):
    """CPU seconds (user+sys of the child) and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, AG_BUILD=BUILD))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=int, default=20000, help="iterations per thread at 1x")
    ap.add_argument("--scales", default="1,10,100")
    ap.add_argument("--skip-slow", action="store_true", help="no full analysis/helgrind/drd at the largest scale")
    a = ap.parse_args()
    exe = build()
    vg = os.path.join(ROOT, "vg-in-place")
    scales = [int(s) for s in a.scales.split(",")]
    print("%-6s %-28s %9s %8s %s" % ("scale", "config", "cpu s", "x floor", "RPT: windows, events analysed / run"))
    for sc in scales:
        n = str(a.base * sc)
        configs = [("none", [vg, "--tool=none"]),
                   ("atomgrind --sample=rpt", [vg, "--tool=atomgrind", "--check=races", "--sample=rpt"]),
                   ("atomgrind --check=races", [vg, "--tool=atomgrind", "--check=races", "-q"]),
                   ("helgrind", ["valgrind", "--tool=helgrind", "-q"]),
                   ("drd", ["valgrind", "--tool=drd", "-q"])]
        if a.skip_slow and sc == max(scales):
            configs = configs[:2]
        floor = None
        for name, cmd in configs:
            cpu, err = run(cmd + [exe, n])
            if floor is None:
                floor = cpu
            m = re.search(r"RPT sampling: (\d+) window\(s\) analysed, (\d+) of (\d+) events", err)
            extra = ""
            if m:
                w, an, tot = map(int, m.groups())
                extra = "%d, %d / %d (%.2f%%)" % (w, an, tot, 100.0 * an / tot)
            print("%-6s %-28s %9.2f %8.2f %s" % (str(sc) + "x", name, cpu, cpu / floor, extra), flush=True)


if __name__ == "__main__":
    sys.exit(main())
