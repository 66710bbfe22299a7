#!/bin/bash
# trace_bench.sh -- offline engine throughput and memory on generated traces.
#
#   perf/trace_bench.sh [--big] [--reps=N] [--threads=K]
#
# Generates traces of 10^6 and 10^7 events (and 10^8 with --big) with
# perf/gen_trace.c, in binary and RAPID STD text, under $TMPDIR (default
# /tmp), and runs atomgrind-trace on each with every engine, plus
# --engine=none (reading alone).  Prints events/second (from CPU time, the
# best of N runs: the machine is shared) and peak RSS per engine and size.
# Peak RSS must not grow with the trace length: the generator uses a fixed
# set of locations.  Uses one core.
#
# Binaries: $AG_BUILD/atomgrind-trace and gen_trace if present, otherwise
# built here with cc -O2 from the sources.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIG=0
REPS=3
THREADS=4
for a in "$@"; do
   case "$a" in
      --big) BIG=1 ;;
      --reps=*) REPS=${a#--reps=} ;;
      --threads=*) THREADS=${a#--threads=} ;;
      -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
      *) echo "trace_bench.sh: unknown argument $a" >&2; exit 2 ;;
   esac
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ag_trace_bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

BUILD=${AG_BUILD:-$ROOT/build}
find_bin() {
   for d in "$BUILD" "$BUILD/trace" "$BUILD/perf"; do
      [ -x "$d/$1" ] && { echo "$d/$1"; return; }
   done
   echo ""
}
TOOL=$(find_bin atomgrind-trace)
if [ -z "$TOOL" ]; then
   TOOL=$WORK/atomgrind-trace
   cc -std=gnu99 -O2 -DNDEBUG -I"$ROOT/atomgrind/engine" -I"$ROOT/trace" \
      "$ROOT"/atomgrind/engine/ag_*.c "$ROOT/trace/ag_replay.c" \
      "$ROOT/trace/atomgrind-trace.c" -o "$TOOL"
fi
GEN=$(find_bin gen_trace)
if [ -z "$GEN" ]; then
   GEN=$WORK/gen_trace
   cc -std=gnu99 -O2 -I"$ROOT/atomgrind/engine" "$ROOT/atomgrind/engine/ag_tracefmt.c" \
      "$ROOT/atomgrind/engine/ag_shim_host.c" "$ROOT/perf/gen_trace.c" -o "$GEN"
fi

ENGINES="none $("$TOOL" --list-engines | awk '{print $1}' | tr '\n' ' ')"
SIZES="1000000 10000000"
[ "$BIG" = 1 ] && SIZES="$SIZES 100000000"

echo "atomgrind-trace offline benchmark: $THREADS worker threads, 64 shared +"
echo "256 private words per thread, 4 locks, transactions of 8 events;"
echo "M events/s from CPU time (best of $REPS), peak RSS in MiB."
echo
printf "%-6s %-10s" format events
for e in $ENGINES; do printf " %22s" "$e"; done
echo

declare -A RSS
for fmt in bin std; do
   for n in $SIZES; do
      trace=$WORK/trace_$n.$fmt
      "$GEN" --format=$fmt --events=$n --threads=$THREADS --seed=1 "$trace"
      printf "%-6s %-10s" "$fmt" "$n"
      for e in $ENGINES; do
         best=0; rss=0
         for ((r = 0; r < REPS; r++)); do
            line=$("$TOOL" --engine=$e --time "$trace" 2>&1 >/dev/null | grep '^time:' || true)
            eps=$(echo "$line" | sed -n 's/.* \([0-9.]*\) M events\/s.*/\1/p')
            mib=$(echo "$line" | sed -n 's/.*peak RSS \([0-9.]*\) MiB.*/\1/p')
            [ -z "$eps" ] && { eps=0; mib=0; }
            best=$(awk -v a="$best" -v b="$eps" 'BEGIN{print (b > a) ? b : a}')
            rss=$mib
         done
         RSS[$fmt,$n,$e]=$rss
         printf " %10s M/s %5s MiB" "$best" "$rss"
      done
      echo
      rm -f "$trace"
   done
done

echo
echo "peak RSS growth from the smallest to the largest trace (binary):"
first=${SIZES%% *}
last=${SIZES##* }
status=0
for e in $ENGINES; do
   a=${RSS[bin,$first,$e]}; b=${RSS[bin,$last,$e]}
   verdict=$(awk -v a="$a" -v b="$b" 'BEGIN{print (b <= a * 1.5 + 4) ? "flat" : "GROWS"}')
   [ "$verdict" = GROWS ] && status=1
   printf "  %-14s %6s -> %6s MiB  %s\n" "$e" "$a" "$b" "$verdict"
done
exit $status
