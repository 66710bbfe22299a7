#!/usr/bin/env python3
"""realprogs.py -- the AtomSanitizer paper's Table 3 on Valgrind, on the
paper's programs built from source with -g.

    perf/realprogs.py                        # fetch, build, infer, measure
    perf/realprogs.py -p xz,pigz --repeat 3 --size 1048576
    perf/realprogs.py --build-only
    perf/realprogs.py --table OUTPUT...      # the table from earlier output

Defaults (256 KiB, 2 rounds) take about 25 minutes on two shared CPUs:
with the default scheduler and prediction, a function spec costs ~10x
Helgrind (results/realprogs.md).

Programs: pigz, pbzip2, lbzip2, xz (xz-utils), zstd -- each compressing a
deterministic text file with two threads and small blocks, so that the
blocks really are compressed in parallel.

Sources, into the cache directory (--cache, $REALPROGS_CACHE, default
/work/realprogs-cache; outside the repository):
  1. `apt-get source PKG` (Debian's version with its patches; deb-src lines
     are added to /etc/apt/sources.list.d/debian.sources when missing);
  2. failing that (a mirror that serves no source tarballs answers 404),
     the upstream release at the same version, exported with `git archive`
     from a bare clone under --upstream DIR ($REALPROGS_UPSTREAM) laid out
     as OWNER+NAME/repo.
Build: the distribution's flags, `dpkg-buildflags --get CFLAGS` (-g -O2
...), `nice -n 10`, -j2 at most.  xz and zstd link their library
statically, so `--atomic-fns=all` covers liblzma's / libzstd's functions
as part of the executable (with their debug info); zlib and libbz2 are the
system's (stripped) and stay out of `all`.

Per program: atomgrind-infer from --atomic-fns=all (functions at start,
atomic at the end, violations found and the dropped functions with the
report that dropped each), then --repeat rounds in which every
configuration runs once, in turn (native, --tool=none, Helgrind, DRD,
atomgrind with no spec, with the inferred spec, with all): ratios are
taken within a round (paired) and the median over rounds is printed, of
CPU seconds and of peak RSS.  Installs what it needs with apt-get (root).
Python 3 standard library; imports vg_bench's measuring helpers.  Run it
alone: it measures time."""

import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import vg_bench  # noqa: E402  (run_measured, gen_input, note, TMP)

# name, Debian source package, Debian's version (bookworm), upstream
# (repository, ref at that version), argv before the input file.
PROGRAMS = [
    ("pigz", "pigz", "2.6", ("madler/pigz", "v2.6"),
     ["-p", "2", "-b", "32", "-c", "-k"]),
    ("pbzip2", "pbzip2", "1.1.13", ("ruanhuabin/pbzip2", "aea6a96"),
     ["-p2", "-b1", "-c", "-k"]),
    ("lbzip2", "lbzip2", "2.5", ("kjn/lbzip2", "724352c"),
     ["-n2", "-1", "-c", "-k"]),
    ("xz", "xz-utils", "5.4.1", ("tukaani-project/xz", "v5.4.1"),
     ["-T2", "-1", "--block-size=65536", "-c", "-k"]),
    ("zstd", "zstd", "1.5.4", ("facebook/zstd", "v1.5.4"),
     ["-q", "-T2", "-B65536", "-c"]),
]
APT_NEEDS = ["build-essential", "g++", "zlib1g-dev", "libbz2-dev", "autoconf",
             "automake", "libtool", "autopoint", "gettext", "valgrind", "dpkg-dev"]


def sh(cmd, cwd=None, env=None, log=None):
    """Run a shell command at low priority; its output goes to log."""
    with open(log or os.devnull, "a") as out:
        return subprocess.run(["nice", "-n", "10", "sh", "-c", cmd], cwd=cwd, env=env,
                              stdout=out, stderr=subprocess.STDOUT).returncode == 0


