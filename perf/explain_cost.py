#!/usr/bin/env python3
"""The cost of the cycle ring (--explain-dir, -v; atomgrind/report/ag_cycles.c) on
workloads/stress.c: paired, interleaved runs of the default, --explain-dir
and -v, and the default of another build (--base, e.g. one without the
ring), CPU seconds (user+sys of the children), best and median of N.

    perf/explain_cost.py [--base OTHER_BUILD] [--repeat 5] [-n 100000]
"""
import argparse
import os
import resource
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def cpu(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", help="another build directory, run with default options")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("-n", type=int, default=100000, help="stress iterations per thread")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, "stress")
    subprocess.run(["cc", "-O2", "-g", "-pthread", "-I", os.path.join(REPO, "atomgrind"),
                    os.path.join(HERE, "workloads", "stress.c"), "-o", exe], check=True)
    build = os.environ.get("AG_BUILD", os.path.join(REPO, "build"))
    configs = [("default", build, [])]
    if a.base:
        configs.insert(0, ("base default", a.base, []))
    configs += [("--explain-dir", build, ["--explain-dir=" + tmp]), ("-v", build, ["-v"])]
    times = {name: [] for name, _, _ in configs}
    for _ in range(a.repeat):
        for name, b, opts in configs:
            env = dict(os.environ, AG_BUILD=b)
            cmd = [os.path.join(REPO, "vg-in-place"), "--tool=atomgrind", *opts, exe, "-n", str(a.n)]
            times[name].append(cpu(cmd, env))
    ref = statistics.median(times["default"])
    print("%-14s %8s %8s %8s" % ("config", "best", "median", "ratio"))
    for name, _, _ in configs:
        t = times[name]
        print("%-14s %8.2f %8.2f %8.3f" % (name, min(t), statistics.median(t),
                                           statistics.median(t) / ref))


if __name__ == "__main__":
    main()
