#!/bin/sh
# engine_bench.sh -- build perf/engine_bench from the engine sources and run
# it: events/second and peak memory of every atomicity engine on the same
# generated traces (>= 10^7 events; 4, 16 and 64 threads).
#
#   perf/engine_bench.sh [engine_bench options]   e.g. -n 20000000 -t 4,16 -e atomsanitizer,aerodrome
#
# Set CC / CFLAGS to override the compiler.  Uses one core.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${AG_BUILD:-$root/build}/engine_bench
mkdir -p "$(dirname "$out")"
${CC:-cc} -std=gnu99 ${CFLAGS:--O2 -g -DNDEBUG} -I "$root/atomgrind/engine" \
   "$root"/atomgrind/engine/*.c "$here/engine_bench.c" -o "$out"
echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
exec "$out" "$@"
