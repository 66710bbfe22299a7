#!/usr/bin/env python3
"""check_protocol.py -- check the request stream of atomgrind's preload.

Reads the output of a program run under Valgrind with the preload built
with -DAG_TRACE_INTERCEPTS=1, in which every wrapper prints
  ag-intercept: t=<pthread_self> <function> orig=<addr> a1=.. a2=.. rc=<n>
after the real call and every client request prints
  ag-req: t=<pthread_self> <REQUEST> <arg1> <arg2> <arg3>
when it is sent.  Checks, per thread:
  - IGNORE_PUSH/POP nest properly and are balanced when the thread's
    last wrapper returns;
  - COND_WAIT_PRE/POST and BARRIER_PRE/POST come in pairs;
  - locks are released only by a holder (except the releases listed with
    --expect-misuse N, e.g. the zoo's EPERM unlock of an error-checking
    mutex) and nothing is left held;
  - a thread's start routine ends ("thread-end": returned, pthread_exit or
    cancelled) outside every wrapper, holding no lock, and then pushes one
    IGNORE bracket for
    glibc's teardown that is never popped (the thread's state is reset
    there: glibc reuses pthread_t values);
  - with --require F1,F2,..: each named function's wrapper returned at
    least once (a wrapper's line is printed when the real call returns);
  - with --min-requests NAME=N,..: at least N requests NAME were sent;
  - with --two-versions F1,..: each named function's wrapper ran for two
    original addresses (e.g. pthread_cond_wait@GLIBC_2.2.5 and @@2.3.2).
Prints a summary; exits 1 on any violation.
"""
import argparse
import collections
import re
import sys

