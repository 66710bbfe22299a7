#!/bin/sh
# Run atomgrind's whole test suite (builds first if needed).
set -e
cd "$(dirname "$0")"
if [ ! -f build/Makefile ]; then
  ./autogen.sh
  mkdir -p build
  (cd build && ../configure --prefix=/usr -q)
fi
make -s -C build -j"$(nproc)"
# modules side by side, one per core (at most 4): the suite takes about
# 12 minutes on 2 cores, 19 one module at a time
jobs=$(nproc)
[ "$jobs" -gt 4 ] && jobs=4
exec python3 tests/run.py -j "$jobs" "$@"
