#!/usr/bin/env python3
"""stdio_cost.py -- what the stdio-lock model (atomgrind/analysis/ag_stdio.c) costs:
perf/workloads/stdio_threads.c (3 threads x 5000 fprintf lines to one FILE,
each line in the atomic function log_line) built with Debian's CFLAGS,
paired runs of --tool=none, DRD, and atomgrind (--atomic-fns=log_line, and
--check=races) by this build and by --base=BUILD (before the model).

    perf/stdio_cost.py --base BUILD [--repeat 3]"""
import argparse, os, subprocess, sys, statistics
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import vg_bench  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--base", required=True)
ap.add_argument("--repeat", type=int, default=3)
args = ap.parse_args()
os.makedirs(vg_bench.TMP, exist_ok=True)
exe = os.path.join(vg_bench.TMP, "stdio_threads")
flags = subprocess.run(["dpkg-buildflags", "--get", "CFLAGS"], capture_output=True, text=True,
                       check=True).stdout.split()
subprocess.run(["cc", *flags, "-pthread", os.path.join(HERE, "workloads", "stdio_threads.c"),
                "-o", exe], check=True)
vg = [os.path.join(ROOT, "vg-in-place")]
new = dict(os.environ, AG_BUILD=os.path.join(ROOT, "build"))
base = dict(os.environ, AG_BUILD=args.base)
cfgs = [("none", ["--tool=none"], new), ("drd", ["--tool=drd"], new),
        ("base-fns", ["--tool=atomgrind", "--atomic-fns=log_line", "-q"], base),
        ("new-fns", ["--tool=atomgrind", "--atomic-fns=log_line", "-q"], new),
        ("base-races", ["--tool=atomgrind", "--check=races", "-q"], base),
        ("new-races", ["--tool=atomgrind", "--check=races", "-q"], new)]
cpu = {n: [] for n, _, _ in cfgs}
for rep in range(args.repeat):
    for n, o, e in cfgs:
        rc, wall, c, rss, err = vg_bench.run_measured(vg + o + [exe, "3", "5000"], env=e)
        cpu[n].append(c)
        print("rep %d %-10s rc %d cpu %.2f s" % (rep + 1, n, rc, c), flush=True)
med = {n: statistics.median(v) for n, v in cpu.items()}
print("\nmedian CPU s, %d paired runs, stdio_threads 3 x 5000 fprintf lines (Debian CFLAGS):" % args.repeat)
for n, _, _ in cfgs:
    print("  %-10s %6.2f (%.2fx none)" % (n, med[n], med[n] / med["none"]))
print("  new-fns / base-fns %.3fx   new-races / base-races %.3fx" % (med["new-fns"] / med["base-fns"], med["new-races"] / med["base-races"]))
