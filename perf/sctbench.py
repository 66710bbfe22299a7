#!/usr/bin/env python3
"""sctbench.py -- how many of SCTBench's buggy pthread programs show their
bug under atomgrind's scheduler.

    perf/sctbench.py /tmp/sctbench                  # 10 seeds each, 2 jobs
    perf/sctbench.py /tmp/sctbench -n 20 -k reorder,wronglock
    perf/sctbench.py /tmp/sctbench --vg-opts='--sched=pct'

SCTBench (Thomson, Donaldson, Betts: "Concurrency testing using
controlled schedulers: an empirical study", TOPC 2016;
github.com/mc-imperial/sctbench) is a checkout OUTSIDE this repository:
its code is built from there, never copied here.  The 44 programs are
the pthread ones of its benchmarks/buggy.txt (49 less PARSEC's 4 and
radbench bug1, which need inputs or tarballs the repository lacks).
Each is built as its own build script builds it (flags and all: -O0 -g
for most), in a copy under --work (default /tmp/ag-sctbench), and run
with the arguments its run script gives (NUMTHREADS=2, run_many.py's
default).

Each program runs -n times as `valgrind --tool=atomgrind
--sched-seed=S prog args` for n seeds S from --first-seed (1), --jobs at a time (nice'd), each
killed after --timeout seconds.  A run shows the bug when the program
failed: killed by a signal (an assertion's abort, a crash) or a non-zero
exit status (a Deadlock report ends the run with 1).  A hang (killed at
the timeout) or a run whose only finding is an atomgrind report
(violation, race, lock order) does not show the bug, but
atomgrind-explore -n N counts both: the "explore" total is the programs
for which those n seeds (explore's own, from 1) had a failing run of any kind.
The last line sums each program's chance to fail within 10 runs, from its
rate here: a single 10-run count swings by 2 or 3 programs between seed
ranges, so compare builds on -n 30 or more, on fresh seeds
(--first-seed).
A given --sched-seed alone starts from no learned race sites; pass
--vg-opts=--sched-races=auto to have each run start from those the runs
before it learned, as a run without a seed and atomgrind-explore do.
Each invocation's runs share a fresh $TMPDIR, where learned sites and
PCT's lengths are kept: one measurement never starts from what an
earlier one (another build, other options) learned.  Python 3 standard library only."""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NT = "2"                         # run_many.py's default --numthreads

CS = ["account_bad", "arithmetic_prog_bad", "bluetooth_driver_bad", "carter01_bad",
      "circular_buffer_bad", "deadlock01_bad", "din_phil2_sat", "din_phil3_sat",
      "din_phil4_sat", "din_phil5_sat", "din_phil6_sat", "din_phil7_sat", "fsbench_bad",
      "lazy01_bad", "phase01_bad", "queue_bad", "reorder_10_bad", "reorder_20_bad",
      "reorder_3_bad", "reorder_4_bad", "reorder_5_bad", "stack_bad", "sync01_bad",
      "sync02_bad", "token_ring_bad", "twostage_100_bad", "twostage_bad",
      "wronglock_3_bad", "wronglock_bad"]
CHESS = ["InterlockedWorkStealQueue", "InterlockedWorkStealQueueWithState",
         "StateWorkStealQueue", "WorkStealQueue"]


def first_line_args(src):
    """The benchmark's own arguments: its first line's 'args:' comment."""
    with open(src, errors="replace") as f:
        m = re.search(r"args[:](.*)", f.readline())
    return m.group(1).strip().replace("{NUMTHREADS}", NT).split() if m else []