def ensure_packages():
    missing = [p for p in APT_NEEDS if subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True,
        text=True).stdout != "install ok installed"]
    if missing:
        vg_bench.note("apt-get install " + " ".join(missing))
        subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-q"] + missing, check=True,
                       stdout=subprocess.DEVNULL,
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def ensure_deb_src():
    """deb-src lines beside the deb ones, and package lists that know them."""
    path = "/etc/apt/sources.list.d/debian.sources"
    if os.path.exists(path):
        text = open(path).read()
        if re.search(r"^Types: deb$", text, re.M):
            open(path, "w").write(re.sub(r"^Types: deb$", "Types: deb deb-src", text,
                                         flags=re.M))
            subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL)
    if subprocess.run(["apt-cache", "showsrc", "pigz"], capture_output=True,
                      text=True).stdout.strip() == "":
        subprocess.run(["apt-get", "update", "-q"], stdout=subprocess.DEVNULL)


def source_from_debian(pkg, dest, log):
    """`apt-get source PKG` (the suite's current version) unpacked as dest."""
    work = dest + ".apt"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if not sh("apt-get source -q %s" % pkg, cwd=work, log=log):
        shutil.rmtree(work, ignore_errors=True)
        return None
    dirs = [d for d in glob.glob(os.path.join(work, "*")) if os.path.isdir(d)]
    if len(dirs) != 1:
        return None
    os.rename(dirs[0], dest)
    shutil.rmtree(work, ignore_errors=True)
    return "Debian source package %s" % pkg


def source_from_upstream(upstream_dir, repo, ref, dest, log):
    """The upstream tree at ref, from a bare clone OWNER+NAME/repo."""
    git = os.path.join(upstream_dir or "", repo.replace("/", "+"), "repo")
    if not upstream_dir or not os.path.isdir(git):
        return None
    os.makedirs(dest)
    if not sh("git --git-dir=%s archive %s | tar -x -C %s" % (git, ref, dest), log=log):
        shutil.rmtree(dest, ignore_errors=True)
        return None
    return "upstream %s at %s" % (repo, ref)


def get_source(prog, cache, upstream_dir, log):
    name, pkg, _version, (repo, ref), _ = prog
    dest = os.path.join(cache, "src", name)
    stamp = dest + ".origin"
    if os.path.exists(stamp):
        return dest, open(stamp).read().strip()
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    origin = (source_from_debian(pkg, dest, log)
              or source_from_upstream(upstream_dir, repo, ref, dest, log))
    if origin:
        open(stamp, "w").write(origin + "\n")
        return dest, origin
    return None, None


# Build commands per program: $CFLAGS/$CXXFLAGS/$LDFLAGS are Debian's; the
# executable they leave is the second element.
BUILD = {
    "pigz": ('make -j2 pigz CFLAGS="$CFLAGS" LDFLAGS="$LDFLAGS"', "pigz"),
    "pbzip2": ('g++ $CXXFLAGS $CPPFLAGS -D_LARGEFILE64_SOURCE -D_FILE_OFFSET_BITS=64 '
               '-D_POSIX_PTHREAD_SEMANTICS -DUSE_STACKSIZE_CUSTOMIZATION -o pbzip2 pbzip2.cpp BZ2StreamScanner.cpp '
               'ErrorContext.cpp $LDFLAGS -pthread -lbz2', "pbzip2"),
    # lbzip2's release tarball has configure; its git tree builds without
    # gnulib from src/*.c (as its CMakeLists.txt does)
    "lbzip2": ('if [ -x configure ]; then ./configure -q CFLAGS="$CFLAGS" && make -j2; '
               'else mkdir -p src/lbzip2 && gcc $CFLAGS $CPPFLAGS -std=gnu99 '
               '-D_XOPEN_SOURCE=700 -D_FILE_OFFSET_BITS=64 -DPACKAGE_NAME=\\"lbzip2\\" '
               '-DPACKAGE_VERSION=\\"devel\\" -o src/lbzip2/lbzip2 src/*.c $LDFLAGS -pthread; fi',
               "src/lbzip2"),
    "xz": ('([ -x configure ] || ./autogen.sh --no-po4a) && ./configure -q --disable-shared '
           '--disable-nls --disable-doc --disable-xzdec --disable-lzmadec '
           '--disable-lzmainfo --disable-scripts --disable-lzma-links CFLAGS="$CFLAGS" '
           '&& make -j2 -C src/liblzma && make -j2 -C src/xz', "src/xz/xz"),
    "zstd": ('make -j2 -C programs zstd CFLAGS="$CFLAGS" LDFLAGS="$LDFLAGS" '
             'MOREFLAGS= HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0', "programs/zstd"),
}


