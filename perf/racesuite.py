#!/usr/bin/env python3
"""racesuite.py -- race mode against race-test suites whose authors state
each program's verdict (a race, or none), with found / false / crash-hang
counts per tool.

    perf/racesuite.py --tsan DIR            # LLVM compiler-rt/test/tsan
    perf/racesuite.py --vg DIR              # Valgrind's source tree
    perf/racesuite.py --gcc DIR             # GCC's gcc/testsuite
    perf/racesuite.py --tsan DIR --vg DIR -t ag,helgrind,drd -j 2
    perf/racesuite.py --tsan DIR -k fd_     # only tests whose name has fd_

Three suites, read from paths outside this repository (the sources are
never copied into it):

* ThreadSanitizer's lit tests (a checkout's compiler-rt/test/tsan): a test
  races when a CHECK line expects "ThreadSanitizer: data race" or its RUN
  line reruns it until it reports (%deflake),
  and is race-free when it expects no ThreadSanitizer warning at all
  (CHECK-NOT, or none named).  Tests expecting other warnings (leaks,
  lock misuse, signals), using tsan's own interfaces, annotations,
  suppression files or tsan flags, or not built by the compiler (gcc, or
  clang with --cc clang) are left out and counted.  They are built like their lit config builds them (-O1 -g
  -pthread), with a test.h of our own in place of theirs: its barrier is
  made of SysV semaphores, ordering threads as tsan's invisible barrier
  does without a happens-before edge any of the tools could see.
* Valgrind's Helgrind and DRD regression programs (helgrind/tests,
  drd/tests) without client requests or annotations, built -O0 -g as
  their Makefiles do, one run per .vgtest with its args: a test races
  when its .stderr.exp has Helgrind's "Possible data race" or DRD's
  "Conflicting load/store" or "Destruction of barrier not synchronized
  with barrier wait call" (a destroy racing with a waiter's return, as
  ThreadSanitizer's race_on_barrier2 counts it; DRD's other complaints
  are misuse, not races).  DRD's atomic_var counts as race-free: the
  race it expects is not one in C11.  Programs whose .vgtest prerequisite
  excludes this system are left out (pth_cond_destroy_busy: its destroy
  blocks forever on glibc 2.25 and later, natively too).
* GCC's ThreadSanitizer tests (gcc/testsuite of a GCC source tree:
  c-c++-common/tsan built as C, g++.dg/tsan as C++), at both of their
  tsan.exp's torture levels, -O0 and -O2, with -g -pthread: a test races
  when it should fail with "ThreadSanitizer: data race" (or with a
  heap-use-after-free between two threads: free is a write), and is
  race-free when it is a run test with no dg-shouldfail.  Compile-only
  tests, tests of other warnings (thread leaks, single-thread
  use-after-free) and tests using tsan's interfaces or annotations are
  left out.  Their tsan_barrier.h is replaced by the SysV one below.

Tools (-t): ag (atomgrind --check=races, this worktree's build, or
--build), helgrind, drd.  A run over --timeout seconds, or one ending in a
Valgrind crash, counts as crash/hang.  --list prints each program's
verdict and result.  Python 3 standard library only."""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TMP = os.path.join(tempfile.gettempdir(), "atomgrind-racesuite")

# What a test may not use: tsan's own interfaces and flags, annotations,
# suppressions, instrumentation options.
TSAN_SKIP = re.compile(r"__tsan|__sanitizer|Annotate|ANNOTATE|TSAN_OPTIONS|"
                       r"env_tsan_opts|blacklist|ignorelist|-fsanitize|"
                       r"\.supp|__has_feature|tsan_interface|java\.h|"
                       r"AnnotateHappens|dispatch|objc|fiber|swapcontext|"
                       r"sanitizer/|%link_sandbox|-shared|REQUIRES: *(?!linux)")
# %deflake reruns a test until it reports: the test expects a race
TSAN_RACE = re.compile(r"^\s*//\s*CHECK(?!-NOT)[\w-]*:.*ThreadSanitizer: data race", re.M)
TSAN_ANYWARN = re.compile(r"^\s*//\s*CHECK(?!-NOT)[\w-]*:.*(WARNING: ThreadSanitizer|"
                          r"ERROR: ThreadSanitizer|ThreadSanitizer:)", re.M)

