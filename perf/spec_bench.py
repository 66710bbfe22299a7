#!/usr/bin/env python3
"""spec_bench.py -- the AtomSanitizer paper's Table 3 on Valgrind, for
unmodified programs: infer each program's atomic-function spec, then
measure time and peak memory with the inferred spec and with every
function atomic, against native, --tool=none, Helgrind and DRD.

    perf/spec_bench.py                  # every program found, 1 MiB input
    perf/spec_bench.py -p xz,pigz --size 3145728 --repeat 3

Programs: xz -T2 (liblzma), zstd -T2 (libzstd), pigz -p 2 (libz), pbzip2
-p2 and lbzip2 -n2 (libbz2), each compressing a deterministic text file.
Ones not installed are fetched as Debian binary packages (`apt-get
download` + `dpkg -x` into the work directory; no root needed).  Debian's
binaries are stripped, so `all` covers the dynamic symbols of the
executable and of the program's compression library (--atomic-objs): the
library's exported functions.  (Building from Debian source with -g, as
the issue asks, needs `apt-get source`; this machine's mirror has no
source archives -- 404 -- so the script uses the binaries.)

For each program: atomgrind-infer from --atomic-fns=all (functions at
start, atomic at the end, violations found and why, from the spec's
comments), then one run per configuration (best of --repeat): wall s,
CPU s, peak RSS.  Python 3 standard library; imports vg_bench's measuring
helpers.  Run it alone: it measures time."""

import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import vg_bench  # noqa: E402  (run_measured, gen_input, TMP)

# name, package, argv before the input file, library pattern for --atomic-objs
PROGRAMS = [
    ("xz", "xz-utils", ["xz", "-T2", "-1", "--block-size=131072", "-c", "-k"], "liblzma*"),
    ("zstd", "zstd", ["zstd", "-q", "-T2", "-B131072", "-c"], "libzstd*"),
    ("pigz", "pigz", ["pigz", "-p", "2", "-c", "-k"], "libz.so*"),
    ("pbzip2", "pbzip2", ["pbzip2", "-p2", "-c", "-k"], "libbz2*"),
    ("lbzip2", "lbzip2", ["lbzip2", "-n2", "-c", "-k"], "libbz2*"),
]


def find_program(name, package, work):
    """The program's path: installed, or from its Debian package."""
    path = shutil.which(name)
    if path:
        return path
    root = os.path.join(work, "debroot")
    local = os.path.join(root, "usr", "bin", name)
    if not os.path.exists(local):
        os.makedirs(root, exist_ok=True)
        p = subprocess.run(["apt-get", "download", package], cwd=work,
                           capture_output=True, text=True)
        debs = [f for f in os.listdir(work) if f.startswith(package + "_") and f.endswith(".deb")]
        if p.returncode != 0 or not debs:
            vg_bench.note("%s: not installed and not downloadable, skipped" % name)
            return None
        subprocess.run(["dpkg", "-x", os.path.join(work, debs[0]), root], check=True)
    return local if os.path.exists(local) else None


def infer(argv, objs, spec, timeout):
    cmd = [os.path.join(ROOT, "atomgrind-infer"), "--spec=" + spec,
           "--atomic-objs=" + objs, "--"] + argv
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    m = re.search(r"fixpoint after (\d+) run\(s\): (\d+) function\(s\) at start, "
                  r"(\d+) atomic at the end, (\d+) violation", p.stdout)
    if not m:
        vg_bench.note("inference did not converge: " + p.stdout.strip().replace("\n", " | "))
        return None
    dropped = re.findall(r"^# dropped: (.*)$", open(spec).read(), re.M)
    return dict(runs=int(m.group(1)), start=int(m.group(2)), end=int(m.group(3)),
                found=int(m.group(4)), dropped=dropped)


def measure(cmd, repeat, timeout):
    best = None
    for _ in range(repeat):
        code, wall, cpu, rss, err = vg_bench.run_measured(cmd, timeout=timeout)
        m = re.search(r"ERROR SUMMARY: (\d+) errors", err)
        cell = (wall, cpu, rss / 1024.0, int(m.group(1)) if m else None, code)
        if best is None or cell[1] < best[1]:
            best = cell
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-p", "--programs", type=lambda s: s.split(","), default=None)
    ap.add_argument("--size", type=int, default=1 << 20)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--specs", default=os.path.join(HERE, "results", "specs"),
                    help="where the inferred specs are kept")
    args = ap.parse_args()
    os.makedirs(vg_bench.TMP, exist_ok=True)
    os.makedirs(args.specs, exist_ok=True)
    work = os.path.join(vg_bench.TMP, "programs")
    os.makedirs(work, exist_ok=True)
    inp = vg_bench.gen_input(os.path.join(vg_bench.TMP, "input-%d.txt" % args.size), args.size)
    vip = os.path.join(ROOT, "vg-in-place")
    rows = []
    for name, package, argv, objs in PROGRAMS:
        if args.programs and name not in args.programs:
            continue
        exe = find_program(name, package, work)
        if not exe:
            continue
        run = [exe] + argv[1:] + [inp]
        spec = os.path.join(args.specs, name + ".spec")
        inf = infer(run, objs, spec, args.timeout)
        if not inf:
            continue
        configs = [("native", run), ("none", ["valgrind", "--tool=none"] + run),
                   ("helgrind", ["valgrind", "--tool=helgrind"] + run),
                   ("drd", ["valgrind", "--tool=drd"] + run),
                   ("ag:none", [vip, "--tool=atomgrind"] + run),
                   ("ag:spec", [vip, "--tool=atomgrind", "--atomic-spec=" + spec] + run),
                   ("ag:all", [vip, "--tool=atomgrind", "--atomic-fns=all",
                               "--atomic-objs=" + objs] + run)]
        cells = {}
        for cname, cmd in configs:
            cells[cname] = measure(cmd, args.repeat, args.timeout)
            w, c, r, e, code = cells[cname]
            print("  %-7s %-9s %7.2f s %7.2f cpu %7.1f MiB  %s" % (
                name, cname, w, c, r, "" if e is None else "%d errors" % e), flush=True)
        rows.append((name, inf, cells))
        print("  %-7s inference: %d run(s), %d functions at start, %d atomic at the end, "
              "%d violation report(s); dropped: %s" % (name, inf["runs"], inf["start"], inf["end"],
                                                      inf["found"], ", ".join(inf["dropped"]) or "-"),
              flush=True)
    print()
    print("| program | fns at start | atomic at end | violations | dropped | ag:spec x native | "
          "x none | x helgrind | x drd | RSS x native | ag:all x native | ag:all errors |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, inf, c in rows:
        def x(a, b, i=1):
            return "%.2f" % (c[a][i] / c[b][i]) if c[b][i] > 0 else "-"
        print("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, inf["start"], inf["end"], inf["found"], ", ".join(inf["dropped"]) or "-",
            x("ag:spec", "native"), x("ag:spec", "none"), x("ag:spec", "helgrind"),
            x("ag:spec", "drd"), x("ag:spec", "native", 2), x("ag:all", "native"),
            c["ag:all"][3]))
    print("\n(ratios of CPU seconds; RSS of peak resident memory; best of %d)" % args.repeat)


if __name__ == "__main__":
    main()
