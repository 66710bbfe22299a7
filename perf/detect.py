#!/usr/bin/env python3
"""detect.py -- how often atomgrind reports the corpus's bugs, and whether
it ever reports its correct programs: every program of tests/progs/corpus.py
(or those named) run N times under ./vg-in-place --tool=atomgrind, in one or
more option configurations side by side.

    perf/detect.py                                   # defaults, 20 runs each
    perf/detect.py -n 20 --opts '--sched-seed={seed}' --opts '--yield-at-regions=no'
    perf/detect.py -n 5 check_act lazy_init          # only these programs
    perf/detect.py --verdict bug -j 2 --log runs.tsv # every run, tab-separated
    perf/detect.py --times --opts '' --opts '--yield-at-regions=no'   # and CPU per program
    perf/detect.py --cflags=-O2 -n 5                 # the corpus built at -O2

Each --opts is one configuration (a string of Valgrind options, split like
a shell would; '' is the defaults).  {seed} in it becomes the run's seed
(--seed-base, --seed-base+1, ... for runs 1..N; the same seeds in every
configuration).  The build is $AG_BUILD or --build, else ./build; a
configuration that starts with AG_BUILD=DIR runs that build instead, so
two builds can be compared in one table:

    perf/detect.py --opts 'AG_BUILD=/work/main/build' --opts '--sched-seed={seed}'

Table: for a bug program, the runs that reported an atomicity violation,
observed or predicted ("k/N"); for a correct program, the runs that reported any error (false
positives, "0/N" is right).  Runs that did not finish are counted apart
and listed: T = timed out (--timeout), C = crashed (no error summary, or the
program died of a signal), R = Valgrind refused the options.  A
configuration that Valgrind refuses (an unknown option, say) is found by a
probe on /bin/true first, reported with Valgrind's message and not run.
The last rows: bug runs detected, bugs found at least once, false-positive
runs, mean CPU seconds (user+sys) per run.

Python 3 standard library only, plus tests/agtest.py to build the corpus."""

import argparse
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tests", "progs"))


