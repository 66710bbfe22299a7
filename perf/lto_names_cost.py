#!/usr/bin/env python3
"""lto_names_cost.py -- what naming -flto's inlined frames costs (issue 33):
atomgrind-inlines run once on a real program built with -flto, against the
same run with the helper off (ATOMGRIND_INLINES=, the inlined instances
then stay unnamed and unchecked) and --tool=none.

    perf/lto_names_cost.py --exe PROG --fns F,G [--repeat 5] -- ARGS...

Configurations, run in turn in every repetition (paired):
    none         --tool=none
    off          atomgrind --atomic-fns=F,G, helper off
    on           atomgrind --atomic-fns=F,G (the helper names the frames:
                 its cost and that of the regions it makes checkable)
    nomatch-off  atomgrind --atomic-fns=no_such_function, helper off
    nomatch-on   the same, helper on: the helper's cost alone (it runs as
                 soon as an unnamed frame is looked up)
Prints CPU s (user+sys, the helper's included: it is a child) and wall s
per run, their medians, the regions each atomgrind run entered, and the
helper's own time on PROG.  results/lto_names.md has a run on zstd."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import vg_bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--fns", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    os.makedirs(vg_bench.TMP, exist_ok=True)
    vg = [os.path.join(ROOT, "vg-in-place")]
    env = dict(os.environ, AG_BUILD=a.build)
    ag = vg + ["--tool=atomgrind", "-v", "--stats=yes"]
    spec = ag + ["--atomic-fns=" + a.fns]
    nomatch = ag + ["--atomic-fns=no_such_function"]
    off = dict(env, ATOMGRIND_INLINES="")
    configs = [("none", vg + ["--tool=none"], env),
               ("off", spec, off), ("on", spec, env),
               ("nomatch-off", nomatch, off), ("nomatch-on", nomatch, env)]
    helper = os.path.join(a.build, "atomgrind-inlines")
    t0 = time.monotonic()
    out = subprocess.run([helper, a.exe], capture_output=True, check=True).stdout
    print("atomgrind-inlines alone: %.3f s wall, %d range(s)"
          % (time.monotonic() - t0, out.count(b"\n") - 1))
    cpu = {c[0]: [] for c in configs}
    wall = {c[0]: [] for c in configs}
    for rep in range(a.repeat):
        for name, cmd, e in configs:
            rc, w, c, _rss, err = vg_bench.run_measured(cmd + [a.exe] + a.args, env=e)
            m = re.search(r"regions: \d+ marked, \d+ call\(s\) of atomic functions, (\d+) inlined", err)
            cpu[name].append(c)
            wall[name].append(w)
            n = re.search(r"inline names: .*, (\d+) frame\(s\) named, \d+ not", err)
            print("%d %-11s rc=%d cpu %.2f s wall %.2f s inlined regions %s, frames named %s"
                  % (rep, name, rc, c, w, m.group(1) if m else "-", n.group(1) if n else "-"),
                  flush=True)
    for name, _c, _e in configs:
        print("median %-11s cpu %.2f s wall %.2f s" % (name, statistics.median(cpu[name]),
                                                       statistics.median(wall[name])))
    for on, off_ in (("on", "off"), ("nomatch-on", "nomatch-off")):
        print("%s - %s: cpu %+.2f s, wall %+.2f s" % (
            on, off_, statistics.median(cpu[on]) - statistics.median(cpu[off_]),
            statistics.median(wall[on]) - statistics.median(wall[off_])))


if __name__ == "__main__":
    main()
