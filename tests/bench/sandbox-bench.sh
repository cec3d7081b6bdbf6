#!/bin/bash
# libcvisor's sandbox calls against `cvisor do` and bubblewrap (see
# sandbox-bench.c). Run as root from a build directory:
#   ../tests/bench/sandbox-bench.sh [ROUNDS]   (default 40)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${1:-40}
case $ROUNDS in ''|*[!0-9]*|0) echo "sandbox-bench: ROUNDS must be a positive integer" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "sandbox-bench: must run as root" >&2; exit 1; }
[ -x ./src/cvisor ] && [ -e ./.libs/libcvisor.so ] || { echo "sandbox-bench: run it from a build directory" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "sandbox-bench: bwrap not found (apt-get install bubblewrap)" >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cc -O2 -Wall -Wextra -Werror -I"$HERE/../../src/include" -o "$W/sandbox-bench" "$HERE/sandbox-bench.c" \
    -L"$PWD/.libs" -lcvisor -Wl,-rpath,"$PWD/.libs"
echo "sandbox-bench: $(uname -r), $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
CVISOR_HELPER=$PWD/src/cvisor "$W/sandbox-bench" "$ROUNDS" "$PWD/src/cvisor"
echo "sandbox-bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
