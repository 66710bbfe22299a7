#!/usr/bin/env python3
"""vg_bench.py -- atomgrind under Valgrind: wall time and peak memory against
the native run, --tool=none, Helgrind and DRD, on real multithreaded
programs and a synthetic stress program.

For every workload, every configuration runs as a child process; its wall
time and its peak RSS (ru_maxrss from wait4, which covers valgrind.bin: the
Debian wrapper script execs it) are taken from that same run.  CPU time
(user+sys) is shown too: on a shared machine it is the steadier number.

    perf/vg_bench.py                     # everything, default sizes
    perf/vg_bench.py --quick             # small inputs (a few minutes)
    perf/vg_bench.py --repeat 3          # best of 3 runs per cell
    perf/vg_bench.py -w pigz,stress -c native,none,helgrind,atomgrind
    perf/vg_bench.py --base /tmp/old/build -c drd,ag:races   # before/after

Workloads: stress (perf/workloads/stress.c, built here), pigz -p 2,
pbzip2 -p2, xz -T2, zstd -T2 (skipped with a note when not installed)
compressing a deterministic semi-compressible text file generated in /tmp.

Configurations: native, none, helgrind, drd, atomgrind (defaults),
atomgrind --engine=E for every engine the tool lists in --help,
atomgrind --check=races, atomgrind --sample=rpt, atomgrind
--skip-quiescent=no (ag:every: every access analysed, the cost when some
region is always open; the real programs have none), --track-frames=yes
(ag:frames) and --atomic-fns=all (ag:fns-all: every function of the
program is atomic).  An option the tool
refuses is skipped with a note.  With --base BUILD every ag: configuration
also runs under that other build (base:NAME, right after it in each
repetition), and each table ends with this build's time and peak RSS over
the base's.

Python 3 standard library only.  Run it alone: it measures time."""

import argparse
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TMP = os.environ.get("AG_BENCH_TMP", os.path.join(tempfile.gettempdir(), "atomgrind-vgbench"))


# ---------------------------------------------------------------- helpers

def note(msg):
    print("# " + msg, flush=True)


def gen_input(path, size, seed=20240601):
    """Deterministic text-like data: words from a fixed random vocabulary,
    with numbers; compresses to roughly 1/3-1/2 (like source or logs)."""
    if os.path.exists(path) and os.path.getsize(path) == size:
        return path
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 10)))
             for _ in range(4000)]
    out, n = [], 0
    while n < size:
        line = " ".join(rng.choices(vocab, k=rng.randint(6, 16)))
        line += " %d %08x\n" % (rng.randint(0, 99999), rng.getrandbits(32))
        out.append(line)
        n += len(line)
    data = "".join(out).encode()[:size]
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


def build_stress(build_dir):
    src = os.path.join(HERE, "workloads", "stress.c")
    exe = os.path.join(build_dir, "stress")
    if (not os.path.exists(exe)
            or os.path.getmtime(exe) < os.path.getmtime(src)):
        cc = os.environ.get("CC", "cc")
        cmd = [cc, "-O2", "-g", "-pthread", "-I", os.path.join(ROOT, "atomgrind"),
               src, "-o", exe]
        subprocess.run(cmd, check=True)
    return exe


# ru_maxrss is a high-water mark that the kernel carries across exec: a
# child forked from this Python process would start with Python's RSS
# (~15 MiB) already counted.  So the measured program is started by a tiny
# /bin/sh that exits at once; this process, a child subreaper, inherits the
# program and reaps it itself with wait4.
_SUBREAPER = None


def subreaper():
    global _SUBREAPER
    if _SUBREAPER is None:
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_CHILD_SUBREAPER = 36
            _SUBREAPER = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        except (OSError, AttributeError):
            _SUBREAPER = False
        if not _SUBREAPER:
            note("prctl(PR_SET_CHILD_SUBREAPER) failed: RSS of small programs "
                 "includes this Python process's")
    return _SUBREAPER


LAUNCH = ('exec 8<&0 9>&1 1>/dev/null; '
          '(read go <&{p}; exec {p}<&- "$@" <&8 8<&- 9>&-) & echo $! >&9')


