#!/usr/bin/env bats
# tests/bench/bench.sh still works: each mode, with one round and no
# warm-up, prints its table (a row per runtime, ratios to cvisor) and leaves
# nothing behind. Speed is not checked here: bench.sh is the tool for that.
# Beyond `run`, the modes compare cvisor with crun only, to stay fast.

load helpers

BENCH="$CVISOR_SRCDIR/tests/bench/bench.sh"

setup() {
	requires_root
	requires jq cc
	[ -x "$CV_BUSYBOX" ] || skip "busybox-static not installed"
	[ -x /usr/bin/time ] || skip "GNU time not installed"
	cv_setup
}

teardown() {
	cv_teardown
}

# bench ARGS...: bench.sh of the build's cvisor, no warm-up; a mode that
# cannot run here (exit 77) skips the test with bench.sh's reason.
bench() {
	run --separate-stderr timeout -k 5 120 "$BENCH" --cvisor "$CVISOR" --warmup 0 "$@"
	echo "status: $status"
	echo "stdout: $output"
	echo "stderr: $stderr"
	if [ "$status" -eq 77 ]; then skip "${stderr##*bench: }"; fi
	[ "$status" -eq 0 ]
	bench_out=$output
}

# Nothing of the last bench is left: its work directory, containers (their
# cgroups would remain), cgroups, and crun's litter under the hidden cgroup2
# mount point.
bench_is_clean() {
	local w ids
	w=$(sed -n 's/^bench: work directory \(.*\), container ids and cgroups \(.*\)-\*$/\1/p' <<<"$bench_out")
	ids=$(sed -n 's/^bench: work directory \(.*\), container ids and cgroups \(.*\)-\*$/\2/p' <<<"$bench_out")
	[ -n "$w" ]
	[ -n "$ids" ]
	[ ! -e "$w" ]
	run find /sys/fs/cgroup -mindepth 2 -maxdepth 12 -path "*/$ids-*"
	[ -z "$output" ]
	run find /sys/fs/cgroup -mindepth 2 -maxdepth 12 -name "lean-do-*"
	[ -z "$output" ]
	run unshare -m --propagation private sh -c \
		'! mountpoint -q /sys/fs/cgroup/unified || umount /sys/fs/cgroup/unified; find /sys/fs/cgroup/unified -path "*/$1-*"' \
		sh "$ids"
	[ -z "$output" ]
}

# row NAME: the table has a row NAME median p10 p90 runs user sys rss.
row() {
	grep -Eq "^$1 +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +([0-9]+|-)$" <<<"$bench_out" ||
		{ echo "no row for $1"; false; }
}

ratio() {
	grep -Eq "^ratio $1 +[0-9]+\.[0-9]+ " <<<"$bench_out" || { echo "no ratio $1"; false; }
}

installed() { command -v "$1" >/dev/null; }

@test "bench.sh: bad options are refused with one line" {
	run --separate-stderr "$BENCH" --mode nope
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--mode must be"* ]]
	run --separate-stderr "$BENCH" --rounds 0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--rounds must be a positive integer"* ]]
	run --separate-stderr "$BENCH" --mode exec --phases
	[ "$status" -eq 2 ]
	run --separate-stderr "$BENCH" --seccomp-cache maybe
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--seccomp-cache must be warm or off"* ]]
}

@test "bench.sh --mode run: plain and engine tables, floor, ratios" {
	bench --mode run -n 1 --rss-runs 0
	bench_is_clean
	[[ "$bench_out" == *"config plain:"* ]]
	[[ "$bench_out" == *"config engine:"* ]]
	row plain/cvisor
	row engine/cvisor
	row floor
	ratio floor/cvisor
	local rt
	for rt in crun runc; do
		installed "$rt" || continue
		row "plain/$rt"
		row "engine/$rt"
		ratio "$rt/cvisor"
	done
}

@test "bench.sh --mode concurrent: wall time of a batch per runtime" {
	bench --mode concurrent -n 1 --rss-runs 0 --containers 4 --parallel 2 --runtimes cvisor,crun
	bench_is_clean
	[[ "$bench_out" == *"4 containers 2 at a time"* ]]
	row engine/cvisor
	local rt
	if installed crun; then
		row engine/crun
		ratio crun/cvisor
	fi
}

@test "bench.sh --mode exec: exec into a running container, nsenter floor" {
	installed nsenter || skip "nsenter not installed"
	bench --mode exec -n 1 --rss-runs 0 --runtimes cvisor,crun,floor
	bench_is_clean
	row engine/cvisor
	row floor
	if installed crun; then row engine/crun; fi
}

@test "bench.sh --mode podman: podman run --rm per runtime" {
	installed podman || skip "podman not installed"
	bench --mode podman -n 1
	bench_is_clean
	row cvisor
	if installed crun; then ratio crun/cvisor; fi
}

@test "bench.sh --mode do: cvisor do with and without limits, bwrap and lean-do with its seccomp filter, CPU times" {
	installed bwrap || skip "bubblewrap not installed"
	bench --mode do -n 1 --rss-runs 1
	bench_is_clean
	row cvisor-do
	row cvisor-do-limits
	row bwrap
	row lean
	row lean-limits
	ratio bwrap/cvisor-do
	ratio bwrap/cvisor-do-limits
	ratio lean/cvisor-do
	ratio lean-limits/cvisor-do-limits
}