def build(name, src, log):
    cmd, exe = BUILD[name]
    exe = os.path.join(src, exe)
    if name == "lbzip2" and not os.path.exists(os.path.join(src, "configure")):
        exe = os.path.join(src, "src", "lbzip2", "lbzip2")
    if os.path.isfile(exe) and os.access(exe, os.X_OK):
        return exe
    env = dict(os.environ)
    for var in ("CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS"):
        env[var] = subprocess.run(["dpkg-buildflags", "--get", var], capture_output=True,
                                  text=True).stdout.strip()
    vg_bench.note("building %s with CFLAGS=%s (log %s)" % (name, env["CFLAGS"], log))
    if not sh(cmd, cwd=src, env=env, log=log) or not os.path.isfile(exe):
        vg_bench.note("%s: build failed, see %s" % (name, log))
        return None
    return exe


def text_symbols(exe):
    """Functions the executable defines (what --atomic-fns=all can match)."""
    p = subprocess.run(["nm", "--defined-only", exe], capture_output=True, text=True)
    return sum(1 for l in p.stdout.splitlines() if l.split()[1:2] in (["T"], ["t"]))


def dropped_names(spec):
    """The functions a spec written by atomgrind-infer says were dropped
    (C++ names have spaces and commas)."""
    return re.findall(r"^# dropped: (.+)$", open(spec).read(), re.M)


def infer(run, spec, log, timeout):
    cmd = [os.path.join(ROOT, "atomgrind-infer"), "--spec=" + spec, "--"] + run
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    with open(log, "w") as f:
        f.write(p.stdout + p.stderr)
    m = re.search(r"fixpoint after (\d+) run\(s\): (\d+) function\(s\) at start, "
                  r"(\d+) atomic at the end, (\d+) violation", p.stdout)
    if not m:
        vg_bench.note("inference did not converge, see " + log)
        return None
    dropped = dropped_names(spec)
    return dict(runs=int(m.group(1)), start=int(m.group(2)), end=int(m.group(3)),
                found=int(m.group(4)), dropped=dropped, defined=text_symbols(run[0]))


def configs(run, spec, logdir, name):
    vip = os.path.join(ROOT, "vg-in-place")
    ag = [vip, "--tool=atomgrind"]
    return [("native", run),
            ("none", ["valgrind", "--tool=none"] + run),
            ("helgrind", ["valgrind", "--tool=helgrind"] + run),
            ("drd", ["valgrind", "--tool=drd"] + run),
            ("ag:none", ag + run),
            ("ag:spec", ag + ["--atomic-spec=" + spec,
                              "--log-file=%s/%s.spec.log" % (logdir, name)] + run),
            ("ag:all", ag + ["--atomic-fns=all",
                             "--log-file=%s/%s.all.log" % (logdir, name)] + run)]


def errors(err, logfile=None):
    text = open(logfile).read() if logfile and os.path.exists(logfile) else err
    m = re.search(r"ERROR SUMMARY: (\d+) errors", text)
    return int(m.group(1)) if m else None