# test.h for the tsan tests: the helpers their tests call, no tsan.
SHIM_TEST_H = r"""
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <dlfcn.h>
#include <stddef.h>
#include <sched.h>
#include <stdarg.h>
#include <time.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include "sanitizer_common/print_address.h"
/* Ordering without happens-before a tool could see: the kernel's SysV
   semaphores (no tool models them). Arrival count in semaphore 0, the gate
   in semaphore 1; the arrival that can take the whole count opens it. */
typedef unsigned long long invisible_barrier_t;
static inline void sem_barrier_init(invisible_barrier_t *b, unsigned count) {
  int id = semget(IPC_PRIVATE, 2, 0600);
  if (id < 0) { perror("semget"); exit(3); }
  *b = ((unsigned long long)count << 32) | (unsigned)id;
}
static inline void sem_barrier_wait(invisible_barrier_t *b) {
  int id = (int)(*b & 0xffffffffu), n = (int)(*b >> 32);
  struct sembuf arrive = {0, 1, 0}, last = {0, (short)-n, IPC_NOWAIT};
  struct sembuf open = {1, (short)(n - 1), 0}, pass = {1, -1, 0};
  semop(id, &arrive, 1);
  if (semop(id, &last, 1) == 0) { if (n > 1) semop(id, &open, 1); }
  else semop(id, &pass, 1);
}
#ifndef GCC_TSAN_BARRIER
#define barrier_init sem_barrier_init
#define barrier_wait sem_barrier_wait
invisible_barrier_t barrier;
__attribute__((destructor)) static void barrier_fini(void) {
  if (barrier) semctl((int)(barrier & 0xffffffffu), 0, IPC_RMID);
}
#endif
static inline unsigned long long monotonic_clock_ns() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + t.tv_nsec;
}
const int kPCInc = 1;
#define ASM_SYMBOL(symbol) #symbol
"""

# GCC's tsan_barrier.h: the same invisible barrier, in a pthread_barrier_t
# (the tests declare one); the semaphores are removed at exit.
SHIM_GCC_BARRIER_H = r"""
#define GCC_TSAN_BARRIER
#include "test.h"
static int gcc_barrier_sem = -1;
static void gcc_barrier_fini(void) { semctl(gcc_barrier_sem, 0, IPC_RMID); }
static void barrier_init(pthread_barrier_t *b, unsigned count) {
  sem_barrier_init((invisible_barrier_t *)b, count);
  gcc_barrier_sem = (int)(*(invisible_barrier_t *)b & 0xffffffffu);
  atexit(gcc_barrier_fini);
}
#define barrier_wait(b) sem_barrier_wait((invisible_barrier_t *)(b))
"""

SHIM_PRINT_ADDRESS_H = r"""
#include <stdio.h>
#include <stdarg.h>
static void print_address(const char *str, int n, ...) {
  va_list ap;
  fprintf(stderr, "%s", str);
  va_start(ap, n);
  while (n--) fprintf(stderr, "0x%012lx ", (unsigned long)va_arg(ap, void *));
  va_end(ap);
  fprintf(stderr, "\n");
}
"""

VG_SKIP = re.compile(r"valgrind\.h|drd\.h|helgrind\.h|annotat|ANNOTATE|VALGRIND_")
VG_RACE = re.compile(r"Possible data race|Conflicting (load|store)|Destruction of barrier not synchronized")
# an .stderr.exp that keeps only the count (pth_barrier's filter): the
# program's writes between barrier rounds race
VG_COUNT_ONLY = re.compile(r"\A\s*ERROR SUMMARY: [1-9]")
VG_RACEFREE = {"drd_atomic_var"}
# A .vgtest prerequisite false on Linux with glibc 2.25 or later (the
# program itself hangs there: pth_cond_destroy_busy) or on any system.
VG_PREREQ_FAILS = re.compile(r"^\s*false|! \.\./\.\./tests/libc_test glibc 2\.2[0-4]|"
                             r"(?<!! )\.\./\.\./tests/os_test (freebsd|darwin|solaris)")


