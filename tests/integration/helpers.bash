# Shared helpers for cvisor's integration tests. Every .bats file starts with
#
#     load helpers
#
# which also defines default setup()/teardown() (cv_setup / cv_teardown); a
# file that needs its own calls them from its own setup()/teardown().
#
# Environment (exported by `make check`; when unset, the defaults find a build
# in ./ or ../ so `bats tests/integration/x.bats` works from a build dir):
#   CVISOR            the cvisor binary under test
#   CVISOR_BUILDDIR   top build directory (test helper programs live there)
#   CVISOR_SRCDIR     top source directory
#   CVISOR_TESTS_DIR  this directory (fixtures)
#
# Set by cv_setup for each test:
#   CV_ROOT     a private, empty --root for this test (not created yet: the
#               first `create` makes it)
#   CV_TMP      a private scratch directory, removed by teardown
#   CV_ID       a unique container id; cv_new_id makes more (all are
#               force-deleted and their cgroups removed in teardown)
#
# Functions:
#   cvisor ARGS...         $CVISOR --root "$CV_ROOT" ARGS... (use with `run`);
#                          for `create` and `run -d` the container's inherited
#                          stdio goes to a file, printed afterwards, so bats'
#                          `run` does not wait for the container to exit
#   busybox_rootfs DIR     DIR becomes a complete rootfs: busybox-static plus
#                          its applet links, /etc/passwd and /etc/group
#   make_bundle [DIR]      DIR (default $CV_TMP/bundle) gets rootfs/ and the
#                          config.json of `cvisor spec`, edited to run
#                          ["true"] without a terminal; sets CV_BUNDLE
#   update_config FILTER [BUNDLE]   edits BUNDLE/config.json with jq FILTER
#                          (jq --arg etc. are not needed: quote inside FILTER)
#   cv_create ID [FLAGS...]  `cvisor create --bundle $CV_BUNDLE FLAGS... ID` with
#                          stdio on files ($CV_TMP/create.out): the container
#                          process inherits stdio, so `run cvisor create` would
#                          wait for it forever. Prints the output on failure.
#   cv_new_id              prints a fresh unique id and records it for teardown
#   cv_track_pid PID       teardown kills PID (and only tracked pids)
#   cv_track_cgroup DIR    teardown removes cgroup directory DIR (rmdir)
#   requires CMD...        skips the test when a command is missing
#   requires_root          skips the test unless running as root
#   cv_teardown            force-deletes every container under CV_ROOT, kills
#                          tracked pids, removes the test ids' leftover
#                          cgroups and tracked cgroups, removes CV_TMP/CV_ROOT

# `run !` (a command that must fail) needs bats 1.5; Debian 12 has 1.8.
bats_require_minimum_version 1.5.0

_cv_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${CVISOR_TESTS_DIR:=$_cv_here}"
: "${CVISOR_SRCDIR:=$(cd "$_cv_here/../.." && pwd)}"
if [ -z "${CVISOR:-}" ]; then
	for _cv_b in "$PWD/src/cvisor" "$PWD/../src/cvisor" "$CVISOR_SRCDIR/src/cvisor"; do
		if [ -x "$_cv_b" ]; then CVISOR="$_cv_b"; break; fi
	done
fi
: "${CVISOR:=cvisor}"
: "${CVISOR_BUILDDIR:=$(cd "$(dirname "$CVISOR")/.." 2>/dev/null && pwd)}"
export CVISOR CVISOR_BUILDDIR CVISOR_SRCDIR CVISOR_TESTS_DIR

CV_BUSYBOX="${CV_BUSYBOX:-/bin/busybox}"

# The command a cvisor argument list runs (skipping global flags and values).
_cv_verb() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--log | -log | --log-format | -log-format | --root | -root | --rootless | -rootless | --criu | -criu)
			shift 2 ;;
		-*) shift ;;
		*) echo "$1"; return ;;
		esac
	done
}

cvisor() {
	local verb a detached=no
	verb="$(_cv_verb "$@")"
	if [ "$verb" = run ]; then
		for a in "$@"; do
			case "$a" in -d | --detach | -detach) detached=yes ;; esac
		done
	fi
	if [ "$verb" = create ] || [ "$detached" = yes ]; then
		# The container process inherits stdio: keep it off bats' `run`
		# pipe (which would then never reach EOF), show the output after.
		local out rc=0
		out="$(mktemp "$CV_TMP/.out.XXXXXX")"
		"$CVISOR" --root "$CV_ROOT" "$@" </dev/null >"$out" 2>&1 || rc=$?
		cat "$out"
		return "$rc"
	fi
	"$CVISOR" --root "$CV_ROOT" "$@"
}

requires() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "requires $c"
	done
}

requires_root() {
	[ "$(id -u)" -eq 0 ] || skip "requires root"
}

cv_new_id() {
	# Counted in a file: callers use $(cv_new_id), a subshell.
	local n id
	n=$(($(wc -l <"$CV_TMP/.ids") + 1))
	id="cvt-$$-${BATS_TEST_NUMBER:-0}-$n"
	echo "$id" >>"$CV_TMP/.ids"
	echo "$id"
}

cv_create() {
	local id="$1"
	shift
	"$CVISOR" --root "$CV_ROOT" create --bundle "$CV_BUNDLE" "$@" "$id" \
		</dev/null >"$CV_TMP/create.out" 2>&1 || { cat "$CV_TMP/create.out"; return 1; }
}