REQ = re.compile(r'ag-req: t=(0x[0-9a-f]+|0) (\w+) (0x[0-9a-f]+|0) (0x[0-9a-f]+|0) (0x[0-9a-f]+|0)')
HIT = re.compile(r'ag-intercept: t=(0x[0-9a-f]+|0) (\S+) orig=(0x[0-9a-f]+|0) .* rc=(-?\d+)')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--require', default='')
    ap.add_argument('--two-versions', default='',
                    help='functions whose wrapper must have run for two '
                         'different original addresses (compat versions)')
    ap.add_argument('--min-requests', default='',
                    help='NAME=N,..: at least N requests NAME were sent')
    ap.add_argument('--expect-misuse', type=int, default=0)
    ap.add_argument('--verbose', action='store_true')
    o = ap.parse_args()

    errors = []
    depth = collections.Counter()          # thread -> ignore depth
    held = collections.defaultdict(collections.Counter)   # thread -> lock -> n
    pending_wait = {}                      # thread -> (cond, mutex)
    pending_barrier = {}                   # thread -> barrier
    hits = collections.Counter()
    origs = collections.defaultdict(set)
    reqs = collections.Counter()
    misuse = []
    ending = set()                         # threads between end and teardown

    def thread_end(t, lineno):
        if depth[t] != 0:
            errors.append(f'{lineno}: thread {t} ends at ignore depth {depth[t]}')
        for l, n in held[t].items():
            if n:
                errors.append(f'{lineno}: thread {t} ends holding {l:#x} ({n})')
        if t in pending_wait or t in pending_barrier:
            errors.append(f'{lineno}: thread {t} ends inside a wait')
        ending.add(t)

    for lineno, line in enumerate(open(o.log, errors='replace'), 1):
        m = REQ.search(line)
        if m:
            t, name = m.group(1), m.group(2)
            a1, a2, a3 = (int(x, 16) for x in m.group(3, 4, 5))
            reqs[name] += 1
            if t in ending:
                if name != 'IGNORE_PUSH':
                    errors.append(f'{lineno}: thread {t}: {name} after its end')
                ending.discard(t)       # the teardown bracket: forget t
                depth[t] = 0
                held[t].clear()
                continue
            if name == 'IGNORE_PUSH':
                depth[t] += 1
            elif name == 'IGNORE_POP':
                depth[t] -= 1
                if depth[t] < 0:
                    errors.append(f'{lineno}: thread {t}: IGNORE_POP without PUSH')
            elif name == 'LOCK_ACQUIRED':
                held[t][a1] += 1
            elif name == 'LOCK_RELEASE':
                if held[t][a1] > 0:
                    held[t][a1] -= 1
                else:
                    misuse.append(f'{lineno}: thread {t} releases {a1:#x}, not held')
            elif name == 'SPIN_INIT_OR_UNLOCK':
                if held[t][a1] > 0:
                    held[t][a1] -= 1
            elif name == 'COND_WAIT_PRE':
                if t in pending_wait:
                    errors.append(f'{lineno}: thread {t}: nested COND_WAIT_PRE')
                pending_wait[t] = (a1, a2)
                if held[t][a2] > 0:
                    held[t][a2] -= 1
                else:
                    misuse.append(f'{lineno}: thread {t} waits with {a2:#x} not held')
            elif name == 'COND_WAIT_POST':
                if pending_wait.pop(t, None) != (a1, a2):
                    errors.append(f'{lineno}: thread {t}: COND_WAIT_POST without matching PRE')
                held[t][a2] += 1
            elif name == 'BARRIER_PRE':
                if t in pending_barrier:
                    errors.append(f'{lineno}: thread {t}: nested BARRIER_PRE')
                pending_barrier[t] = a1
            elif name == 'BARRIER_POST':
                if pending_barrier.pop(t, None) != a1:
                    errors.append(f'{lineno}: thread {t}: BARRIER_POST without PRE')
            elif name == '?':
                errors.append(f'{lineno}: unknown request')
            continue
        m = HIT.search(line)
        if m:
            t, fn = m.group(1), m.group(2)
            if fn == 'thread-end':
                thread_end(t, lineno)
                continue
            hits[fn] += 1
            origs[fn].add(m.group(3))
            # a wrapper's trace line comes after its POP: at depth 0 the
            # thread is outside every wrapper (nested wrappers print first)
            continue

    for t in ending:
        errors.append(f'thread {t}: no teardown bracket after its end')
    for t, d in depth.items():
        if d != 0:
            errors.append(f'thread {t}: ignore depth {d} at the end')
    for t, locks in held.items():
        for l, n in locks.items():
            if n:
                errors.append(f'thread {t}: lock {l:#x} still held ({n}) at the end')
    for t in pending_wait:
        errors.append(f'thread {t}: COND_WAIT_PRE without POST')
    for t in pending_barrier:
        errors.append(f'thread {t}: BARRIER_PRE without POST')
    if len(misuse) != o.expect_misuse:
        errors.append(f'{len(misuse)} misuse releases, expected {o.expect_misuse}')
        errors.extend(misuse)

    required = [f for f in o.require.split(',') if f]
    for f in required:
        if not any(h == f or f in h.split('/') for h in hits):
            errors.append(f'wrapper of {f} never entered')

    for item in [i for i in o.min_requests.split(',') if i]:
        name, n = item.split('=')
        if reqs[name] < int(n):
            errors.append(f'{reqs[name]} {name} requests, expected at least {n}')
    for f in [f for f in o.two_versions.split(',') if f]:
        if len(origs.get(f, ())) < 2:
            errors.append(f'{f}: wrapper ran for {len(origs.get(f, ()))} '
                          'original address(es), expected 2')

    print(f'{sum(hits.values())} wrapped calls in {len(hits)} wrappers, '
          f'{sum(reqs.values())} requests, {len(depth)} threads')
    if o.verbose:
        for fn in sorted(hits):
            print(f'  {hits[fn]:6d}  {fn}  (orig {", ".join(sorted(origs[fn]))})')
        for r in sorted(reqs):
            print(f'  {reqs[r]:6d}  {r}')
    for e in errors:
        print('ERROR:', e)
    print('protocol: ' + ('FAIL' if errors else 'ok'))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
