#!/usr/bin/env python3
"""predict_bench.py -- what prediction costs a spec'd real program (issue
32): Debian's compressors with the specs in results/specs (as
spec_bench.py runs them), paired rounds of DRD, atomgrind's defaults,
--predict=yes under the default scheduler, --sched=native (prediction on
by default there) and --predict=no; CPU seconds and peak RSS, and the
median over rounds of each ratio to DRD.

    perf/predict_bench.py -p xz,pigz --size 1048576 --repeat 2

Each round runs every configuration once, in turn, so the ratios are taken
on a machine in the same state.  Python 3 standard library; imports
vg_bench's and spec_bench's helpers.  Run it alone: it measures time."""

import argparse
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import vg_bench  # noqa: E402  (run_measured, gen_input, TMP)
import spec_bench  # noqa: E402  (PROGRAMS, find_program)

CONFIGS = [("drd", None, []),
           ("ag", "", []),
           ("ag:predict", "", ["--predict=yes"]),
           ("ag:native", "", ["--sched=native"]),
           ("ag:native-nopred", "", ["--sched=native", "--predict=no"]),
           ("ag:unbounded", "", ["--predict-memory=0"]),
           ("ag:nopredict", "", ["--predict=no"]),
           ("ag:pm32", "", ["--predict-memory=32"])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-p", "--programs", type=lambda s: s.split(","), default=["xz", "pigz"])
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("-c", "--configs", type=lambda s: s.split(","),
                    default=[c[0] for c in CONFIGS[:5]],
                    help="configurations, of " + ",".join(c[0] for c in CONFIGS))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--build", default=os.environ.get("AG_BUILD", os.path.join(ROOT, "build")))
    ap.add_argument("--specs", default=os.path.join(HERE, "results", "specs"))
    args = ap.parse_args()
    work = os.path.join(vg_bench.TMP, "programs")
    os.makedirs(work, exist_ok=True)
    inp = vg_bench.gen_input(os.path.join(vg_bench.TMP, "input-%d.txt" % args.size), args.size)
    env = dict(os.environ, AG_BUILD=os.path.abspath(args.build))
    vip = os.path.join(ROOT, "vg-in-place")
    for name, package, argv, _objs in spec_bench.PROGRAMS:
        if name not in args.programs:
            continue
        exe = spec_bench.find_program(name, package, work)
        if not exe:
            continue
        run = [exe] + argv[1:] + [inp]
        spec = os.path.join(args.specs, name + ".spec")
        configs = [c for c in CONFIGS if c[0] in args.configs or c[0] == "drd"]
        cells = {c[0]: [] for c in configs}
        for rnd in range(args.repeat):
            for cname, _, extra in configs:
                if cname == "drd":
                    cmd = ["valgrind", "--tool=drd"] + run
                else:
                    cmd = [vip, "--tool=atomgrind", "--atomic-spec=" + spec] + extra + run
                code, wall, cpu, rss, err = vg_bench.run_measured(cmd, timeout=args.timeout, env=env)
                m = re.search(r"ERROR SUMMARY: (\d+) errors", err)
                cells[cname].append((cpu, rss / 1024.0, m.group(1) if m else "?"))
                print("  %-6s round %d %-17s %7.2f cpu %7.1f MiB  %s errors" % (
                    name, rnd + 1, cname, cpu, rss / 1024.0, m.group(1) if m else "?"), flush=True)
        print("%-6s %-17s %9s %9s %9s %9s" % (name, "config", "cpu s", "x DRD", "MiB", "x DRD"))
        for cname, _, _ in configs:
            cpu = statistics.median(c[0] for c in cells[cname])
            rss = statistics.median(c[1] for c in cells[cname])
            rc = statistics.median(c[0] / d[0] for c, d in zip(cells[cname], cells["drd"]))
            rm = statistics.median(c[1] / d[1] for c, d in zip(cells[cname], cells["drd"]))
            print("%-6s %-17s %9.2f %9.2f %9.1f %9.2f" % (name, cname, cpu, rc, rss, rm), flush=True)


if __name__ == "__main__":
    main()