@test "bench: lean-do --memory --processes runs the program in cgroups of its own with the limits, removed after" {
	cc -O2 -Wall -Wextra -Werror -static -o "$CV_TMP/lean-do" "$CVISOR_SRCDIR/tests/bench/lean-do.c"
	local own
	own=$(sed -n 's/^[0-9]*:memory:\(.*\)$/\1/p' /proc/self/cgroup)
	if [ -n "$own" ]; then
		run "$CV_TMP/lean-do" --memory 64MB --processes 16 sh -c \
			'cat /proc/self/cgroup; cat /sys/fs/cgroup/memory$(sed -n "s/^[0-9]*:memory://p" /proc/self/cgroup)/memory.limit_in_bytes /sys/fs/cgroup/pids$(sed -n "s/^[0-9]*:pids://p" /proc/self/cgroup)/pids.max'
		[ "$status" -eq 0 ]
		[[ "$output" == *":memory:${own%/}/lean-do-"* ]]
		grep -Eq '^[0-9]+:pids:.*/lean-do-[0-9]+$' <<<"$output"
		[[ "$output" == *$'\n67108864\n16'* ]]
	else
		run "$CV_TMP/lean-do" --memory 64MB --processes 16 sh -c \
			'cat /sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)/memory.max /sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)/pids.max'
		[ "$status" -eq 0 ]
		[ "$output" = $'67108864\n16' ]
	fi
	run find /sys/fs/cgroup -mindepth 2 -maxdepth 12 -name "lean-do-*"
	[ -z "$output" ]
	# a size it cannot read: refused before anything is made
	run "$CV_TMP/lean-do" --memory 1.5g true
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a size: 1.5g"* ]]
	# a limit the kernel refuses: the cgroup made is removed again
	run -127 "$CV_TMP/lean-do" --processes nonsense true
	[ "$status" -eq 127 ]
	[[ "$output" == *"pids.max"* ]]
	run find /sys/fs/cgroup -mindepth 2 -maxdepth 12 -name "lean-do-*"
	[ -z "$output" ]
}

@test "bench: seccomp-dump takes the filter cvisor do loaded; bwrap and lean-do with it refuse what cvisor do refuses" {
	installed bwrap || skip "bubblewrap not installed"
	cc -O2 -Wall -Wextra -Werror -o "$CV_TMP/seccomp-dump" "$CVISOR_SRCDIR/tests/bench/seccomp-dump.c"
	cc -O2 -Wall -Wextra -Werror -static -o "$CV_TMP/lean-do" "$CVISOR_SRCDIR/tests/bench/lean-do.c"
	"$CVISOR" --root "$CV_ROOT" do -- sleep 60 </dev/null >/dev/null 2>&1 &
	local pid=$! init='' prog='' i
	cv_track_pid "$pid"
	for ((i = 0; i < 100; i++)); do
		init=$(pgrep -P "$pid" -x cvisor-init || true)
		[ -z "$init" ] || prog=$(pgrep -P "$init" -x sleep || true)
		[ -z "$prog" ] || break
		sleep 0.1
	done
	[ -n "$prog" ]
	run "$CV_TMP/seccomp-dump" "$prog" "$CV_TMP/filter.bpf"
	kill "$pid"
	wait "$pid" || true
	[ "$status" -eq 0 ]
	# instructions: the count printed, 8 bytes each
	[ "$output" -gt 10 ]
	[ "$(stat -c %s "$CV_TMP/filter.bpf")" -eq $((output * 8)) ]
	run "$CVISOR" --root "$CV_ROOT" do -- unshare -U true
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	run bwrap --unshare-user --unshare-pid --ro-bind / / --proc /proc --dev /dev --seccomp 9 \
		unshare -U true 9<"$CV_TMP/filter.bpf"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	run "$CV_TMP/lean-do" unshare -U true 9<"$CV_TMP/filter.bpf"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	# without the filter both run it
	run bwrap --unshare-user --unshare-pid --ro-bind / / --proc /proc --dev /dev unshare -U true
	[ "$status" -eq 0 ]
	run "$CV_TMP/lean-do" unshare -U true
	[ "$status" -eq 0 ]
	# the sandboxed sleep ended with cvisor do
	run kill -0 "$prog"
	[ "$status" -ne 0 ]
}

@test "bench.sh --mode library: sandbox-bench's table" {
	installed bwrap || skip "bubblewrap not installed"
	bench --mode library -n 1
	[[ "$bench_out" == *"cvisor_run "* ]]
	[[ "$bench_out" == *"cvisor_run - cvisor-do"* ]]
}

@test "bench.sh --phases: landmarks of cvisor run and cvisor do" {
	installed strace || skip "strace not installed"
	bench --phases --mode run -n 1 --config engine --runtimes cvisor
	bench_is_clean
	local l
	for l in cgroup namespaces pivot_root seccomp exec exited end; do
		grep -Eq "^  $l +[0-9]+\.[0-9]+ +-?[0-9]+\.[0-9]+ +1$" <<<"$bench_out" || { echo "no landmark $l"; false; }
	done
	bench --phases --mode do -n 1 --runtimes cvisor-do
	bench_is_clean
	for l in namespaces exec exited end; do
		grep -Eq "^  $l +[0-9]+\.[0-9]+ +-?[0-9]+\.[0-9]+ +1$" <<<"$bench_out" || { echo "no landmark $l"; false; }
	done
}
