"""The program collection that atomgrind's scheduling and detection are
judged by: tests/progs/bugs/ holds programs with one real atomicity bug
each (a region that is not conflict-serializable in some interleaving),
tests/progs/ok/ correct programs (every region serializable in every
interleaving, including the accesses outside regions).

Each entry: name, source files (relative to tests/progs; the first is the
program), language ('c' or 'c++'), lib (sources of a shared library
lib<name>.so the program is linked with, or ()), flags (extra compiler
flags), verdict ('bug' or 'ok') and a one-line description.  Build one with
tests/agtest.py's build_corpus(entry); run them with perf/detect.py."""
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
]

BUGS = [p for p in PROGRAMS if p.verdict == "bug"]
OK = [p for p in PROGRAMS if p.verdict == "ok"]
BY_NAME = {p.name: p for p in PROGRAMS}
