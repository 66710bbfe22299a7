"""Shared helpers for atomgrind's Python tests: where the build is, how to
compile a test program, how to run it under the in-place tool and read the
errors it reported."""
import contextlib
import os
import re
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BUILD = os.environ.get("AG_BUILD", os.path.join(REPO, "build"))
PROGS = os.path.join(HERE, "progs")
OUT = os.path.join(BUILD, "tests-bin")


def tool_built():
    return os.path.exists(os.path.join(BUILD, "atomgrind-amd64-linux"))


_compiling = threading.Lock()


def compile_prog(name, extra=(), suffix=""):
    """Compile tests/progs/NAME.c (once) and return the binary's path
    (NAME+suffix: a build with other flags needs its own suffix).  Safe
    from a test's worker threads: one compiles while the others wait, and
    the binary appears whole (a thread that ran it half-written got
    "Permission denied" on a clean clone)."""
    os.makedirs(OUT, exist_ok=True)
    src = os.path.join(PROGS, name + ".c")
    exe = os.path.join(OUT, name + suffix)
    # (again when the program or a header beside it changed: common.h)
    newest = max(os.path.getmtime(f) for f in
                 [src] + [os.path.join(PROGS, h) for h in os.listdir(PROGS) if h.endswith(".h")])
    with _compiling:
        if not os.path.exists(exe) or os.path.getmtime(exe) < newest:
            tmp = "%s.tmp%d" % (exe, os.getpid())
            subprocess.run(["cc", "-g", "-O0", "-pthread", "-I", os.path.join(REPO, "atomgrind"),
                            "-o", tmp, src, *extra], check=True)
            os.replace(tmp, exe)
    return exe


class Run:
    """The outcome of one run under Valgrind."""
    def __init__(self, proc, log):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.log = log
        # strip the ==PID== prefixes
        self.text = "\n".join(re.sub(r"^==\d+== ?", "", l) for l in log.splitlines())
        m = re.search(r"ERROR SUMMARY: (\d+) errors from (\d+) contexts \(suppressed: (\d+) from", log)
        self.errors = int(m.group(1)) if m else None
        self.contexts = int(m.group(2)) if m else None
        self.suppressed = int(m.group(3)) if m else None
        self.atomicity = len(re.findall(r"^Atomicity violation", self.text, re.M))
        self.races = len(re.findall(r"^Possible data race", self.text, re.M))
        self.misuse = len(re.findall(r"^(Thread #\d+ (unlocked|exited|waits)|ATOMGRIND_ATOMIC_END without|Unknown atomgrind|Atomic region abandoned)",
                                     self.text, re.M))

    def __repr__(self):
        return "<Run rc=%s errors=%s>\n%s" % (self.rc, self.errors, self.log)

    def major_sched_events(self):
        """The core's major scheduling events (its time slices' ends) in a
        --stats=yes run, None if the line is missing."""
        m = re.search(r"scheduler: ([\d,]+)/[\d,]+ major/minor sched events", self.text)
        return int(m.group(1).replace(",", "")) if m else None


def vg_in_place(*args, timeout=300):
    """Run ./vg-in-place ARGS as is; returns the CompletedProcess with
    stdout and stderr together in .stdout (for option and startup errors)."""
    return subprocess.run([os.path.join(REPO, "vg-in-place"), *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout,
                          env=dict(os.environ, AG_BUILD=BUILD))


@contextlib.contextmanager
def supp_file(text):
    """A temporary suppression file holding text; yields its path."""
    with tempfile.NamedTemporaryFile("w", suffix=".supp", delete=False) as f:
        f.write(text)
    try:
        yield f.name
    finally:
        os.unlink(f.name)


def valgrind(exe, *opts, args=(), timeout=300, env=None):
    """Run exe under the in-place atomgrind; return a Run."""
    with tempfile.NamedTemporaryFile("r", suffix=".log") as lf:
        cmd = [os.path.join(REPO, "vg-in-place"), "--tool=atomgrind",
               "--log-file=" + lf.name, *opts, exe, *args]
        e = dict(os.environ, AG_BUILD=BUILD)
        if env:
            e.update(env)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout, env=e)
        log = lf.read()
    if "ERROR SUMMARY" not in log and "--xml=yes" not in opts:
        raise AssertionError("valgrind did not finish normally: rc=%d\n%s\n%s"
                             % (proc.returncode, log, proc.stderr))
    return Run(proc, log)


