#!/bin/bash
# Builds cvisor out of tree and runs its whole test suite, on a fresh Debian 12
# as root (the developer machine and CI alike). Installs missing packages,
# runs `make check` (and `make fuzz-run` when clang and the target exist),
# and ends with one line: `N passed, M failed, K skipped`. Exit status is
# non-zero when anything failed. `make check` includes
# tests/lint/bats-assertions.sh, which fails on a bats assertion that cannot
# fail (a `! cmd` statement, a `[ ... ] && [ ... ]` chain) anywhere in tests/.
#
#   contrib/check.sh                 build in ./build-check (or $BUILD_DIR)
#   BUILD_DIR=/tmp/b contrib/check.sh
#   CONFIGURE_FLAGS=--enable-sanitizers contrib/check.sh
#   FUZZ_SECONDS=60 (default), FUZZ_SECONDS=0 skips fuzzing
#   CHECK_TESTS="tests/integration/cli.bats" runs only those tests
set -euo pipefail

# Everything the build and the tests need. Helpers: add your packages here.
PACKAGES=(
	# build
	build-essential autoconf automake libtool pkg-config
	libyajl-dev libseccomp-dev libcap-dev libmount-dev libarchive-dev
	# the s3 cache backend (libcurl's SigV4); nodejs: its test server, s3rver,
	# which tests/integration/archive.bats installs with npm into the build tree
	libcurl4-openssl-dev nodejs
	# tests (libsystemd-dev: the fake systemd of the D-Bus test; python3:
	# libcvisor loaded through ctypes, tests/embed/test_embed.py)
	bats busybox-static jq procps util-linux dbus libsystemd-dev strace python3
	# the ignore rules compared with git itself (tests/integration/ignore.bats)
	git
	# the Python SDK (contrib/python): its tests, pip install into a venv
	python3-pytest python3-venv python3-pip
	# the remote service cvisor-server (contrib/python/cvisor/server); its
	# tests make a self-signed certificate and read contrib/kubernetes
	python3-aiohttp python3-graphql-core openssl python3-yaml
	# fuzzing; the layout of the C sources (tests/lint/format.sh)
	clang clang-format
	# reference runtimes and engines
	runc crun podman containerd golang-github-containers-common slirp4netns bubblewrap
	# Kubernetes' CRI path (tests/integration/cri.bats): the client, pod networks
	python3-grpcio python3-grpc-tools containernetworking-plugins iproute2
	# rootless: newuidmap and newgidmap
	uidmap
	# the cgroup v2 guest
	qemu-system-x86 linux-image-amd64 cpio kmod
	# benchmark (tests/bench/bench.sh: GNU time for peak RSS)
	time hyperfine
)

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$SRC/build-check}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
JOBS="$(nproc 2>/dev/null || echo 2)"

say() { printf '== %s\n' "$*"; }

install_missing() {
	local missing=() p
	command -v dpkg-query >/dev/null 2>&1 || { say "not Debian: install by hand: ${PACKAGES[*]}"; return 0; }
	for p in "${PACKAGES[@]}"; do
		[[ "$p" == \#* ]] && continue
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		say "missing packages (run as root to install): ${missing[*]}"
		return 0
	fi
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
}

install_missing

# A failed build is one failure in the summary, so the last line always
# tells the outcome.
build_failed() {
	say "$1 failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

say "configure (out of tree: $BUILD_DIR)"
(cd "$SRC" && ./autogen.sh >/dev/null 2>&1) || (cd "$SRC" && ./autogen.sh) || build_failed autogen
mkdir -p "$BUILD_DIR"
cd "$BUILD_DIR"
# shellcheck disable=SC2086 # CONFIGURE_FLAGS is a list of words
"$SRC/configure" -q ${CONFIGURE_FLAGS:-} || build_failed configure

say "build"
make -j"$JOBS" >/dev/null || build_failed build

say "make check"
check_status=0
rm -f test-suite.log
if [ -n "${CHECK_TESTS:-}" ]; then
	make -j"$JOBS" check TESTS="$CHECK_TESTS" || check_status=$?
else
	make -j"$JOBS" check || check_status=$?
fi

fuzz_status=0
fuzz_ran=no
if [ "$FUZZ_SECONDS" != 0 ] && command -v clang >/dev/null 2>&1 &&
	make -n fuzz-run >/dev/null 2>&1; then
	say "make fuzz-run FUZZ_SECONDS=$FUZZ_SECONDS"
	fuzz_ran=yes
	make fuzz-run FUZZ_SECONDS="$FUZZ_SECONDS" || fuzz_status=$?
fi

# Sum the automake test-suite summary at the top of test-suite.log
# ("# PASS:  N" ...). Each TAP test point counts as one test.
count() {
	local v
	v="$(sed -n "s/^# $1: *\([0-9][0-9]*\)$/\1/p" test-suite.log 2>/dev/null | head -1)"
	echo "${v:-0}"
}
pass=0 fail=0 skip=0
if [ -f test-suite.log ]; then
	pass=$(($(count PASS) + $(count XFAIL)))
	fail=$(($(count FAIL) + $(count XPASS) + $(count ERROR)))
	skip=$(count SKIP)
fi
if [ "$fuzz_ran" = yes ]; then
	if [ "$fuzz_status" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
fi
# make check failing without any failed test point (a build error, a crash
# of the harness) still counts as a failure.
if [ "$check_status" -ne 0 ] && [ "$fail" -eq 0 ]; then
	fail=1
fi

# A CI log shows only part of the output: repeat what failed, with bats'
# failure lines and the failing command's output, just before the count.
if [ "$fail" -ne 0 ] && [ -f test-suite.log ]; then
	say "what failed (from test-suite.log)"
	grep -E '^(FAIL|ERROR|XPASS|not ok|#)' test-suite.log | grep -v '^# [A-Z]*: *[0-9]' | head -200
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
