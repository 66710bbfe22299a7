"""The program collection that atomgrind's scheduling and detection are
judged by: tests/progs/bugs/ holds programs with one real atomicity bug
each (a region that is not conflict-serializable in some interleaving),
tests/progs/ok/ correct programs (every region serializable in every
interleaving, including the accesses outside regions).

Each entry: name, source files (relative to tests/progs; the first is the
program), language ('c' or 'c++'), lib (sources of a shared library
lib<name>.so the program is linked with, or ()), flags (extra compiler
flags), verdict ('bug' or 'ok') and a one-line description.  Build one with
tests/agtest.py's build_corpus(entry); run them with perf/detect.py;
tests/test_corpus.py checks them.

Adding a program: a header comment that opens with "Bug:" or "Correct:";
for a bug, the pattern, the interleaving that breaks it and the cycle it
closes ("Cycle: ..."), and the data involved; 2-4 threads, a fixed amount
of work (well under 2 s under Valgrind), no sleeps to force the
interleaving (finding it is the scheduler's job), no stdio inside regions,
a count printed at the end (a correct program prints "consistent").  A
correct program must be serializable in EVERY interleaving, counting each
access outside a region as a transaction of its own: every region holds
one lock (or locks taken two-phase) from before its first shared access to
after its last, or touches only data no other thread writes meanwhile, or
has exactly one shared access (one atomic instruction).  Two regions that
meet on two locations in opposite orders are a violation; so is a region
that releases a lock and takes it again (a wait on a condition variable
too) if anyone else can take it in between."""
import collections

Prog = collections.namedtuple("Prog", "name srcs lang lib flags verdict desc")


def _p(name, srcs, verdict, desc, lib=(), flags=()):
    srcs = tuple(srcs) if isinstance(srcs, (list, tuple)) else (srcs,)
    lang = "c++" if any(s.endswith(".cpp") for s in srcs + tuple(lib)) else "c"
    return Prog(name, srcs, lang, tuple(lib), tuple(flags), verdict, desc)


def _bug(name, desc, src=None, **kw):
    return _p(name, src or "bugs/%s.%s" % (name, kw.pop("ext", "c")), "bug", desc, **kw)


def _ok(name, desc, src=None, **kw):
    return _p(name, src or "ok/%s.%s" % (name, kw.pop("ext", "c")), "ok", desc, **kw)


PROGRAMS = [
    # ---- real atomicity bugs
    _bug("check_act", "check then act (seats left? sell one), each step holding the mutex"),
    _bug("rmw_split", "counter_set(counter_get() + 1): a read-modify-write split across two lock holds"),
    _bug("lazy_init", "unlocked lazy initialisation of table slots: two threads create the same slot"),
    _bug("transfer", "transfer with a lock per account taken one at a time; an auditor sums between the halves"),
    _bug("atomic_load_store", "std::atomic load, then store of load+1 (not fetch_add): duplicate ids", ext="cpp"),
    _bug("size_then_index", "std::vector size read in one lock hold, element [size-1] taken in another", ext="cpp"),
    _bug("cond_wait_region", "bounded buffer put: tail read before a condition wait, stored after it"),
    _bug("lib_bug", "buggy entry point in a shared library (read-modify-write across two lock holds)",
         lib=["bugs/lib_stats.c"]),
    _bug("iterator_invalidation", "iterating a std::vector across lock holds while another thread inserts",
         ext="cpp"),
    _bug("dcl_publish_early", "double-checked initialisation that publishes the pointer before filling the object"),
    _bug("errno_global", "errno-style global error code read after the call: another thread overwrites it"),
    _bug("aba_stack", "Treiber stack pop (read top/next, CAS) with recycled nodes: ABA"),
    _bug("mutex_registry", "insert-if-absent from two std::mutex-protected calls (contains, add)", ext="cpp"),
    _bug("shared_mutex_upgrade", "check under a std::shared_mutex read lock, withdraw under the write lock",
         ext="cpp"),
    _bug("condvar_ticket", "job number reserved before a std::condition_variable wait, used after it",
         ext="cpp"),
    _bug("two_step_publish", "a two-field update done in two lock holds; readers see it half done"),
    _bug("stale_pointer", "a session pointer looked up in one lock hold, its counter bumped in another"),
    _bug("bounded_counter", "atomic load < LIMIT, then atomic fetch_add: the limit is exceeded"),
    _bug("cache_refresh", "a cache's rare miss path drops the lock to compute, then inserts and counts blindly"),
    _bug("pipeline_snapshot", "a monitor reads a pipeline's two ends in two lock holds: needs 3 threads in order"),
    _bug("config_reload", "readers read two config fields unlocked; a rare reload (3 in a run) changes both"),
    _bug("unlocked_reset", "a locked append; another thread resets the length without the lock (outside regions)"),

    # ---- correct programs: serializable in every interleaving
    _ok("lock_across", "check then act with the mutex held across the region; a restocker"),
    _ok("two_phase_transfer", "transfers and an auditor under two-phase locking (per-account mutexes)"),
    _ok("thread_local", "regions touch only __thread data and the thread's own stack"),
    _ok("read_only_shared", "table written before pthread_create, only read in regions; per-thread results"),
    _ok("atomic_counter", "a lone __atomic_fetch_add in each region; another thread adds outside regions"),
    _ok("atomic_fetch_add", "std::atomic fetch_add as the only shared access of a region", ext="cpp"),
    _ok("lock_guard_registry", "insert-if-absent under one std::lock_guard; the registry on main's stack",
        ext="cpp"),
    _ok("prodcons", "condition-variable producer/consumer; regions after the wait, inside the lock hold"),
    _ok("condvar_queue", "std::condition_variable job queue; regions after the wait", ext="cpp"),
    _ok("rwlock_readers", "pthread rwlock: readers' and writer's regions each hold the lock throughout"),
    _ok("shared_mutex", "std::shared_mutex: shared_lock readers, unique_lock check-and-withdraw", ext="cpp"),
    _ok("per_thread_slots", "each thread writes its own slot of shared arrays and its own byte of one word"),
    _ok("disjoint_heap", "each thread's regions work on its own heap block"),
    _ok("malloc_in_region", "regions malloc/realloc/calloc, use and free their own buffers"),
    _ok("lib_ok", "a correct entry point of a shared library (region and mutex inside the .so)",
        lib=["ok/lib_counter.c"]),
    _ok("spinlock", "a pthread spinlock held across each region"),
    _ok("recursive_nested", "nested regions under a recursive mutex held by the outer region"),
    _ok("once_init", "pthread_once initialisation inside a region, then reads of the table"),
    _ok("barrier_phases", "barrier-separated phases: write own slot, then read all slots"),
    _ok("spin_flag", "threads spin on atomic flags outside regions; locked regions"),
    _ok("semaphore", "a binary semaphore around each region"),
    _ok("fork_child", "a thread forks a child and waits for it while others run locked regions"),
    _ok("sleep_in_region", "regions sleep (nanosleep) while holding the lock that protects their data"),
    _ok("timed_wait", "consumers loop on pthread_cond_timedwait; regions after the wait"),
    _ok("thread_waves", "waves of short-lived threads, each a few locked regions; stacks reused"),
    _ok("signals", "SIGUSR1 sent to threads running locked regions; the handler touches thread-local data"),
]

BUGS = [p for p in PROGRAMS if p.verdict == "bug"]
OK = [p for p in PROGRAMS if p.verdict == "ok"]
BY_NAME = {p.name: p for p in PROGRAMS}