def valgrind_rss(exe, *opts, args=(), timeout=300):
    """valgrind(), plus the run's peak RSS in MiB, of that process alone
    (vg-in-place execs valgrind, which execs the tool).  Measured by
    tests/progs/rss_of.c: a child of this runner would report the runner's
    own peak, which the kernel keeps across the child's exec."""
    with tempfile.NamedTemporaryFile("r", suffix=".log") as lf, \
         tempfile.NamedTemporaryFile("r", suffix=".rss") as rf:
        cmd = [compile_prog("rss_of"), rf.name,
               os.path.join(REPO, "vg-in-place"), "--tool=atomgrind",
               "--log-file=" + lf.name, *opts, exe, *args]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout, env=dict(os.environ, AG_BUILD=BUILD))
        log = lf.read()
        kib = rf.read().strip()
    if not kib:
        raise AssertionError("rss_of measured nothing: rc=%d\n%s" % (proc.returncode, proc.stderr))
    return Run(proc, log), int(kib) / 1024.0


# ---- host-built C tests (engines, readers) ----------------------------------

ENGINE_DIR = os.path.join(REPO, "atomgrind", "engine")
CTESTS = os.path.join(HERE, "engine")
HOST_OUT = os.path.join(BUILD, "tests-host")
# Host tests always run under AddressSanitizer and UndefinedBehaviorSanitizer.
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined"]


def engine_sources(host_shim=True):
    """The engine's C files (with the libc shim unless the test has its own)."""
    import glob
    return [f for f in sorted(glob.glob(os.path.join(ENGINE_DIR, "*.c")))
            if host_shim or os.path.basename(f) != "ag_shim_host.c"]


def host_binary(name, srcs, libs=(), opt="-O1", includes=(), defines=()):
    """Build a host C program from srcs with the sanitizers (again only when
    a source changed) and return its path.  Each source is compiled once
    per set of flags and kept (tests-host/obj): the engine's sources are in
    many of the host tests."""
    os.makedirs(os.path.join(HOST_OUT, "obj"), exist_ok=True)
    exe = os.path.join(HOST_OUT, name)
    headers = [os.path.join(d, f) for d in (ENGINE_DIR, CTESTS, *includes)
               for f in os.listdir(d) if f.endswith(".h")]
    newest_header = max((os.path.getmtime(h) for h in headers), default=0)
    objs = [host_object(src, opt, includes, defines, headers, newest_header) for src in srcs]
    if os.path.exists(exe) and all(os.path.getmtime(o) <= os.path.getmtime(exe) for o in objs):
        return exe
    tmp = "%s.%d.%d" % (exe, os.getpid(), threading.get_ident())   # (modules run side by side)
    host_cc(name, ["-o", tmp, *SANITIZE, *objs, *libs])
    os.replace(tmp, exe)
    return exe


def host_object(src, opt, includes, defines, headers, newest_header):
    """src compiled with these flags (only the defines it or a header
    names), again only when it or a header changed."""
    import hashlib
    with open(src) as f:
        text = f.read()
    used = [d for d in defines
            if d.split("=")[0] in text or any(d.split("=")[0] in open(h).read() for h in headers)]
    flags = ["-std=gnu99", opt, "-g", *SANITIZE, "-I", ENGINE_DIR, "-I", CTESTS,
             *("-I" + i for i in includes), *("-D" + d for d in used)]
    key = hashlib.sha1(("\0".join([os.path.abspath(src)] + flags)).encode()).hexdigest()[:12]
    obj = os.path.join(HOST_OUT, "obj", "%s-%s.o" % (os.path.splitext(os.path.basename(src))[0], key))
    if not os.path.exists(obj) or os.path.getmtime(obj) < max(os.path.getmtime(src), newest_header):
        tmp = "%s.%d.%d" % (obj, os.getpid(), threading.get_ident())   # (tests in threads)
        host_cc(src, ["-c", *flags, src, "-o", tmp])
        os.replace(tmp, obj)
    return obj


