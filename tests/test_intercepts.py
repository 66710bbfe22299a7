"""The preload library's pthread wrappers (atomgrind/events/ag_intercepts.c), on
their own: they are built in trace mode (-DAG_TRACE_INTERCEPTS=1, every
wrapper and every client request printed through the core) and preloaded
under Valgrind's 'none' tool, which ignores atomgrind's requests.  This
needs gcc and Valgrind only, not the atomgrind tool.

Checked: every wrapped function's wrapper runs (tests/progs/sync_zoo.c uses
them all), the request stream keeps the protocol of ag_requests.h
(tests/intercepts/check_protocol.py), the GLIBC_2.2.5 condvar versions are
wrapped and report once (tests/progs/glibc_aliases.c), cancellation inside
a wrapped wait leaves a consistent state (tests/progs/cancel_waits.c), and
the library compiles without warnings."""
import os
import subprocess
import sys
import tempfile
import unittest

from agtest import OUT, REPO, compile_prog

SRC = os.path.join(REPO, "atomgrind", "events", "ag_intercepts.c")
CHECKER = os.path.join(REPO, "tests", "intercepts", "check_protocol.py")

CFLAGS = ["-DVGA_amd64=1", "-DVGO_linux=1", "-DVGP_amd64_linux=1",
          "-DVGPV_amd64_linux_vanilla=1", "-I/usr/include/valgrind",
          "-I" + os.path.join(REPO, "atomgrind"), "-m64", "-O", "-g", "-fpic",
          "-fno-omit-frame-pointer", "-fno-ipa-icf", "-fno-stack-protector",
          "-fno-strict-aliasing", "-fno-builtin"]
LDFLAGS = ["-shared", "-nodefaultlibs", "-Wl,-z,interpose,-z,initfirst"]
WARN = ["-Wall", "-Wextra", "-Wmissing-prototypes", "-Wshadow", "-Wpointer-arith",
        "-Wstrict-prototypes", "-Wmissing-declarations", "-Wcast-align",
        "-Wno-pointer-sign", "-Werror"]

WRAPPED = """
pthread_create pthread_join pthread_tryjoin_np pthread_timedjoin_np
pthread_clockjoin_np pthread_detach pthread_once
pthread_mutex_init pthread_mutex_destroy pthread_mutex_lock pthread_mutex_trylock
pthread_mutex_timedlock pthread_mutex_clocklock pthread_mutex_unlock
pthread_spin_init pthread_spin_unlock pthread_spin_destroy pthread_spin_lock
pthread_spin_trylock
pthread_rwlock_init pthread_rwlock_destroy pthread_rwlock_rdlock
pthread_rwlock_tryrdlock pthread_rwlock_timedrdlock pthread_rwlock_clockrdlock
pthread_rwlock_wrlock pthread_rwlock_trywrlock pthread_rwlock_timedwrlock
pthread_rwlock_clockwrlock pthread_rwlock_unlock
pthread_cond_init pthread_cond_destroy pthread_cond_signal pthread_cond_broadcast
pthread_cond_wait pthread_cond_timedwait pthread_cond_clockwait
sem_init sem_destroy sem_post sem_wait sem_trywait sem_timedwait sem_clockwait
sem_open sem_close
pthread_barrier_init pthread_barrier_destroy pthread_barrier_wait
""".split()

# (pthread_cancel is wrapped too; tests/progs/cancel_waits.c uses it)

# the ones glibc 2.36 also has as GLIBC_2.2.5 compatibility versions
COND_COMPAT = ["pthread_cond_init", "pthread_cond_destroy", "pthread_cond_signal",
               "pthread_cond_broadcast", "pthread_cond_wait", "pthread_cond_timedwait"]


def valgrind_libdir():
    for d in [os.environ.get("AG_VALGRIND_TOOLDIR"), "/usr/libexec/valgrind",
              "/usr/lib/x86_64-linux-gnu/valgrind", "/usr/lib/valgrind",
              "/usr/local/libexec/valgrind"]:
        if d and os.path.exists(os.path.join(d, "none-amd64-linux")):
            return d
    raise unittest.SkipTest("no Valgrind 'none' tool found")


class Intercepts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(OUT, exist_ok=True)
        # a VALGRIND_LIB whose 'none' tool preloads the trace build
        cls.vglib = os.path.join(OUT, "vglib-intercepts")
        os.makedirs(cls.vglib, exist_ok=True)
        sysdir = valgrind_libdir()
        for f in os.listdir(sysdir):
            dst = os.path.join(cls.vglib, f)
            if f.startswith("vgpreload_none-"):
                continue
            if not os.path.lexists(dst):
                os.symlink(os.path.join(sysdir, f), dst)
        cls.preload = os.path.join(cls.vglib, "vgpreload_none-amd64-linux.so")
        if os.path.lexists(cls.preload):
            os.unlink(cls.preload)
        subprocess.run(["gcc", "-DAG_TRACE_INTERCEPTS=1", *CFLAGS, *WARN, *LDFLAGS,
                        "-o", cls.preload, SRC], check=True)

    def run_traced(self, prog):
        exe = compile_prog(prog)
        with tempfile.NamedTemporaryFile("r", suffix=".log") as lf:
            env = dict(os.environ, VALGRIND_LIB=self.vglib)
            proc = subprocess.run(["valgrind", "--tool=none", "--log-file=" + lf.name, exe],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, timeout=600, env=env)
            log = lf.read()
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + log[-3000:])
        self.assertIn("%s: ok" % prog, proc.stdout)
        return log

    def check(self, log, *opts):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write(log)
            f.flush()
            r = subprocess.run([sys.executable, CHECKER, f.name, *opts],
                               stdout=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)

    def test_sync_zoo_hits_every_wrapper(self):
        log = self.run_traced("sync_zoo")
        # one misuse on purpose: unlocking an error-checking mutex twice
        self.check(log, "--require", ",".join(WRAPPED), "--expect-misuse", "1")

    def test_compat_condvars_and_c11_threads(self):
        log = self.run_traced("glibc_aliases")
        self.check(log, "--require", ",".join(COND_COMPAT + ["pthread_create",
                                                            "pthread_join",
                                                            "pthread_once",
                                                            "pthread_mutex_lock"]))
        # with glibc 2.36 both the compat and the current versions exist;
        # on a glibc without them this part has nothing to check
        if "GLIBC_2.2.5" in subprocess.run(["objdump", "-T", compile_prog("glibc_aliases")],
                                           stdout=subprocess.PIPE, text=True).stdout:
            self.check(log, "--two-versions", ",".join(COND_COMPAT))

    def test_cancelled_waits(self):
        # cancelled inside condvar waits (current and compat), sem_wait and
        # pthread_join, and pthread_exit: brackets closed, mutexes re-held
        log = self.run_traced("cancel_waits")
        # (a cancelled wrapper never prints its line: count the requests)
        self.check(log, "--require", "sem_wait,pthread_join,pthread_cancel",
                   "--min-requests", "COND_WAIT_PRE=4,COND_WAIT_POST=4")

    def test_builds_without_warnings(self):
        with tempfile.TemporaryDirectory() as d:
            for trace in ("0", "1"):
                r = subprocess.run(["gcc", "-DAG_TRACE_INTERCEPTS=" + trace, *CFLAGS, *WARN,
                                    *LDFLAGS, "-o", os.path.join(d, "p.so"), SRC],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                self.assertEqual((r.returncode, r.stdout), (0, ""))


if __name__ == "__main__":
    unittest.main()