def run_measured(argv, stdin_path=None, timeout=None, env=None):
    """Run argv; return (exit code, wall s, cpu s, maxrss KiB, stderr text).
    stdout goes to /dev/null, stderr is returned."""
    errf = tempfile.TemporaryFile(dir=TMP)
    fin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    if subreaper():
        # sh forks a subshell that waits for "go" on fd 6, prints its pid
        # and exits; the subshell, now ours, then execs the program
        r, w = os.pipe()
        os.set_inheritable(r, True)
        if r in (8, 9):
            r2 = os.dup(r) if r == 8 else r
            r2 = os.dup(r2) if r2 in (8, 9) else r2
            os.close(r)
            r = r2
            os.set_inheritable(r, True)
        sh = subprocess.Popen(["/bin/sh", "-c", LAUNCH.format(p=r), "sh"] + argv,
                              stdin=fin, stdout=subprocess.PIPE, stderr=errf,
                              env=env, pass_fds=(r,))
        os.close(r)
        pid = int(sh.stdout.readline())
        sh.stdout.close()
        sh.wait()
        t0 = time.monotonic()
        os.write(w, b"go\n")
        os.close(w)
    else:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdin=fin, stdout=subprocess.DEVNULL, stderr=errf,
                             env=env)
        pid = p.pid
    timed_out = False
    while True:
        wpid, status, ru = os.wait4(pid, os.WNOHANG)
        if wpid:
            break
        if timeout and time.monotonic() - t0 > timeout:
            os.kill(pid, signal.SIGKILL)
            wpid, status, ru = os.wait4(pid, 0)
            timed_out = True
            break
        time.sleep(0.002)
    wall = time.monotonic() - t0
    if not _SUBREAPER:
        p.returncode = 0   # reaped by wait4; keep Popen from waiting again
    if stdin_path:
        fin.close()
    errf.seek(0)
    err = errf.read().decode("utf-8", "replace")
    errf.close()
    code = None if timed_out else os.waitstatus_to_exitcode(status)
    return code, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, err


# ---------------------------------------------------------------- setup

