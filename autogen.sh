#!/bin/sh
# Generate ./configure from configure.ac (needs autoconf and automake).
set -e
cd "$(dirname "$0")"
autoreconf --install --force