def join_opts(argv):
    """'--opts X' -> '--opts=X': argparse takes a value starting with '--'
    for an option of its own."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--opts" and i + 1 < len(argv):
            out.append("--opts=" + argv[i + 1])
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("programs", nargs="*", help="corpus names (default: all)")
    ap.add_argument("-n", type=int, default=20, help="runs per program and configuration (20)")
    ap.add_argument("--opts", action="append", default=None, metavar="OPTIONS",
                    help="one configuration: Valgrind options, {seed} replaced (repeatable)")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1, help="runs at once (cores)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per run (60)")
    ap.add_argument("--seed-base", type=int, default=1, help="first seed (1)")
    ap.add_argument("--verdict", choices=("bug", "ok"), help="only bug or only ok programs")
    ap.add_argument("--cflags", default="", metavar="FLAGS",
                    help="extra compiler flags for the corpus, after -O0 (e.g. '-O2'); "
                         "binaries named apart (corpus-NAME-O2)")
    ap.add_argument("--build", help="the atomgrind build directory (default $AG_BUILD or ./build)")
    ap.add_argument("--log", metavar="FILE", help="write every run as a tab-separated line")
    ap.add_argument("--keep-logs", metavar="DIR", help="keep every run's Valgrind log in DIR")
    ap.add_argument("--times", action="store_true",
                    help="also a table of mean CPU seconds per run, program x configuration")
    ap.add_argument("--list", action="store_true", help="list the corpus and exit")
    a = ap.parse_args(join_opts(argv))
    if a.n < 1 or a.j < 1:
        ap.error("-n and -j must be at least 1")
    if a.opts is None:
        a.opts = [""]
    return a


def select(names, verdict):
    import corpus
    progs = corpus.PROGRAMS
    if names:
        unknown = [n for n in names if n not in corpus.BY_NAME]
        if unknown:
            sys.exit("detect.py: not in the corpus: %s (--list shows the names)" % " ".join(unknown))
        progs = [corpus.BY_NAME[n] for n in names]
    if verdict:
        progs = [p for p in progs if p.verdict == verdict]
    return progs


def split_config(opts):
    """A configuration's build (from a leading AG_BUILD=DIR, else None) and
    the rest of its options."""
    m = re.match(r"\s*AG_BUILD=(\S+)\s*(.*)$", opts, re.S)
    return (os.path.abspath(m.group(1)), m.group(2)) if m else (None, opts)


def expand(opts, seed):
    """The option list of a configuration for one seed."""
    return shlex.split(split_config(opts)[1].replace("{seed}", str(seed)))


class Outcome:
    """One run: kind is 'ok' (finished), 'timeout', 'crash' or 'refused'."""
    def __init__(self, kind, errors=0, atomicity=0, cpu=0.0, wall=0.0, note=""):
        self.kind, self.errors, self.atomicity = kind, errors, atomicity
        self.cpu, self.wall, self.note = cpu, wall, note


REFUSED = re.compile(r"(Unknown option|Bad option|Unrecognised option|unrecognised option|Invalid option"
                     r"|bad option|Invalid argument to|can't open suppressions)", re.M)


def classify(rc, log, output, timed_out):
    """Read a finished run's log into an Outcome (times filled by the caller)."""
    text = log + "\n" + output
    if timed_out:
        return Outcome("timeout", note="timed out")
    sums = re.findall(r"ERROR SUMMARY: (\d+) errors", log)   # a forked child adds its own
    if not sums:
        if REFUSED.search(text):
            line = next((l for l in text.splitlines() if REFUSED.search(l)), "")
            return Outcome("refused", note=re.sub(r"^==\d+== ", "", line.strip()))
        tail = [l for l in text.strip().splitlines() if l.strip()][-1:] or ["no output"]
        return Outcome("crash", note="rc=%d, no error summary: %s" % (rc, tail[0][:120]))
    errors = sum(int(e) for e in sums)
    # observed ("Atomicity violation") or predicted ("Possible atomicity violation")
    atom = len(re.findall(r"^==\d+== (Possible a|A)tomicity violation", log, re.M))
    if "Process terminating with default action of signal" in log:
        sig = re.search(r"default action of signal (\d+ \(\w+\))", log)
        return Outcome("crash", errors, atom, note="program killed by signal %s" %
                       (sig.group(1) if sig else "?"))
    return Outcome("ok", errors, atom)


def run_once(vg, env, exe, opts, timeout, keep):
    """Run exe under the tool with opts; return an Outcome with CPU and wall time."""
    with tempfile.NamedTemporaryFile("r", suffix=".log", delete=keep is None,
                                     dir=keep) as lf, tempfile.TemporaryFile("w+") as out:
        cmd = [vg, "--tool=atomgrind", "--log-file=" + lf.name, *opts, exe]
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
        fired, reaped, guard = [], [], threading.Lock()

        def kill():
            with guard:              # never signal a group whose leader is reaped (ids get reused)
                if reaped:
                    return
                fired.append(1)
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)   # exited, not yet reaped
        with guard:
            _, status, ru = os.wait4(proc.pid, 0)
            reaped.append(1)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - t0
        out.seek(0)
        o = classify(proc.returncode, lf.read(), out.read(), bool(fired))
        o.cpu, o.wall, o.log = ru.ru_utime + ru.ru_stime, wall, lf.name
        return o


def probe(vg, env, opts, seed):
    """None if Valgrind accepts the configuration, else its complaint."""
    o = run_once(vg, env, "/bin/true", expand(opts, seed), 60, None)
    if o.kind == "ok":
        return None
    return o.note or o.kind


class Progress:
    """A one-line progress report on stderr."""
    def __init__(self, total):
        self.total, self.done, self.bad = total, 0, 0
        self.lock = threading.Lock()
        self.t0 = time.monotonic()

    def step(self, outcome):
        with self.lock:
            self.done += 1
            self.bad += outcome.kind != "ok"
            el = time.monotonic() - self.t0
            eta = el / self.done * (self.total - self.done)
            sys.stderr.write("\r[%d/%d] %.0fs elapsed, ~%.0fs left, %d not finished normally   "
                             % (self.done, self.total, el, eta, self.bad))
            sys.stderr.flush()

    def end(self):
        sys.stderr.write("\n")