cv_track_pid() {
	echo "$1" >>"$CV_TMP/.pids"
}

cv_track_cgroup() {
	echo "$1" >>"$CV_TMP/.cgroups"
}

cv_setup() {
	CV_TMP="$(mktemp -d "${BATS_TEST_TMPDIR:-/tmp}/cv.XXXXXX")"
	CV_ROOT="$CV_TMP/root"
	: >"$CV_TMP/.ids"
	: >"$CV_TMP/.pids"
	: >"$CV_TMP/.cgroups"
	CV_ID="$(cv_new_id)"
	export CV_TMP CV_ROOT CV_ID
}

# The applet links take one process each when made with ln: build the tree
# once per bats run (perl-base is Essential in Debian) and copy it per test.
_cv_busybox_template() {
	local t="${BATS_RUN_TMPDIR:-${TMPDIR:-/tmp}}/cv-busybox-rootfs"
	if [ ! -x "$t/bin/busybox" ]; then
		local tmp
		tmp="$(mktemp -d "$t.XXXXXX")"
		chmod 755 "$tmp" # mktemp makes it 0700: non-root container users need /
		mkdir -p "$tmp"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,run}
		cp "$CV_BUSYBOX" "$tmp/bin/busybox"
		"$CV_BUSYBOX" --list-full | perl -ne '
			chomp; next if $_ eq "bin/busybox" || $_ eq "";
			my ($d) = m{^(.*)/}; system("mkdir", "-p", "'"$tmp"'/$d") if $d && ! -d "'"$tmp"'/$d";
			symlink("/bin/busybox", "'"$tmp"'/$_") or die "symlink $_: $!\n";'
		echo 'root:x:0:0:root:/root:/bin/sh' >"$tmp/etc/passwd"
		echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>"$tmp/etc/passwd"
		echo 'root:x:0:' >"$tmp/etc/group"
		echo 'nogroup:x:65534:' >>"$tmp/etc/group"
		chmod 1777 "$tmp/tmp"
		# another test of the same run may have won the race: keep theirs
		mv -T "$tmp" "$t" 2>/dev/null || rm -rf "$tmp"
	fi
	echo "$t"
}
busybox_rootfs() {
	local dir="$1" t
	[ -x "$CV_BUSYBOX" ] || skip "requires $CV_BUSYBOX (Debian package busybox-static)"
	t="$(_cv_busybox_template)"
	mkdir -p "$dir"
	cp -a "$t/." "$dir/"
}
update_config() {
	local filter="$1" bundle="${2:-$CV_BUNDLE}" tmp
	tmp="$(mktemp "$bundle/.config.XXXXXX")"
	jq "$filter" "$bundle/config.json" >"$tmp" && mv "$tmp" "$bundle/config.json"
}

make_bundle() {
	local dir="${1:-$CV_TMP/bundle}"
	requires jq
	mkdir -p "$dir"
	busybox_rootfs "$dir/rootfs"
	"$CVISOR" spec --bundle "$dir" || return 1
	CV_BUNDLE="$dir"
	export CV_BUNDLE
	update_config '.process.terminal = false | .process.args = ["true"]' "$dir"
}

# Cgroup directories named after one of this test's ids, below the cgroups
# this shell belongs to (where the runtime nests containers by default).
_cv_id_cgroups() {
	local ctrl path mnt id
	[ -s "$CV_TMP/.ids" ] || return 0
	while IFS=: read -r _ ctrl path; do
		if [ -n "$ctrl" ]; then
			mnt="/sys/fs/cgroup/${ctrl#name=}"
		elif [ -e /sys/fs/cgroup/unified/cgroup.procs ]; then
			mnt=/sys/fs/cgroup/unified # hybrid layout
		else
			mnt=/sys/fs/cgroup
		fi
		[ -d "$mnt$path" ] || continue
		while read -r id; do
			find "$mnt$path" -mindepth 1 -depth -type d -name "*$id*" 2>/dev/null
		done <"$CV_TMP/.ids"
	done </proc/self/cgroup | sort -u
}

cv_teardown() {
	local id pid cg
	[ -n "${CV_TMP:-}" ] || return 0
	if [ -d "$CV_ROOT" ]; then
		for id in $("$CVISOR" --root "$CV_ROOT" list -q 2>/dev/null); do
			"$CVISOR" --root "$CV_ROOT" delete --force "$id" >/dev/null 2>&1 || true
		done
	fi
	while read -r pid; do
		[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
	done <"$CV_TMP/.pids"
	# Deepest first; each rmdir only succeeds once the cgroup is empty.
	{ cat "$CV_TMP/.cgroups"; _cv_id_cgroups; } | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2- |
		while read -r cg; do
			if [ -n "$cg" ] && [ -d "$cg" ]; then rmdir "$cg" 2>/dev/null || true; fi
		done
	if [ -d "$CV_ROOT" ]; then
		local left
		left="$("$CVISOR" --root "$CV_ROOT" list -q 2>/dev/null | tr '\n' ' ')"
		[ -z "$left" ] || echo "# teardown: containers not deleted: $left" >&3 || true
	fi
	rm -rf "$CV_TMP"
}

setup() {
	cv_setup
}

teardown() {
	cv_teardown
}