def workloads(args, build_dir):
    sz = args.size
    inp = gen_input(os.path.join(TMP, "input-%d.txt" % sz), sz)
    # xz is ~5x slower per byte than the others: give it half the input
    xz_in = gen_input(os.path.join(TMP, "input-%d.txt" % (sz // 2)), sz // 2)
    stress = build_stress(build_dir)
    n = "4000" if args.quick else "20000"
    wl = [
        ("stress", [stress, "-t", "4", "-n", n, "-w", "4096"], None, None),
        # the input on stdin, the output to /dev/null
        ("pigz", ["pigz", "-p", "2", "-c"], inp, "pigz"),
        ("pbzip2", ["pbzip2", "-p2", "-c"], inp, "pbzip2"),
        # blocks small enough that both threads get work
        ("xz", ["xz", "-T2", "-1", "--block-size=%d" % max(65536, sz // 8), "-c"], xz_in, "xz"),
        ("zstd", ["zstd", "-q", "-T2", "-B%d" % max(65536, sz // 8), "-c"], inp, "zstd"),
        ("lbzip2", ["lbzip2", "-n2", "-c"], inp, "lbzip2"),
        # p7zip's xz format (7z's own needs a seekable output): LZMA2 in
        # two threads, to stdout; the binary itself (/usr/bin/7z is a
        # shell script that execs it)
        ("7z", ["/usr/lib/p7zip/7z", "a", "-txz", "-mmt2", "-mx3", "-si", "-so", "dummy"], xz_in, "7z"),
    ]
    out = []
    for name, argv, stdin, prog in wl:
        if args.workloads and name not in args.workloads:
            continue
        if prog and not shutil.which(argv[0]):
            note("%s: not installed, skipped (apt-get install -y %s)"
                 % (name, {"7z": "p7zip-full"}.get(prog, prog)))
            continue
        out.append((name, argv, stdin))
    return out


def atomgrind_cmd(args):
    vip = os.path.join(ROOT, "vg-in-place")
    return [vip, "--tool=atomgrind"]


def private_tmp(name):
    d = os.path.join(TMP, "tmp-" + name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def tool_env(args):
    env = dict(os.environ)
    env["AG_BUILD"] = args.build
    return env


def probe_option(args, opt):
    """Does the tool accept opt?  (Runs /bin/true under it.)"""
    code, _, _, _, err = run_measured(atomgrind_cmd(args) + ["-q", opt, "/bin/true"],
                                      env=tool_env(args), timeout=60)
    return code == 0, err.strip().splitlines()[-1:] if err.strip() else []


def engines(args):
    try:
        out = subprocess.run(atomgrind_cmd(args) + ["--help"], env=tool_env(args),
                             capture_output=True, text=True, timeout=60).stdout
    except OSError:
        return []
    names, grab = [], False
    for line in out.splitlines():
        if re.match(r"\s*--engine=", line):
            grab = True
            continue
        if grab:
            m = re.match(r"\s{6,}([a-z][a-z0-9_-]*)\s", line)
            if m:
                names.append(m.group(1))
            elif line.strip().startswith("--"):
                break
    return names


def configs(args):
    """(name, kind, extra argv) -- kind: native | valgrind | atomgrind."""
    cs = [("native", "native", []), ("none", "valgrind", ["--tool=none"]),
          ("helgrind", "valgrind", ["--tool=helgrind"]),
          ("drd", "valgrind", ["--tool=drd"]),
          ("atomgrind", "atomgrind", [])]
    for e in engines(args):
        cs.append(("ag:" + e, "atomgrind", ["--engine=" + e]))
    cs.append(("ag:races", "atomgrind", ["--check=races"]))
    # race reports with the earlier access's whole stack (Helgrind's default)
    cs.append(("ag:races-full", "atomgrind", ["--check=races", "--history-level=full"]))
    cs.append(("ag:rpt", "atomgrind", ["--sample=rpt"]))
    cs.append(("ag:rpt-races", "atomgrind", ["--sample=rpt", "--check=races"]))
    # every access analysed, as if some region were always open
    cs.append(("ag:every", "atomgrind", ["--skip-quiescent=no"]))
    # frames tracked (die_mem_stack at every rise of SP), and every
    # function of the program an atomic region (issue 12)
    cs.append(("ag:frames", "atomgrind", ["--track-frames=yes"]))
    cs.append(("ag:fns-all", "atomgrind", ["--atomic-fns=all"]))
    # the defaults and ag:every without prediction (--predict is on by default)
    cs.append(("ag:nopredict", "atomgrind", ["--predict=no"]))
    cs.append(("ag:every-nopredict", "atomgrind", ["--predict=no", "--skip-quiescent=no"]))
    # the defaults without the scheduler's perturbation: what it costs
    cs.append(("ag:native", "atomgrind", ["--sched=native"]))
    out = []
    for name, kind, extra in cs:
        if args.configs and name not in args.configs and not (
                name.startswith("ag:") and "ag:*" in args.configs):
            continue
        if kind == "atomgrind" and extra:
            ok, why = probe_option(args, extra[0])
            if not ok:
                note("%s: atomgrind refuses %s, skipped (%s)" % (name, extra[0], " ".join(why)))
                continue
        out.append((name, kind, extra))
        if kind == "atomgrind" and args.base:
            out.append((base_name(name), "base", extra))
    return out


def base_name(name):
    """The configuration's name under the --base build."""
    return "base:" + name[3:] if name.startswith("ag:") else "base"


def command(args, kind, extra, argv):
    # errors are counted from the summary line, so no -q
    if kind == "native":
        return argv
    if kind == "valgrind":
        return ["valgrind"] + extra + argv
    return atomgrind_cmd(args) + extra + argv      # atomgrind, base (by env)


ERR_RE = re.compile(r"ERROR SUMMARY: (\d+) errors")


# ---------------------------------------------------------------- main

def fmt_ratio(a, b):
    if a is None or not b:
        return "-"
    return "%.2f" % (a / b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small inputs")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per cell, the configurations alternating; the minimum is kept")
    ap.add_argument("--by", choices=("cpu", "wall"), default="cpu",
                    help="time ratios of CPU (user+sys) or wall time [cpu]")
    ap.add_argument("-w", "--workloads", type=lambda s: s.split(","), default=None,
                    help="comma list: stress,pigz,pbzip2,xz,zstd,lbzip2,7z")
    ap.add_argument("-c", "--configs", type=lambda s: s.split(","), default=None,
                    help="comma list: native,none,helgrind,drd,atomgrind,ag:ENGINE,ag:races,ag:rpt,ag:every,"
                         "ag:nopredict,ag:every-nopredict,ag:native"
                         " (ag:* = every ag: one)")
    ap.add_argument("--size", type=int, default=None, help="input bytes (default 3 MiB, --quick 512 KiB)")
    ap.add_argument("--build", default=os.environ.get("AG_BUILD", os.path.join(ROOT, "build")),
                    help="atomgrind build directory (default $AG_BUILD or <repo>/build)")
    ap.add_argument("--base", default=None,
                    help="another atomgrind build: each ag: configuration also runs under it (base:NAME)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    ap.add_argument("--log", default=None, help="append each measurement here (tab-separated)")
    args = ap.parse_args()
    if args.size is None:
        args.size = (512 << 10) if args.quick else (3 << 20)
    os.makedirs(TMP, exist_ok=True)
    if not os.path.exists(os.path.join(args.build, "atomgrind-amd64-linux")):
        sys.exit("vg_bench: no atomgrind build in %s (make it, or --build DIR)" % args.build)
    if args.base and not os.path.exists(os.path.join(args.base, "atomgrind-amd64-linux")):
        sys.exit("vg_bench: no atomgrind build in %s (--base)" % args.base)
    if not shutil.which("valgrind"):
        sys.exit("vg_bench: valgrind not found")

    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
            cpu = m.group(1) if m else ""
    except OSError:
        pass
    vgver = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
    note("%s  %s, %d cpus, %s; %s; build %s" % (
        time.strftime("%Y-%m-%d %H:%M %Z"), cpu, os.cpu_count() or 0,
        os.uname().release, vgver, args.build))
    if args.base:
        note("base build (base:*) %s" % args.base)
    note("input %d bytes%s, repeat %d (min kept)" % (args.size, " (quick)" if args.quick else "",
                                                     args.repeat))
    wls = workloads(args, TMP)
    cfgs = configs(args)
    # each build learns race sites (and PCT's lengths) in its own $TMPDIR:
    # what one build learned must not steer the other's runs
    env = dict(tool_env(args), TMPDIR=private_tmp("this"))
    base_env = dict(env, AG_BUILD=args.base, TMPDIR=private_tmp("base")) if args.base else None
    log = open(args.log, "a") if args.log else None

    results = {}   # (workload, config) -> dict
    for wname, argv, stdin in wls:
        runs = {c[0]: [] for c in cfgs}
        # the configurations alternate within each repetition: this
        # machine's speed drifts, and a drift then hits every column alike
        for _ in range(args.repeat):
            for cname, kind, extra in cfgs:
                code, wall, cpu_s, rss, err = run_measured(
                    command(args, kind, extra, argv), stdin, args.timeout,
                    base_env if kind == "base" else env)
                m = ERR_RE.findall(err)
                runs[cname].append({"code": code, "wall": wall, "cpu": cpu_s, "rss": rss,
                                    "errors": int(m[-1]) if m else None})
                if code != 0:
                    tail = [l for l in err.strip().splitlines() if l][-3:]
                    note("%s/%s: exit %s: %s" % (wname, cname, code, " | ".join(tail)))
                if log:
                    log.write("%s\t%s\t%s\t%.3f\t%.3f\t%d\t%s\n" % (
                        wname, cname, code, wall, cpu_s, rss, runs[cname][-1]["errors"]))
                    log.flush()
        for cname, kind, extra in cfgs:
            good = [r for r in runs[cname] if r["code"] == 0] or runs[cname]
            best = min(good, key=lambda r: r["wall"])
            best = dict(best, cpu_min=min(r["cpu"] for r in good),
                        rss=min(r["rss"] for r in good))
            results[(wname, cname)] = best
            print("  %-8s %-18s %9.2f s %9.2f cpu %9.1f MiB  %s" % (
                wname, cname, best["wall"], best["cpu_min"], best["rss"] / 1024.0,
                "" if best["errors"] is None else "%d errors" % best["errors"]), flush=True)
        print_table(wname, cfgs, results, args.by)
        if args.base:
            print_paired(wname, cfgs, results, args.by)
    print_summary(wls, cfgs, results)


def print_table(wname, cfgs, results, by):
    """Time ratios of `by` (cpu: user+sys, the minimum over repetitions;
    wall: the fastest run's), memory ratios of peak RSS."""
    base = {k: results.get((wname, k)) for k in ("native", "none", "helgrind", "drd")}
    key = "cpu_min" if by == "cpu" else "wall"
    print()
    print("## %s (time ratios: %s)" % (wname, by))
    hdr = ("config", "wall s", "cpu s", "RSS MiB", "x native", "x none", "x helgrind",
           "x drd", "RSS x hg", "RSS x drd", "errors")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "|".join("---" for _ in hdr) + "|")
    for cname, _, _ in cfgs:
        r = results.get((wname, cname))
        if not r:
            continue
        ok = r["code"] == 0
        w = r[key] if ok else None
        def ratio(k):
            b = base.get(k)
            return fmt_ratio(w, b[key] if b and b["code"] == 0 else None)
        hg, drd = base.get("helgrind"), base.get("drd")
        row = (cname, "%.2f" % r["wall"] if ok else "FAIL(%s)" % r["code"],
               "%.2f" % r["cpu_min"], "%.1f" % (r["rss"] / 1024.0),
               ratio("native"), ratio("none"), ratio("helgrind"), ratio("drd"),
               fmt_ratio(r["rss"], hg["rss"] if hg else None),
               fmt_ratio(r["rss"], drd["rss"] if drd else None),
               "-" if r["errors"] is None else str(r["errors"]))
        print("| " + " | ".join(row) + " |")
    print(flush=True)


def print_paired(wname, cfgs, results, by):
    """This build over the --base build, configuration by configuration."""
    key = "cpu_min" if by == "cpu" else "wall"
    print("## %s: this build / base (time: %s)" % (wname, by))
    print("| config | time after/before | peak RSS after/before |")
    print("|---|---|---|")
    for cname, kind, _ in cfgs:
        if kind != "atomgrind":
            continue
        a, b = results.get((wname, cname)), results.get((wname, base_name(cname)))
        if not a or not b or a["code"] != 0 or b["code"] != 0:
            continue
        print("| %s | %s | %s |" % (cname, fmt_ratio(a[key], b[key]), fmt_ratio(a["rss"], b["rss"])))
    print(flush=True)


def print_summary(wls, cfgs, results):
    names = [c[0] for c in cfgs]
    if "atomgrind" not in names or "helgrind" not in names:
        return
    print("## atomgrind (defaults) vs Helgrind")
    print("| workload | atomgrind s | helgrind s | wall ratio | cpu ratio | verdict |")
    print("|---|---|---|---|---|---|")
    for wname, _, _ in wls:
        a, h = results.get((wname, "atomgrind")), results.get((wname, "helgrind"))
        if not a or not h:
            continue
        ok = a["code"] == 0 and h["code"] == 0
        wr = a["wall"] / h["wall"] if ok else None
        cr = a["cpu_min"] / h["cpu_min"] if ok and h["cpu_min"] else None
        verdict = "-" if wr is None else ("ok" if wr <= 1.0 else "SLOWER")
        print("| %s | %.2f | %.2f | %s | %s | %s |" % (
            wname, a["wall"], h["wall"], "-" if wr is None else "%.2f" % wr,
            "-" if cr is None else "%.2f" % cr, verdict))
    print(flush=True)


if __name__ == "__main__":
    main()