def table(progs, configs, res, n, refused):
    """The text of the results table."""
    rows = []
    cols = ["c%d" % (i + 1) for i in range(len(configs))]
    name_w = max([len(p.name) + 2 for p in progs] + [19])
    head = "%-*s %-4s" % (name_w, "program", "exp") + "".join("%12s" % c for c in cols)
    rows.append(head)
    rows.append("-" * len(head))
    problems = []
    for verdict in ("bug", "ok"):
        for p in (q for q in progs if q.verdict == verdict):
            cells = []
            for ci, _ in enumerate(configs):
                if ci in refused:
                    cells.append("refused")
                    continue
                outs = res[(p.name, ci)]
                fin = [o for o in outs if o.kind == "ok"]
                if verdict == "bug":
                    k = sum(1 for o in fin if o.atomicity > 0)
                else:
                    k = sum(1 for o in fin if o.errors > 0)
                cell = "%d/%d" % (k, n)
                flags = "".join("%d%s" % (c, s) for s, c in (
                    ("T", sum(o.kind == "timeout" for o in outs)),
                    ("C", sum(o.kind == "crash" for o in outs)),
                    ("R", sum(o.kind == "refused" for o in outs))) if c)
                cells.append(cell + (" " + flags if flags else ""))
                for o in outs:
                    if o.kind != "ok":
                        problems.append("%s c%d seed %s: %s: %s" % (p.name, ci + 1, getattr(o, "seed", "?"),
                                                                   o.kind, o.note))
            rows.append("%-*s %-4s" % (name_w, p.name, verdict) + "".join("%12s" % c for c in cells))
        if any(q.verdict == verdict for q in progs):
            rows.append("")
    bugs = [p for p in progs if p.verdict == "bug"]
    oks = [p for p in progs if p.verdict == "ok"]

    def summary(label, fn):
        cells = []
        for ci in range(len(configs)):
            cells.append("-" if ci in refused else fn(ci))
        rows.append("%-*s" % (name_w + 5, label) + "".join("%12s" % c for c in cells))
    if bugs:
        summary("bug runs detected", lambda ci: "%d/%d" % (
            sum(1 for p in bugs for o in res[(p.name, ci)] if o.kind == "ok" and o.atomicity > 0),
            len(bugs) * n))
        summary("bugs found >= once", lambda ci: "%d/%d" % (
            sum(1 for p in bugs if any(o.kind == "ok" and o.atomicity > 0 for o in res[(p.name, ci)])),
            len(bugs)))
        summary("bugs found >= 95%", lambda ci: "%d/%d" % (
            sum(1 for p in bugs if sum(o.kind == "ok" and o.atomicity > 0
                                       for o in res[(p.name, ci)]) >= 0.95 * n), len(bugs)))
    if oks:
        summary("ok runs with reports", lambda ci: "%d/%d" % (
            sum(1 for p in oks for o in res[(p.name, ci)] if o.kind == "ok" and o.errors > 0),
            len(oks) * n))
    summary("not finished (T/C/R)", lambda ci: "%d/%d/%d" % tuple(
        sum(1 for p in progs for o in res[(p.name, ci)] if o.kind == k)
        for k in ("timeout", "crash", "refused")))
    summary("mean CPU s per run", lambda ci: "%.2f" % (
        sum(o.cpu for p in progs for o in res[(p.name, ci)]) / max(1, len(progs) * n)))
    summary("max wall s of a run", lambda ci: "%.1f" % max(
        [o.wall for p in progs for o in res[(p.name, ci)]] or [0]))
    rows.append("")
    for ci, c in enumerate(configs):
        rows.append("c%d: %s%s" % (ci + 1, c if c.strip() else "(defaults)",
                                   "   REFUSED by Valgrind: " + refused[ci] if ci in refused else ""))
    rows.append("bug: runs reporting an atomicity violation / runs; ok: runs reporting any error / runs"
                " (T timed out, C crashed, R refused: not counted as detected)")
    if problems:
        rows.append("")
        rows.append("runs that did not finish normally:")
        rows.extend("  " + p for p in problems[:60])
        if len(problems) > 60:
            rows.append("  ... and %d more" % (len(problems) - 60))
    return "\n".join(rows)