def host_cc(what, args):
    cmd = [os.environ.get("CC", "cc"), *args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise AssertionError("cannot build %s:\n%s\n%s" % (what, " ".join(cmd), p.stdout))


def assert_engine_test(case, name, c_files, *args, passed=", 0 failed"):
    """Build tests/engine's c_files with the engine and the test shim that
    counts allocations (ag_test_shim.c), run it with args: it must exit 0
    and print `passed`."""
    exe = host_binary(name, engine_sources(host_shim=False) + [
        os.path.join(CTESTS, f) for f in ("ag_test_shim.c", *c_files)])
    p = run_host(exe, *args)
    case.assertEqual(p.returncode, 0, p.stdout + p.stderr)
    case.assertIn(passed, p.stdout, p.stdout + p.stderr)


def run_host(exe, *args, timeout=600):
    """Run a host test; returns the CompletedProcess."""
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1")
    return subprocess.run([exe, *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=timeout, env=env)


# ---- the program collection (tests/progs/corpus.py) -------------------------

def build_corpus(prog, cflags=()):
    """Build a corpus.Prog (C or C++, with its shared library if it has one)
    into tests-bin as corpus-NAME (again only when a source changed) and
    return the binary's path.  cflags (-O2, say) come after the default
    -O0 and name the binary and library apart (corpus-NAME-O2).  <valgrind/atomgrind.h> is this tree's header.
    Safe to call from several threads or processes at once: each output is
    written under a temporary name and renamed into place."""
    inc = os.path.join(OUT, "include")
    os.makedirs(os.path.join(inc, "valgrind"), exist_ok=True)
    hdr = os.path.join(inc, "valgrind", "atomgrind.h")
    if not os.path.exists(hdr):
        tmp = "%s.%d.%d" % (hdr, os.getpid(), threading.get_ident())
        os.symlink(os.path.join(REPO, "atomgrind", "atomgrind.h"), tmp)
        os.replace(tmp, hdr)
    cc = "g++" if prog.lang == "c++" else "cc"
    flags = ["-g", "-O0", "-pthread", "-I", inc, *prog.flags, *cflags]
    tag = prog.name + re.sub(r"[^A-Za-z0-9]+", "", "-".join(cflags)).join(["-", ""] if cflags else ["", ""])
    exe = os.path.join(OUT, "corpus-" + tag)
    srcs = [os.path.join(PROGS, s) for s in prog.srcs]
    libsrcs = [os.path.join(PROGS, s) for s in prog.lib]
    deps = srcs + libsrcs + [os.path.join(os.path.dirname(s), h) for s in srcs
                             for h in os.listdir(os.path.dirname(s)) if h.endswith(".h")]
    if os.path.exists(exe) and all(os.path.getmtime(d) <= os.path.getmtime(exe) for d in deps):
        return exe

    def cc_to(out, *args):
        tmp = "%s.tmp%d.%d" % (out, os.getpid(), threading.get_ident())
        subprocess.run([cc, *flags, "-o", tmp, *args], check=True)
        os.replace(tmp, out)
    libs = []
    if libsrcs:
        cc_to(os.path.join(OUT, "libcorpus-%s.so" % tag), "-fPIC", "-shared", *libsrcs)
        libs = ["-L", OUT, "-lcorpus-" + tag, "-Wl,-rpath,$ORIGIN"]
    cc_to(exe, *srcs, *libs)
    return exe


def parallel(fn, items):
    """fn over items, two at a time (the machine's cores are shared)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(fn, items))
