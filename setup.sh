#!/bin/sh
# Set up atomgrind on Debian/Ubuntu: install the build dependencies, build,
# install (so that plain `valgrind --tool=atomgrind` works), and run it on
# the bundled example, which has a real atomicity violation.
# Run as root, or with sudo available.
set -e
cd "$(dirname "$0")"
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# libdw-dev: atomgrind-inlines reads the names Valgrind cannot (-flto)
# chromium: the test suite opens atomgrind-trace's HTML pictures in a headless browser
# clang: the test suite checks Clang-built programs too
$SUDO apt-get install -y -qq gcc g++ make autoconf automake pkg-config valgrind libdw-dev python3 \
    chromium clang >/dev/null
./autogen.sh
mkdir -p build
(cd build && ../configure --prefix=/usr -q && make -s -j"$(nproc)")
$SUDO make -s -C build install
gcc -g -O0 -pthread examples/bank.c -o build/bank
echo
echo '$ valgrind --tool=atomgrind ./build/bank'
valgrind --tool=atomgrind ./build/bank