def times_table(progs, configs, res, refused):
    """Mean CPU seconds (user+sys) per run of each program in each configuration."""
    name_w = max([len(p.name) + 2 for p in progs] + [19])
    rows = ["mean CPU s per run", "%-*s" % (name_w + 5, "program") +
            "".join("%12s" % ("c%d" % (i + 1)) for i in range(len(configs)))]
    for p in progs:
        cells = []
        for ci in range(len(configs)):
            outs = [o for o in res[(p.name, ci)] if o.kind == "ok"]
            cells.append("-" if ci in refused or not outs else "%.2f" % (sum(o.cpu for o in outs) / len(outs)))
        rows.append("%-*s" % (name_w + 5, p.name) + "".join("%12s" % c for c in cells))
    return "\n".join(rows)


def main(argv):
    a = parse_args(argv)
    progs = select(a.programs, a.verdict)
    if a.list:
        for p in progs:
            print("%-24s %-4s %-4s %s" % (p.name, p.verdict, p.lang, p.desc))
        return 0
    build = os.path.abspath(a.build or os.environ.get("AG_BUILD") or os.path.join(ROOT, "build"))
    os.environ["AG_BUILD"] = build
    import agtest
    if not os.path.exists(os.path.join(build, "atomgrind-amd64-linux")):
        sys.exit("detect.py: no atomgrind build in %s (set AG_BUILD or --build)" % build)
    vg = os.path.join(ROOT, "vg-in-place")
    envs = []
    for c in a.opts:
        b = split_config(c)[0] or build
        if not os.path.exists(os.path.join(b, "atomgrind-amd64-linux")):
            sys.exit("detect.py: no atomgrind build in %s (configuration '%s')" % (b, c))
        envs.append(dict(os.environ, AG_BUILD=b))
    if a.keep_logs:
        os.makedirs(a.keep_logs, exist_ok=True)
    exes = {p.name: agtest.build_corpus(p, tuple(shlex.split(a.cflags))) for p in progs}

    refused = {}
    for ci, c in enumerate(a.opts):
        why = probe(vg, envs[ci], c, a.seed_base)
        if why is not None:
            refused[ci] = why
            sys.stderr.write("detect.py: configuration c%d (%s) refused by Valgrind: %s\n" % (ci + 1, c, why))

    jobs = [(p, ci, i) for i in range(a.n) for p in progs for ci in range(len(a.opts)) if ci not in refused]
    res = {(p.name, ci): [None] * a.n for p in progs for ci in range(len(a.opts))}
    for ci in refused:
        for p in progs:
            res[(p.name, ci)] = [Outcome("refused", note=refused[ci])] * a.n
    prog = Progress(len(jobs))

    def work(job):
        p, ci, i = job
        seed = a.seed_base + i
        keep = None
        if a.keep_logs:
            keep = os.path.join(a.keep_logs, "c%d" % (ci + 1))
            os.makedirs(keep, exist_ok=True)
        o = run_once(vg, envs[ci], exes[p.name], expand(a.opts[ci], seed), a.timeout, keep)
        if keep:
            final = os.path.join(keep, "%s.seed%d.log" % (p.name, seed))
            os.replace(o.log, final)
            o.log = final
        o.seed = seed
        res[(p.name, ci)][i] = o
        prog.step(o)

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=a.j) as pool:
        list(pool.map(work, jobs))
    prog.end()
    print(table(progs, a.opts, res, a.n, refused))
    if a.times:
        print()
        print(times_table(progs, a.opts, res, refused))
    print("%d runs in %.0f s wall, -j %d, build %s" % (len(jobs), time.monotonic() - t0, a.j, build))
    if a.log:
        with open(a.log, "w") as f:
            f.write("program\tverdict\tconfig\topts\tseed\toutcome\terrors\tatomicity\tcpu_s\twall_s\tnote\n")
            for (name, ci), outs in sorted(res.items()):
                p = next(q for q in progs if q.name == name)
                for i, o in enumerate(outs):
                    f.write("%s\t%s\tc%d\t%s\t%d\t%s\t%d\t%d\t%.3f\t%.3f\t%s\n" % (
                        name, p.verdict, ci + 1, a.opts[ci], a.seed_base + i, o.kind, o.errors,
                        o.atomicity, o.cpu, o.wall, o.note))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
