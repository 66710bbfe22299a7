#!/usr/bin/env python3
"""inline_cost.py -- what regions of inlined functions cost (issue 33), on
a real -O2 program: perf/workloads/lzpack.c built with Debian's CFLAGS
(dpkg-buildflags), whose atomic functions next_block and record_block are
inlined into its worker.

Configurations, run in turn in every repetition (paired, so that a loaded
machine shifts them alike):
    none      --tool=none
    drd       --tool=drd
    spec-off  atomgrind --atomic-fns=next_block,record_block --inline-regions=no
              (frames tracked, nothing inlined checked: what the spec cost before)
    spec      atomgrind --atomic-fns=next_block,record_block (inline regions)
    nomatch   atomgrind --atomic-fns=no_such_function (inline tracking on,
              nothing matched: the look-ups and the per-block check alone)
    calls     atomgrind with the spec on the same program built with
              -fno-inline-functions-called-once -fno-inline-small-functions
              -fno-inline-functions: the same regions as calls
    native    spec, --sched=native (what the scheduler adds)

    base-*    with --base=BUILD: spec and nomatch run by another build (the
              same programs, paired: before/after a change)

Prints CPU s (user+sys) per run, the median of each, and the ratios.
Python 3 standard library; vg_bench's measuring helper.

    perf/inline_cost.py [--repeat 5] [--size 4537760] [--build BUILD] [--base BUILD]"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import vg_bench  # noqa: E402

SPEC = "--atomic-fns=next_block,record_block"
CONFIGS = [
    ("none", ["--tool=none"]),
    ("drd", ["--tool=drd"]),
    ("spec-off", ["--tool=atomgrind", SPEC, "--inline-regions=no"]),
    ("spec", ["--tool=atomgrind", SPEC]),
    ("nomatch", ["--tool=atomgrind", "--atomic-fns=no_such_function"]),
    ("calls", ["--tool=atomgrind", SPEC]),
    ("native", ["--tool=atomgrind", SPEC, "--sched=native"]),
]
NOINLINE = ["-fno-inline-functions-called-once", "-fno-inline-small-functions",
            "-fno-inline-functions"]


def build(out, extra=()):
    flags = subprocess.run(["dpkg-buildflags", "--get", "CFLAGS"], capture_output=True,
                           text=True, check=True).stdout.split()
    subprocess.run(["cc", *flags, *extra, "-pthread",
                    os.path.join(HERE, "workloads", "lzpack.c"), "-o", out], check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--size", type=int, default=4 << 20)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--base", help="another build to run spec and nomatch with, paired")
    args = ap.parse_args()
    configs = list(CONFIGS)
    if args.base:
        configs += [("base-spec", ["--tool=atomgrind", SPEC]),
                    ("base-nomatch", ["--tool=atomgrind", "--atomic-fns=no_such_function"])]
    os.makedirs(vg_bench.TMP, exist_ok=True)
    exe = os.path.join(vg_bench.TMP, "lzpack")
    build(exe)
    exe_calls = exe + "-calls"
    build(exe_calls, NOINLINE)
    inp = os.path.join(vg_bench.TMP, "lzpack.in")
    vg_bench.gen_input(inp, args.size)
    vg = [os.path.join(ROOT, "vg-in-place")]
    env = dict(os.environ, AG_BUILD=args.build)
    base_env = dict(os.environ, AG_BUILD=args.base or args.build)
    cpu = {name: [] for name, _ in configs}
    for rep in range(args.repeat):
        for name, opts in configs:
            rc, wall, c, rss, err = vg_bench.run_measured(
                vg + opts + [exe_calls if name == "calls" else exe, "-t", "2", inp],
                env=base_env if name.startswith("base-") else env)
            if rc != 0:
                sys.exit("%s failed (rc %d):\n%s" % (name, rc, err[-2000:]))
            cpu[name].append(c)
            print("rep %d %-9s cpu %.2f s" % (rep + 1, name, c), flush=True)
    med = {n: statistics.median(v) for n, v in cpu.items()}
    print("\nmedian CPU s over %d paired runs (lzpack -t 2, %d bytes):" % (args.repeat, args.size))
    for n, _ in configs:
        print("  %-12s %6.2f  (%.2fx none)" % (n, med[n], med[n] / med["none"]))
    print("  nomatch / spec-off: %.3fx (tracking alone)   spec / calls: %.3fx (inlined vs called)"
          % (med["nomatch"] / med["spec-off"], med["spec"] / med["calls"]))
    print("  spec / drd: %.2fx   spec / native: %.2fx"
          % (med["spec"] / med["drd"], med["spec"] / med["native"]))
    if args.base:
        print("  spec / base-spec: %.3fx   nomatch / base-nomatch: %.3fx (this build / base)"
              % (med["spec"] / med["base-spec"], med["nomatch"] / med["base-nomatch"]))


if __name__ == "__main__":
    main()
