#!/usr/bin/env python3
"""sched_cost.py -- what atomgrind's scheduler costs: wall and CPU time of
workloads under atomgrind with each scheduler, against a reference build
(typically the one before the scheduler, with --yield-at-regions=yes and
=no), paired runs interleaved, best of --repeat.

    perf/sched_cost.py --base /tmp/base/build --repeat 3
    perf/sched_cost.py -w regions,stress -c new:random,new:native

Workloads: regions (perf/workloads/regions.c: 4 threads x 20,000 short
locked regions), stress (perf/workloads/stress.c, as in vg_bench.py
--quick), xz -T2 and zstd -T2 on a generated 1 MiB text (when installed).
Configurations: base:yield, base:noyield (the --base build, which must
still know --yield-at-regions), base:random (a --base build that has the
scheduler already), new:random, new:pct, new:native (this
tree's build).  Ratios are to base:noyield (the run with no perturbation).
Python 3 standard library only.  Run it alone: it measures time."""

import argparse
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TMP = "/tmp/ag-sched-cost"


def build(src, exe):
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run(["cc", "-O2", "-g", "-pthread", "-I", os.path.join(ROOT, "atomgrind"),
                        "-o", exe, src], check=True)
    return exe


def gen_input(path, size):
    if not os.path.exists(path):
        rnd = random.Random(7)
        words = ["".join(rnd.choice("abcdefghij") for _ in range(rnd.randint(2, 9)))
                 for _ in range(2000)]
        with open(path, "w") as f:
            n = 0
            while n < size:
                line = " ".join(rnd.choice(words) for _ in range(12)) + "\n"
                f.write(line)
                n += len(line)
    return path


def workloads(names):
    os.makedirs(TMP, exist_ok=True)
    inp = gen_input(os.path.join(TMP, "input.txt"), 1 << 20)
    wl = {
        "regions": ([build(os.path.join(HERE, "workloads", "regions.c"), os.path.join(TMP, "regions"))],
                    None),
        "stress": ([build(os.path.join(HERE, "workloads", "stress.c"), os.path.join(TMP, "stress")),
                    "-t", "4", "-n", "4000", "-w", "4096"], None),
        "xz": (["xz", "-T2", "-1", "--block-size=131072", "-c"], inp),
        "zstd": (["zstd", "-q", "-T2", "-B131072", "-c"], inp),
    }
    out = []
    for n in names:
        argv, stdin = wl[n]
        if subprocess.run(["which", argv[0]], stdout=subprocess.DEVNULL).returncode != 0 \
                and not os.path.exists(argv[0]):
            print("# %s: not installed, skipped" % n)
            continue
        out.append((n, argv, stdin))
    return out


def run(build_dir, opts, argv, stdin):
    cmd = [os.path.join(ROOT, "vg-in-place"), "--tool=atomgrind", "-q", *opts, *argv]
    env = dict(os.environ, AG_BUILD=build_dir)
    t0 = time.time()
    with open(stdin or os.devnull, "rb") as fin:
        p = subprocess.Popen(cmd, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env=env)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.time() - t0
    return wall, ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="build directory of the reference atomgrind")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="this tree's build")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-w", default="regions,stress,xz,zstd")
    ap.add_argument("-c", default="base:yield,base:noyield,new:random,new:pct,new:native")
    args = ap.parse_args()
    cfgs = {
        "base:yield": (args.base, ["--yield-at-regions=yes"]),
        "base:noyield": (args.base, ["--yield-at-regions=no"]),
        "base:random": (args.base, ["--sched=random", "--sched-seed=1"]),
        "new:random": (args.build, ["--sched=random", "--sched-seed=1"]),
        "new:pct": (args.build, ["--sched=pct", "--sched-seed=1"]),
        "new:native": (args.build, ["--sched=native"]),
    }
    names = args.c.split(",")
    print("%-8s %-13s %8s %8s %7s %7s" % ("workload", "config", "wall s", "cpu s", "wall x", "cpu x"))
    for wname, argv, stdin in workloads(args.w.split(",")):
        best = {}
        for _ in range(args.repeat):
            for c in names:           # interleaved: drift hits every config alike
                b, opts = cfgs[c]
                w, cpu, rc = run(b, opts, argv, stdin)
                if rc != 0:
                    print("# %s %s: exit %d" % (wname, c, rc))
                old = best.get(c)
                best[c] = (min(w, old[0]), min(cpu, old[1])) if old else (w, cpu)
        ref = best.get("base:noyield")
        for c in names:
            w, cpu = best[c]
            rw = "%7.2f" % (w / ref[0]) if ref else "      -"
            rc = "%7.2f" % (cpu / ref[1]) if ref else "      -"
            print("%-8s %-13s %8.2f %8.2f %s %s" % (wname, c, w, cpu, rw, rc))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