def programs(sct):
    """(name, build, run) for each of the 44: build(workdir) makes the
    program and returns (run directory, argv, stdin file or None, extra
    environment or None)."""
    B = os.path.join(sct, "benchmarks")
    out = []

    def single(suite, base, ext, cc, flags):
        src = os.path.join(B, suite, base + ext)

        def build(w):
            exe = os.path.join(w, base + ".x")
            if not os.path.exists(exe):
                subprocess.run([cc, "-o", exe, src] + flags, check=True, cwd=w,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            return w, [exe] + first_line_args(src), None, None
        return build

    def made(suite_dir, steps, exe, args, stdin=None, copy=None, libdir=None):
        """Copy suite_dir to the work dir, run the build steps there."""
        def build(w):
            d = os.path.join(w, "src")
            if not os.path.exists(os.path.join(d, exe)):
                shutil.rmtree(d, ignore_errors=True)
                shutil.copytree(os.path.join(B, suite_dir), d, symlinks=True)
                for cwd, cmd in steps:
                    subprocess.run(cmd, shell=True, check=True, cwd=os.path.join(d, cwd),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            run = os.path.join(d, os.path.dirname(exe))
            for c in copy or []:
                shutil.copy(os.path.join(d, c), run)
            env = {"LD_LIBRARY_PATH": os.path.join(d, libdir)} if libdir else None
            return (run, [os.path.join(d, exe)] + args,
                    os.path.join(d, stdin) if stdin else None, env)
        return build

    for p in CHESS:
        out.append(("chess/" + p, single("chess", p, ".cpp", "g++",
                                         ["-std=c++0x", "-pthread", "-g", "-O0"])))
    out.append(("conc-bugs/aget-bug2", made(
        "conc-bugs/aget-bug2", [("aget-devel", "make")], "aget-devel/aget",
        ["-l", "dl.txt", "http://www.gnu.org/licenses/gpl.txt"])))
    out.append(("conc-bugs/pbzip2-0.9.4", made(
        "conc-bugs/pbzip2-0.9.4", [("bzip2-1.0.6", "make libbz2.a"), ("pbzip2-0.9.4", "make")],
        "pbzip2-0.9.4/pbzip2", ["-k", "-f", "-p" + NT, "-1", "-b1", "test.tar"],
        copy=["test.tar"])))
    out.append(("conc-bugs/stringbuffer-jdk1.4", made(
        "conc-bugs/stringbuffer-jdk1.4", [(".", "make")], "main", [])))
    for p in CS:
        out.append(("CS/" + p, single("concurrent-software-benchmarks", p, ".c", "gcc",
                                      ["-pthread", "-g", "-O0"])))
    out.append(("inspect_examples/ctrace-test", single(
        "inspect_examples", "ctrace-test", ".c", "gcc", ["-pthread", "-g"])))
    out.append(("inspect_benchmarks/qsort_mt", single(
        "inspect_benchmarks", "qsort_mt", ".c", "gcc", ["-pthread", "-g"])))
    # Their NSPR's configure builds for i386 (-m32) unless told otherwise;
    # this Valgrind checks amd64 code, so NSPR is configured --enable-64bit
    # (bug2's README runs test-ctxt with its libjs.so on LD_LIBRARY_PATH).
    sixty4 = r"sed -i 's|nsprpub/configure$|nsprpub/configure --enable-64bit|' scripts/"
    for bug, exe, script, libdir in (
            ("bug2", "test-ctxt", "build-js.sh", "src/js/src/Linux_All_DBG.OBJ"),
            ("bug6", "test-rw", "build-nspr.sh", None)):
        out.append(("radbench/" + bug, made(
            "radbench/Benchmarks/" + bug, [(".", sixty4 + script + " && make")],
            "bin/" + exe, [], libdir=libdir)))
    out.append(("safestack", single("safestack", "SafeStack", ".cpp", "g++",
                                    ["-std=c++0x", "-g", "-O0", "-pthread"])))
    out.append(("splash2/barnes", made("splash2", [("apps/barnes", "make")],
                                       "apps/barnes/BARNES", [], stdin="apps/barnes/input")))
    out.append(("splash2/fft", made("splash2", [("kernels/fft", "make")],
                                    "kernels/fft/FFT", ["-p2", "-m2", "-n4", "-l4"])))
    out.append(("splash2/lu", made("splash2", [("kernels/lu/non_contiguous_blocks", "make")],
                                   "kernels/lu/non_contiguous_blocks/LU", ["-p2", "-n2", "-b1"])))
    return out


def classify(rc, timed_out, log):
    """(bug shown?, atomgrind reported?, short label) for one run."""
    errors = sum(int(x) for x in re.findall(r"ERROR SUMMARY: (\d+) errors", log))
    if timed_out:                          # explore counts it, the benchmark does not
        return False, True, "hang"
    m = re.search(r"Process terminating with default action of signal (\d+) \((\w+)\)", log)
    if "the program is deadlocked" in log:
        return True, True, "deadlock"
    if m:
        return True, errors > 0, "assert" if m.group(2) == "SIGABRT" else m.group(2)
    if "ERROR SUMMARY" not in log:         # Valgrind itself did not finish
        return False, False, "vgfail"
    if rc != 0:
        return True, errors > 0, "exit%d" % rc
    return False, errors > 0, "report" if errors else "ok"


def run_one(vg, vg_opts, prog, seed, timeout, logdir):
    run, argv, stdin, env = prog
    log = os.path.join(logdir, "seed%d.log" % seed)
    cmd = ["nice", vg, "--tool=atomgrind", "--log-file=" + log, "--sched-seed=%d" % seed] \
        + vg_opts + argv
    fin = open(stdin) if stdin else subprocess.DEVNULL
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=run, stdin=fin, stdout=subprocess.DEVNULL,
                         env=dict(os.environ, **env) if env else None,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        rc, timed_out = p.wait(timeout=timeout), False
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.wait()
        rc, timed_out = None, True
    if stdin:
        fin.close()
    try:
        with open(log, errors="replace") as f:
            text = f.read()
    except OSError:
        text = ""
    return classify(rc, timed_out, text) + (time.time() - t0,)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sctbench", help="a checkout of github.com/mc-imperial/sctbench")
    ap.add_argument("-n", type=int, default=10, help="seeds per program (10)")
    ap.add_argument("--first-seed", type=int, default=1,
                    help="the first seed (1): another sample of schedules, for rates")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="runs at once (2)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per run (60)")
    ap.add_argument("-k", help="only programs whose name contains one of these (comma-separated)")
    ap.add_argument("--vg-opts", default="", help="more valgrind options")
    ap.add_argument("--valgrind", default=os.path.join(ROOT, "vg-in-place"))
    ap.add_argument("--build", help="the atomgrind build to use (vg-in-place's AG_BUILD)")
    ap.add_argument("--work", default="/tmp/ag-sctbench")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.sctbench, "benchmarks", "buggy.txt")):
        ap.error("%s: not an SCTBench checkout (no benchmarks/buggy.txt)" % args.sctbench)
    if args.build:
        os.environ["AG_BUILD"] = os.path.abspath(args.build)
    progs = programs(os.path.abspath(args.sctbench))
    if args.k:
        keys = args.k.split(",")
        progs = [p for p in progs if any(k in p[0] for k in keys)]
    built = {}
    for name, build in progs:
        w = os.path.join(args.work, name.replace("/", "_"))
        os.makedirs(w, exist_ok=True)
        try:
            built[name] = build(w)
        except (subprocess.CalledProcessError, OSError) as e:
            err = getattr(e, "stderr", b"") or b""
            last = err.decode(errors="replace").strip().splitlines()[-1:] or [str(e)]
            print("%-45s build failed: %s" % (name, last[0][:80]), flush=True)
    jobs = []
    for name, _ in progs:
        if name in built:
            logdir = os.path.join(args.work, name.replace("/", "_"), "logs")
            os.makedirs(logdir, exist_ok=True)
            jobs += [(name, s, logdir) for s in range(args.first_seed, args.first_seed + args.n)]
    res = {}
    opts = args.vg_opts.split()
    with tempfile.TemporaryDirectory(prefix="ag-sctbench-") as tmp:
        os.environ["TMPDIR"] = tmp            # nothing learned before this invocation
        with ThreadPoolExecutor(max_workers=args.jobs) as ex:
            futs = [(n, s, ex.submit(run_one, args.valgrind, opts, built[n], s, args.timeout, d))
                    for n, s, d in jobs]
            for n, s, f in futs:
                res.setdefault(n, []).append(f.result())
                if len(res[n]) == args.n:
                    show(n, res[n])
    total = len(progs)
    shown = sum(1 for n in res if any(r[0] for r in res[n]))
    first = sum(1 for n in res if res[n][0][0])
    explore = sum(1 for n in res if any(r[0] or r[1] for r in res[n]))
    print("\n%d programs, %d built; bug shown within %d runs: %d; in seed %d's run: %d; "
          "atomgrind-explore -n %d would fail (bug or report): %d"
          % (total, len(built), args.n, shown, args.first_seed, first, args.n, explore))
    # One sample of 10 runs swings by 2-3 programs; the rates say more.
    expected = sum(1 - (1 - failing(res[n]) / len(res[n])) ** 10 for n in res)
    print("expected to show within 10 runs, from these rates (sum of 1-(1-k/n)^10): %.1f"
          % expected)


def failing(runs):
    """How many of a program's runs showed the bug."""
    return sum(1 for r in runs if r[0])


def show(name, runs):
    labels = {}
    for r in runs:
        labels[r[2]] = labels.get(r[2], 0) + 1
    k = failing(runs)
    print("%-45s %2d/%-2d  %-40s %5.1fs/run" % (
        name, k, len(runs), " ".join("%s:%d" % kv for kv in sorted(labels.items())),
        sum(r[3] for r in runs) / len(runs)), flush=True)


if __name__ == "__main__":
    main()