def measure(cfgs, repeat, timeout, name, logdir):
    """repeat rounds of every configuration in turn: {config: [cells]}."""
    cells = {c: [] for c, _ in cfgs}
    for rnd in range(repeat):
        for cname, cmd in cfgs:
            code, wall, cpu, rss, err = vg_bench.run_measured(cmd, timeout=timeout)
            log = ("%s/%s.%s.log" % (logdir, name, cname[3:])
                   if cname in ("ag:all", "ag:spec") else None)
            e = errors(err, log)
            cells[cname].append((wall, cpu, rss / 1024.0, e, code))
            print("  %-7s %-9s round %d: %7.2f s %7.2f cpu %7.1f MiB  exit %s%s" % (
                name, cname, rnd + 1, wall, cpu, rss / 1024.0, code,
                "" if e is None else ", %d errors" % e), flush=True)
    return cells


def ratio(cells, a, b, i):
    """Median over rounds of a's value over b's in the same round."""
    rs = [x[i] / y[i] for x, y in zip(cells[a], cells[b]) if y[i] > 0]
    return statistics.median(rs) if rs else float("nan")


def geomean(xs):
    xs = [x for x in xs if x == x and x > 0]
    return (statistics.geometric_mean(xs) if xs else float("nan"))


def print_table(rows, repeat):
    print()
    print("| program | source | fns defined | entered (spec at start) | atomic at end | violations | dropped | "
          "spec x native (cpu) | x none | x helgrind | x drd | spec RSS x native | "
          "spec errors | all x native (cpu) | all RSS x native | all errors |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    cols = {k: [] for k in ("sn", "sno", "sh", "sd", "smem", "an", "amem")}
    for name, origin, inf, c in rows:
        v = dict(sn=ratio(c, "ag:spec", "native", 1), sno=ratio(c, "ag:spec", "none", 1),
                 sh=ratio(c, "ag:spec", "helgrind", 1), sd=ratio(c, "ag:spec", "drd", 1),
                 smem=ratio(c, "ag:spec", "native", 2), an=ratio(c, "ag:all", "native", 1),
                 amem=ratio(c, "ag:all", "native", 2))
        for k in cols:
            cols[k].append(v[k])
        print("| %s | %s | %d | %d | %d | %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %.2f | %.2f "
              "| %s |" % (name, origin, inf["defined"], inf["start"], inf["end"], inf["found"],
                          "; ".join(inf["dropped"]) or "-", v["sn"], v["sno"], v["sh"],
                          v["sd"], v["smem"], c["ag:spec"][-1][3], v["an"], v["amem"],
                          c["ag:all"][-1][3]))
    g = {k: geomean(x) for k, x in cols.items()}
    print("| geo-mean | | | | | | | %.2f | %.2f | %.2f | %.2f | %.2f | | %.2f | %.2f | |" % (
        g["sn"], g["sno"], g["sh"], g["sd"], g["smem"], g["an"], g["amem"]))
    print("\n(median over %d paired round(s) of the ratio of CPU seconds, and of peak RSS)"
          % repeat)


ROUND = re.compile(r"^  (\S+)\s+(\S+)\s+round \d+:\s+([\d.]+) s\s+([\d.]+) cpu\s+([\d.]+) MiB"
                   r"  exit (-?\d+|None)(?:, (\d+) errors)?")
INFER = re.compile(r"^  (\S+)\s+inference: (\d+) run\(s\), (\d+) functions at start, (\d+) "
                   r"atomic at the end, (\d+) violation report\(s\); dropped: (.*)$")
SOURCE = re.compile(r"^# (\S+): (\S+) from (.*)$")


def rows_from_outputs(paths, specs):
    """The table's rows from this script's printed output (--table); the
    dropped functions from the specs it wrote."""
    found = {}
    for path in paths:
        for line in open(path):
            m = SOURCE.match(line)
            if m:
                found[m.group(1)] = [m.group(3), None, {}, m.group(2)]
            m = INFER.match(line)
            if m and m.group(1) in found:
                spec = os.path.join(specs, m.group(1) + ".spec")
                found[m.group(1)][1] = dict(
                    runs=int(m.group(2)), start=int(m.group(3)), end=int(m.group(4)),
                    found=int(m.group(5)), dropped=dropped_names(spec),
                    defined=text_symbols(found[m.group(1)][3]))
            m = ROUND.match(line)
            if m and m.group(1) in found:
                e = None if m.group(7) is None else int(m.group(7))
                found[m.group(1)][2].setdefault(m.group(2), []).append(
                    (float(m.group(3)), float(m.group(4)), float(m.group(5)), e, m.group(6)))
    order = [p[0] for p in PROGRAMS]
    return [(n, f[0].split(" at ")[0], f[1], f[2]) for n, f in
            sorted(found.items(), key=lambda kv: order.index(kv[0]))
            if f[1] and len(f[2]) == 7]


def main():
    ap = argparse.ArgumentParser(description="Table 3 of the AtomSanitizer paper on "
                                 "Valgrind, on programs built from source with -g")
    ap.add_argument("-p", "--programs", type=lambda s: s.split(","), default=None)
    ap.add_argument("--cache", default=os.environ.get("REALPROGS_CACHE",
                                                      "/work/realprogs-cache"))
    ap.add_argument("--upstream", default=os.environ.get("REALPROGS_UPSTREAM", "/work/.mirror"),
                    help="bare clones OWNER+NAME/repo, used when apt-get source fails")
    ap.add_argument("--size", type=int, default=256 * 1024)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--specs", default=os.path.join(HERE, "results", "realprogs-specs"),
                    help="where the inferred specs are kept")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--no-install", action="store_true", help="do not run apt-get")
    ap.add_argument("--table", nargs="+", metavar="OUTPUT",
                    help="only print the table from earlier runs' printed output")
    args = ap.parse_args()
    if args.table:
        rows = rows_from_outputs(args.table, args.specs)
        print_table(rows, max(len(c["native"]) for _, _, _, c in rows))
        return
    cache = os.path.abspath(args.cache)
    logdir = os.path.join(cache, "logs")
    os.makedirs(logdir, exist_ok=True)
    os.makedirs(args.specs, exist_ok=True)
    os.makedirs(vg_bench.TMP, exist_ok=True)
    if not args.no_install and os.geteuid() == 0:
        ensure_packages()
        ensure_deb_src()
    inp = vg_bench.gen_input(os.path.join(cache, "input-%d.txt" % args.size), args.size)
    rows = []
    for prog in PROGRAMS:
        name, argv = prog[0], prog[4]
        if args.programs and name not in args.programs:
            continue
        blog = os.path.join(logdir, name + ".build.log")
        src, origin = get_source(prog, cache, args.upstream, blog)
        if not src:
            vg_bench.note("%s: no source (apt-get source failed, no upstream clone)" % name)
            continue
        exe = build(name, src, blog)
        if not exe:
            continue
        vg_bench.note("%s: %s from %s" % (name, exe, origin))
        if args.build_only:
            continue
        run = [exe] + argv + [inp]
        spec = os.path.join(args.specs, name + ".spec")
        inf = infer(run, spec, os.path.join(logdir, name + ".infer.log"), args.timeout)
        if not inf:
            continue
        print("  %-7s inference: %d run(s), %d functions at start, %d atomic at the end, "
              "%d violation report(s); dropped: %s" % (name, inf["runs"], inf["start"],
                                                      inf["end"], inf["found"],
                                                      "; ".join(inf["dropped"]) or "-"),
              flush=True)
        cells = measure(configs(run, spec, logdir, name), args.repeat, args.timeout, name,
                        logdir)
        rows.append((name, origin.split(" at ")[0], inf, cells))
    if rows:
        print_table(rows, args.repeat)


if __name__ == "__main__":
    main()
