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
exec python3 tests/run.py "$@"
