# Helpers for the tests of `cvisor do` (sandbox.bats, sandbox-attacks.bats).
# Load after helpers: `load helpers; load sandbox-helpers`. sb_setup and
# sb_teardown are what setup() and teardown() call.

sb_setup() {
	cv_setup
	SB_BUNDLES="$CV_ROOT-sandbox"
	mkdir -p "$CV_TMP/home"
	# network "outbound": the hook of the build tree, not an installed one
	export CVISOR_SLIRP_HOOK="${CVISOR_SLIRP_HOOK:-$CVISOR_BUILDDIR/hooks/cvisor-slirp}"
}

sb_teardown() {
	nobody_teardown
	cvisor gc >/dev/null 2>&1 || true
	cv_teardown
	rm -rf "$SB_BUNDLES" "${SB_HOME:-}"
}

# network "outbound" needs slirp4netns, the hook and the tun driver
requires_outbound() {
	requires slirp4netns python3
	[ -x "$CVISOR_SLIRP_HOOK" ] || skip "hook $CVISOR_SLIRP_HOOK not built"
	[ -c /dev/net/tun ] || skip "no /dev/net/tun (the tun driver) for slirp4netns"
}

# No container, bundle or process of a run may remain.
assert_clean() {
	run cvisor list -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# only the liveness lock file stays: a run makes no file of its own
	[ -z "$(ls -A "$SB_BUNDLES" 2>/dev/null | grep -vx "\.live")" ]
}

# Running `cvisor do` as an unprivileged caller:
#
#   requires_unprivileged_userns   skips unless nobody may make a user
#                                  namespace; makes $NR (owned by nobody) with
#                                  home/ and ws/, removed by nobody_teardown
#   as_nobody ARGS...              $CVISOR --root $NR/root ARGS... as
#                                  nobody/nogroup, with an empty environment
#                                  but PATH, HOME (${NR_HOME:-$NR/home}) and
#                                  the variables named in NR_ENV (an array of
#                                  NAME=value)
#   nobody_teardown                runs gc as nobody, removes every $NR

# nobody's runs get a user namespace and no delegated cgroup.
requires_unprivileged_userns() {
	requires setpriv
	if [ -r /proc/sys/kernel/unprivileged_userns_clone ] &&
		[ "$(cat /proc/sys/kernel/unprivileged_userns_clone)" = 0 ]; then
		skip "kernel.unprivileged_userns_clone is 0: unprivileged user namespaces are disabled"
	fi
	[ "$(cat /proc/sys/user/max_user_namespaces)" -gt 0 ] ||
		skip "user.max_user_namespaces is 0: no user namespaces"
	# the kernel also refuses one from a chroot (the cgroup v2 test guest)
	setpriv --reuid=nobody --regid=nogroup --clear-groups unshare -U true 2>/dev/null ||
		skip "this environment refuses a user namespace to an unprivileged user (unshare -U)"
	NR="$(mktemp -d /tmp/cvisor-sb-nobody.XXXXXX)"
	echo "$NR" >>"$CV_TMP/.nobody-dirs"
	chmod 755 "$NR"
	chown nobody:nogroup "$NR"
	mkdir "$NR/home" "$NR/ws"
	chown nobody:nogroup "$NR/home" "$NR/ws"
	# the binary and hook must be reachable by nobody
	setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$CVISOR" ||
		skip "$CVISOR is not executable by nobody"
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH="$PATH" HOME="${NR_HOME:-$NR/home}" CVISOR_SLIRP_HOOK="$CVISOR_SLIRP_HOOK" "${NR_ENV[@]}" \
		"$CVISOR" --root "$NR/root" "$@"
}

nobody_teardown() {
	local d
	[ -f "$CV_TMP/.nobody-dirs" ] || return 0
	while read -r d; do
		[ -n "$d" ] || continue
		setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$d/home" \
			"$CVISOR" --root "$d/root" gc >/dev/null 2>&1 || true
		rm -rf "$d"
	done <"$CV_TMP/.nobody-dirs"
}

# wait_ended PID [SECONDS]: waits for a background job of this shell, at
# most SECONDS (30); then its status is in $rc. A run that does not end
# (a signal lost, an init that never exits) fails the test instead of
# hanging it; teardown kills it.
wait_ended() {
	local i
	for i in $(seq "$((${2:-30} * 10))"); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "pid $1 still runs after ${2:-30} s" >&2
		return 1
	fi
	rc=0
	wait "$1" || rc=$?
}

# init_of PATTERN: waits up to 10 s for the process whose command line is
# PATTERN (pgrep -f, anchored), and prints its parent, which must be a
# sandbox's init (cvisor-init).
init_of() {
	local s="" i init
	for i in $(seq 100); do s="$(pgrep -f "^$1\$")" && break; sleep 0.1; done
	[ -n "$s" ] || return 1
	init="$(ps -o ppid= -p "$s" | tr -d ' ')"
	[ "$(cat "/proc/$init/comm")" = cvisor-init ] || return 1
	echo "$init"
}

# requires_image_init: skips unless the cvisor binary carries a sandbox's
# init as a program of its own (process/init-image.c: x86-64 builds), which
# a run with a memory limit needs to share cvisor do's memory.
requires_image_init() {
	grep -q '^#define CV_INIT_IMAGE 1' "$CVISOR_BUILDDIR/config.h" ||
		skip "the cvisor binary carries no init of its own (x86-64 builds do)"
}

# memory_on_v1: whether the memory controller is in a v1 hierarchy here
# (hybrid or legacy layout). A run's init that shares cvisor do's memory
# then leaves the memory cgroup before the program starts, instead of
# becoming a program of its own (cgroups.h: cv_cgroup_memory_apart).
memory_on_v1() {
	grep -Eq '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup
}

# requires_memory_image: skips unless a run with a memory limit makes its
# init a program of its own (cgroup v2: the memory controller is in the
# one hierarchy, where the init stays).
requires_memory_image() {
	requires_image_init
	if memory_on_v1; then
		skip "the memory controller is on a v1 hierarchy: the init leaves the memory cgroup instead"
	fi
}

# same_memory PID1 PID2: prints kcmp(KCMP_VM) of the two, 0 only for one
# address space (a fork's copy is not).
same_memory() {
	python3 -c '
import ctypes, os, sys
nr = {"x86_64": 312, "aarch64": 272}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)
print(libc.syscall(nr, int(sys.argv[1]), int(sys.argv[2]), 1, 0, 0))' "$1" "$2"
}

# run_cgroups PID: the cgroup directories of the run whose supervisor is
# process PID (do-PID-*), one a line.
run_cgroups() {
	find /sys/fs/cgroup -maxdepth 6 -type d -name "do-$1-*"
}

# wait_run_cgroups_gone PID: waits up to 5 s for run_cgroups PID to be
# empty, and fails when it is not (showing what is left).
wait_run_cgroups_gone() {
	local i left
	for i in $(seq 50); do
		left="$(run_cgroups "$1")"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "left: $left" >&2
	return 1
}