class Prog:
    def __init__(self, name, exe, racy, args=()):
        self.name, self.exe, self.racy, self.args = name, exe, racy, list(args)
        self.result = {}


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, errors="replace", **kw)


def shim_dir():
    d = os.path.join(TMP, "include")
    os.makedirs(os.path.join(d, "sanitizer_common"), exist_ok=True)
    with open(os.path.join(d, "test.h"), "w") as f:
        f.write(SHIM_TEST_H)
    with open(os.path.join(d, "sanitizer_common", "print_address.h"), "w") as f:
        f.write(SHIM_PRINT_ADDRESS_H)
    with open(os.path.join(d, "tsan_barrier.h"), "w") as f:
        f.write(SHIM_GCC_BARRIER_H)
    return d


def tsan_verdict(text):
    """True (races), False (race-free) or None (another kind of test)."""
    # what a test's CHECK lines expect tsan to print (its interceptors'
    # names, "__tsan_atomic32_fetch_add") is no use of tsan's interfaces
    code = re.sub(r"^\s*//\s*CHECK.*$", "", text, flags=re.M)
    if TSAN_SKIP.search(code) or "%run" not in text:
        return None
    if TSAN_RACE.search(text):
        return True
    if TSAN_ANYWARN.search(text):
        return None
    return "%deflake" in text


CLANG = False                    # --cc clang: build with clang/clang++


def build(srcs, exe, cflags, skipped, cxx=None):
    """srcs (the test first) into exe, unless exe is newer than the test;
    C++ by the test's name unless cxx says."""
    src = srcs[0]
    cxx = src.endswith((".cpp", ".cc")) if cxx is None else cxx
    cc = ("clang++" if cxx else "clang") if CLANG else ("g++" if cxx else "gcc")
    std = ["-std=c++17"] if cxx else []
    if os.path.exists(exe) and os.path.getmtime(exe) > os.path.getmtime(src):
        return True
    r = sh([cc] + std + cflags + ["-w", "-o", exe] + srcs + ["-ldl", "-lrt", "-lm"])
    if r.returncode:
        skipped.append((os.path.basename(src), "build failed"))
    return r.returncode == 0


def copy_to(out, src, text):
    """src's copy in out (rewritten only when it changed)."""
    copy = os.path.join(out, os.path.basename(src))
    if not os.path.exists(copy) or open(copy, errors="replace").read() != text:
        with open(copy, "w") as f:
            f.write(text)
    return copy


def tests_in(sdir, exts, pat, verdict, skipped, prefix=""):
    """(name, source, text, racy) of each test in sdir whose name ends in
    exts and has pat, and whose verdict (a function of its text) is not
    None; the others are counted in skipped."""
    for name in sorted(os.listdir(sdir)):
        if not name.endswith(exts) or (pat and pat not in name):
            continue
        src = os.path.join(sdir, name)
        with open(src, errors="replace") as f:
            text = f.read()
        racy = verdict(text)
        if racy is None:
            skipped.append((prefix + name, "not a plain race test"))
        else:
            yield name, src, text, racy


def tsan_progs(tsan, pat, skipped):
    inc, out = shim_dir(), os.path.join(TMP, "tsan")
    os.makedirs(out, exist_ok=True)
    progs = []
    for name, src, text, racy in tests_in(tsan, (".c", ".cpp", ".cc"), pat, tsan_verdict, skipped):
        exe = os.path.join(out, name.rsplit(".", 1)[0])
        # a copy beside no test.h: "test.h" is looked for in the source's
        # own directory before -I
        copy = copy_to(out, src, text)
        if build([copy], exe, ["-O1", "-g", "-pthread", "-I", inc], skipped):
            progs.append(Prog("tsan/" + name, exe, racy))
    return progs


GCC_RACE = re.compile(r'dg-output "(?:WARNING: )?ThreadSanitizer: (data race|heap-use-after-free)')
GCC_NOT_RUN = re.compile(r"dg-do (compile|link|assemble)|dg-final|dg-error|__tsan|Annotate")


