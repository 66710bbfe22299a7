#!/usr/bin/env python3
"""rpt_detect.py -- what RPT sampling costs in detection on long runs
(issue 32, item 5): workloads/planted.c (two threads with no order between
them, a race planted once and one planted 100 times) run under
--check=races --sample=rpt with seeds 1..N, and once in full
(--sample=none) for reference; per configuration, the runs whose reports
name each planted race, the events of the run and those analysed, CPU.

    perf/rpt_detect.py [--iters 1300000] [-n 10] [--opts ...]

About 78 events per iteration: 1.3 M iterations are 10^8 events.  Python 3
standard library; run it alone: it measures time."""
import argparse
import os
import re
import subprocess
import sys

import rpt_scaling                 # run(): a command's CPU and stderr

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = rpt_scaling.BUILD
BUGS = ("plant_once", "plant_recur")


def build():
    exe = os.path.join(BUILD, "perf-planted")
    subprocess.run(["cc", "-O2", "-g", "-pthread", "-o", exe,
                    os.path.join(HERE, "workloads", "planted.c")], check=True)
    return exe


def run(cmd):
    cpu, err = rpt_scaling.run(cmd)
    found = {b: bool(re.search(r"(?m)^==\d+==    at 0x[0-9A-F]+: %s " % b, err)) for b in BUGS}
    m = re.search(r"RPT sampling: (\d+) window\(s\) analysed, (\d+) of (\d+) events", err)
    return cpu, found, (int(m.group(2)), int(m.group(3))) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=1300000)
    ap.add_argument("-n", type=int, default=10, help="seeds")
    ap.add_argument("--full", action="store_true", help="also one run with --sample=none")
    ap.add_argument("--opts", default="", help="more atomgrind options")
    args = ap.parse_args()
    exe = build()
    vip = os.path.join(ROOT, "vg-in-place")
    base = [vip, "--tool=atomgrind", "--check=races"] + args.opts.split()
    hits = {b: 0 for b in BUGS}
    for seed in range(1, args.n + 1):
        cpu, found, ev = run(base + ["--sample=rpt", "--sample-seed=%d" % seed, exe, str(args.iters)])
        for b in BUGS:
            hits[b] += found[b]
        print("seed %2d  %6.1f cpu  %s  analysed %s" % (
            seed, cpu, "  ".join("%s %s" % (b, "yes" if found[b] else "no ") for b in BUGS),
            "%d of %d events" % ev if ev else "?"), flush=True)
    print("rpt, %d seeds: " % args.n + ", ".join("%s %d/%d" % (b, hits[b], args.n) for b in BUGS))
    if args.full:
        cpu, found, _ = run(base + ["--sample=none", exe, str(args.iters)])
        print("full (--sample=none): %.1f cpu, %s" % (
            cpu, ", ".join("%s %s" % (b, "yes" if found[b] else "no") for b in BUGS)))


if __name__ == "__main__":
    sys.exit(main())