def gcc_verdict(text):
    """True (races), False (race-free) or None (left out): see the
    docstring."""
    if GCC_NOT_RUN.search(text):
        return None
    if "dg-shouldfail" not in text:
        return False
    m = GCC_RACE.search(text)
    if not m or (m.group(1) != "data race" and "pthread_create" not in text):
        return None
    return True


def gcc_progs(testsuite, pat, skipped):
    inc, out = shim_dir(), os.path.join(TMP, "gcc")
    os.makedirs(out, exist_ok=True)
    progs = []
    for sub in ("c-c++-common/tsan", "g++.dg/tsan"):
        sdir = os.path.join(testsuite, sub)
        for name, src, text, racy in tests_in(sdir, (".c", ".C"), pat, gcc_verdict, skipped, "gcc/"):
            more = re.search(r"dg-additional-sources ([\w.-]+)", text)
            # copies beside no tsan_barrier.h: a quoted include is looked
            # for in the source's own directory before -I
            srcs = [copy_to(out, src, text)]
            if more:
                extra = os.path.join(sdir, more.group(1))
                srcs.append(copy_to(out, extra, open(extra, errors="replace").read()))
            base = name.rsplit(".", 1)[0]
            for opt in ("-O0", "-O2"):
                exe = os.path.join(out, base + opt)
                if build(srcs, exe, [opt, "-g", "-pthread", "-I", inc], skipped,
                         cxx=name.endswith(".C")):
                    progs.append(Prog("gcc/%s %s" % (name, opt), exe, racy))
    return progs


def vg_test(path):
    """A .vgtest's prog:, args: and prereq: lines."""
    t = {"prog": "", "args": "", "prereq": ""}
    with open(path, errors="replace") as f:
        for line in f:
            key, _, val = line.partition(":")
            if key.strip() in t and not t[key.strip()]:
                t[key.strip()] = val.strip()
    return t


def vg_progs(vg, pat, skipped):
    """One program per .vgtest (pth_barrier1..3 run one source with
    different args), as the suites count them."""
    out = os.path.join(TMP, "vg")
    os.makedirs(out, exist_ok=True)
    progs = []
    for tool in ("drd", "helgrind"):
        tdir = os.path.join(vg, tool, "tests")
        for name in sorted(os.listdir(tdir)):
            if not name.endswith(".vgtest"):
                continue
            test = name[:-7]
            full = tool + "_" + test
            t = vg_test(os.path.join(tdir, name))
            src = os.path.normpath(os.path.join(tdir, t["prog"])) + ".c"  # ../../helgrind/tests/x
            if (pat and pat not in full) or not os.path.exists(src):
                continue
            with open(src, errors="replace") as f:
                if VG_SKIP.search(f.read()):
                    continue
            exps = [e for e in os.listdir(tdir) if e.startswith(test + ".stderr.exp")]
            if not exps:
                skipped.append((full, "no expected output"))
                continue
            if VG_PREREQ_FAILS.search(t["prereq"]):
                skipped.append((full, "its .vgtest excludes this system"))
                continue
            # this machine's variant: the plain one, else a 64-bit one
            exps.sort(key=lambda e: (e != test + ".stderr.exp", not re.search(r"64|amd64", e), e))
            with open(os.path.join(tdir, exps[0]), errors="replace") as f:
                exp = f.read()
            racy = bool(VG_RACE.search(exp) or VG_COUNT_ONLY.search(exp)) \
                and full not in VG_RACEFREE
            exe = os.path.join(out, os.path.basename(os.path.dirname(os.path.dirname(src)))
                               + "_" + os.path.basename(src)[:-2])
            if build([src], exe, ["-O0", "-g", "-pthread", "-I", vg], skipped):
                progs.append(Prog(full, exe, racy, t["args"].split()))
    return progs


def tool_cmd(tool, build_dir):
    if tool == "ag":
        env = dict(os.environ, AG_BUILD=build_dir)
        return [os.path.join(ROOT, "vg-in-place"), "--tool=atomgrind", "--check=races"], env
    return ["valgrind", "--tool=" + tool], dict(os.environ)


def run_one(prog, tool, build_dir, timeout):
    cmd, env = tool_cmd(tool, build_dir)
    try:
        r = subprocess.run(["nice"] + cmd + [prog.exe] + prog.args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, universal_newlines=True, errors="replace",
                           env=env, timeout=timeout, cwd=TMP)
    except subprocess.TimeoutExpired:
        return "hang", 0
    err = r.stderr
    if "ERROR SUMMARY" not in err:           # the tool did not run to its end
        return "crash", 0
    # Valgrind's own failure (a program may kill itself: tc22_exit_w_lock)
    if re.search(r"the 'impossible' happened|Valgrind's memory management|"
                 r"valgrind: m_\w+\.c:\d+", err):
        return "crash", 0
    n = len(re.findall(r"Possible data race|Conflicting (?:load|store)|Destruction of barrier not synchronized", err))
    return "ok", n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tsan", help="compiler-rt/test/tsan of an LLVM checkout")
    ap.add_argument("--vg", help="a Valgrind source tree (helgrind/tests, drd/tests)")
    ap.add_argument("--gcc", help="GCC's gcc/testsuite (c-c++-common/tsan, g++.dg/tsan)")
    ap.add_argument("-t", "--tools", default="ag", help="ag,helgrind,drd")
    ap.add_argument("-k", default="", help="only programs whose name has this")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="atomgrind build dir")
    ap.add_argument("--list", action="store_true", help="one line per program")
    ap.add_argument("--cc", choices=("gcc", "clang"), default="gcc",
                    help="the compiler the programs are built with [gcc]")
    a = ap.parse_args()
    global CLANG, TMP
    CLANG = a.cc == "clang"
    if CLANG:
        TMP += "-clang"                  # its own builds
    if not a.tsan and not a.vg and not a.gcc:
        ap.error("give --tsan DIR, --vg DIR and/or --gcc DIR")
    for d in (a.tsan, a.vg, a.gcc):
        if d and not os.path.isdir(d):
            ap.error("no such directory: " + d)
    os.makedirs(TMP, exist_ok=True)
    skipped, suites = [], []
    if a.tsan:
        suites.append(("tsan", tsan_progs(a.tsan, a.k, skipped)))
    if a.vg:
        suites.append(("valgrind", vg_progs(a.vg, a.k, skipped)))
    if a.gcc:
        suites.append(("gcc", gcc_progs(a.gcc, a.k, skipped)))
    tools = a.tools.split(",")
    jobs = [(p, t) for _, ps in suites for p in ps for t in tools]
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        futs = {ex.submit(run_one, p, t, a.build, a.timeout): (p, t) for p, t in jobs}
        for fu in concurrent.futures.as_completed(futs):
            p, t = futs[fu]
            p.result[t] = fu.result()
    for sname, ps in suites:
        racy = sum(p.racy for p in ps)
        print("## %s: %d programs, %d racy, %d race-free" % (sname, len(ps), racy, len(ps) - racy))
        print("| tool | races found (of %d) | false races (of %d) | crash/hang |" % (racy, len(ps) - racy))
        print("|---|---|---|---|")
        for t in tools:
            found = sum(1 for p in ps if p.racy and p.result[t] == ("ok", p.result[t][1]) and p.result[t][1])
            false = sum(1 for p in ps if not p.racy and p.result[t][0] == "ok" and p.result[t][1])
            bad = sum(1 for p in ps if p.result[t][0] != "ok")
            print("| %s | %d | %d | %d |" % (t, found, false, bad))
        if a.list:
            for p in ps:
                res = " ".join("%s=%s" % (t, p.result[t][0] if p.result[t][0] != "ok" else p.result[t][1])
                               for t in tools)
                wrong = [t for t in tools if p.result[t][0] != "ok" or bool(p.result[t][1]) != p.racy]
                print("%-45s %-9s %s%s" % (p.name, "racy" if p.racy else "race-free", res,
                                          "  WRONG:" + ",".join(wrong) if wrong else ""))
        print()
    print("# left out: %d (%s)" % (len(skipped), ", ".join(sorted({r for _, r in skipped}))))
    if a.list:
        for n, r in skipped:
            print("#   %s: %s" % (n, r))


if __name__ == "__main__":
    sys.exit(main())
