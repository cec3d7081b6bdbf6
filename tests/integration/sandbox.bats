#!/usr/bin/env bats
# cvisor do / spec --policy: each property checked from inside the sandbox
# (what the program sees) and from outside (what is left on the host).

load helpers
load sandbox-helpers

setup() {
	sb_setup
}

# pids of running slirp4netns processes started by cvisor's hook (their
# parent is the hook's monitor), sorted: other test files running alongside
# (podman) start slirp4netns processes of their own
slirp_pids() {
	local p pp
	for p in $(pgrep -x slirp4netns); do
		pp=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || continue
		[ "$(cat "/proc/$pp/comm" 2>/dev/null)" = cvisor-slirp ] && echo "$p"
	done | sort
}

# A TCP server on the host's loopback, port in $HOST_PORT. Up to 60 s: python
# starts slowly in the emulated cgroup v2 guest.
start_host_server() {
	HOST_PORT=$((20000 + RANDOM % 20000))
	python3 -m http.server --bind 127.0.0.1 "$HOST_PORT" >"$CV_TMP/http.log" 2>&1 &
	cv_track_pid $!
	for _ in $(seq 600); do (exec 3<>"/dev/tcp/127.0.0.1/$HOST_PORT") 2>/dev/null && return 0; sleep 0.1; done
	return 1
}

teardown() {
	# a host mount made by a test (see the submount test)
	if [ -n "${SB_SUBMOUNT:-}" ]; then
		mountpoint -q "$SB_SUBMOUNT" && umount "$SB_SUBMOUNT"
		rmdir "$SB_SUBMOUNT"
	fi
	# a sysctl changed by a test
	if [ -n "${SB_SUID_DUMPABLE:-}" ]; then
		echo "$SB_SUID_DUMPABLE" >/proc/sys/fs/suid_dumpable
	fi
	sb_teardown
}

@test "sandbox: the host root is read-only (EROFS inside, nothing written outside)" {
	requires_root
	run cvisor do -- sh -c 'touch /usr/cvisor-sb-test 2>&1; echo rc=$?'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *"rc=1"* ]]
	[ ! -e /usr/cvisor-sb-test ]
	assert_clean
}

@test "sandbox: a host mount below the root is read-only, nosuid and nodev too (one recursive clone)" {
	requires_root
	# outside /tmp, which the sandbox replaces
	SB_SUBMOUNT="$(mktemp -d /var/tmp/cvisor-sb-sub.XXXXXX)"
	mount -t tmpfs -o size=1m tmpfs "$SB_SUBMOUNT"
	mknod "$SB_SUBMOUNT/null" c 1 3
	run cvisor do -- sh -c "touch $SB_SUBMOUNT/x 2>&1; echo >$SB_SUBMOUNT/null 2>&1 || echo nodev-denied;
		grep \" $SB_SUBMOUNT \" /proc/self/mountinfo | cut -d' ' -f6"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"Read-only file system"* ]]
	[ "${lines[2]}" = nodev-denied ]
	[[ ",${lines[3]}," == *",ro,"* ]]
	[[ ",${lines[3]}," == *",nosuid,"* ]]
	[[ ",${lines[3]}," == *",nodev,"* ]]
	# outside, the mount is as it was: writable, the device usable
	touch "$SB_SUBMOUNT/y"
	echo >"$SB_SUBMOUNT/null"
	assert_clean
}

@test "sandbox: the exit status is the program's, 128+n on a signal" {
	requires_root
	run cvisor do -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
	# the program is its pid namespace's init: only SIGKILL from outside
	# kills it (see the memory and timeout tests for 137)
	assert_clean
}

@test "sandbox: a program done before the runtime read its start time is no error" {
	# strace slows each open of the supervisor (not of its child: no -f) by
	# 0.1 s: the sandbox has run `true` to its end before the runtime reads
	# its /proc/PID/stat, as on a busy machine
	requires strace
	requires_root
	# (a sanitizer build's LeakSanitizer cannot work under ptrace)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		run strace -o /dev/null -e trace=openat -e inject=openat:delay_enter=100000 \
		"$CVISOR" --root "$CV_ROOT" do -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	assert_clean
}

@test "sandbox: a piped stdout or stderr gets its relay thread with its first byte: none for a silent program, all bytes delivered" {
	requires strace
	requires_root
	# regular files: the program gets pipes, relayed by the supervisor
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -o "$CV_TMP/st" -e trace=clone,clone3 \
		"$CVISOR" --root "$CV_ROOT" do -- true >"$CV_TMP/out" 2>"$CV_TMP/err"
	run grep -c CLONE_THREAD "$CV_TMP/st"
	[ "$output" = 0 ]
	[ ! -s "$CV_TMP/out" ]
	[ ! -s "$CV_TMP/err" ]
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -o "$CV_TMP/st" -e trace=clone,clone3 \
		"$CVISOR" --root "$CV_ROOT" do -- sh -c 'echo out; echo err >&2; head -c 200000 /dev/zero | tr "\0" x' \
		>"$CV_TMP/out" 2>"$CV_TMP/err"
	run grep -c CLONE_THREAD "$CV_TMP/st"
	[ "$output" = 2 ]
	[ "$(head -n 1 "$CV_TMP/out")" = out ]
	[ "$(wc -c <"$CV_TMP/out")" -eq 200004 ]
	[ "$(cat "$CV_TMP/err")" = err ]
	assert_clean
}

@test "sandbox: a given workspace is writable, the cwd, and kept" {
	requires_root
	mkdir "$CV_TMP/ws"
	run cvisor do --workspace "$CV_TMP/ws" -- sh -c 'pwd; echo data > f'
	[ "$status" -eq 0 ]
	[ "$output" = "$CV_TMP/ws" ]
	[ "$(cat "$CV_TMP/ws/f")" = data ]
	assert_clean
}

@test "sandbox: the private workspace is writable and gone afterwards" {
	requires_root
	run cvisor do -- sh -c 'pwd; echo data > f && cat f; ls /tmp'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = /tmp/workspace ]
	[ "${lines[1]}" = data ]
	[ "${lines[2]}" = workspace ] # /tmp is private: only the workspace in it
	assert_clean
}

@test "sandbox: deny_read and the default credential list are unreadable" {
	requires_root
	# the host's /tmp is hidden by the private one: data in a workspace,
	# the home (which no writable directory may hold) outside /tmp
	local d="$CV_TMP/data"
	SB_HOME="$(mktemp -d /var/tmp/cvisor-sb-home.XXXXXX)"
	mkdir -p "$d" "$SB_HOME/.ssh"
	echo KEYDATA > "$SB_HOME/.ssh/id_ed25519"
	echo HIDDEN > "$d/f1"
	echo VISIBLE > "$d/f2"
	HOME="$SB_HOME" run cvisor do --workspace "$d" --deny-read "$d/f1" -- \
		sh -c "cat $SB_HOME/.ssh/id_ed25519; cat f1; cat f2; cat /etc/shadow | wc -c"
	[ "$status" -eq 0 ]
	[[ "$output" != *KEYDATA* ]]
	[[ "$output" != *HIDDEN* ]]
	[[ "$output" == *VISIBLE* ]]
	[ "${lines[-1]}" = 0 ]
	# outside: untouched
	[ "$(cat "$SB_HOME/.ssh/id_ed25519")" = KEYDATA ]
	assert_clean
}

@test "sandbox: deny_write stays read-only inside a writable directory" {
	requires_root
	mkdir -p "$CV_TMP/ws/.git"
	run cvisor do --workspace "$CV_TMP/ws" --deny-write "$CV_TMP/ws/.git" -- \
		sh -c 'touch ok; touch .git/hook 2>&1; echo rc=$?'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[ -e "$CV_TMP/ws/ok" ]
	[ ! -e "$CV_TMP/ws/.git/hook" ]
}

@test "sandbox: only allowlisted variables reach the program" {
	requires_root
	SECRET_TOKEN=hunter2 LC_ALL=C run cvisor do -- env
	[ "$status" -eq 0 ]
	[[ "$output" != *hunter2* ]]
	[[ "$output" == *LC_ALL=C* ]]
	[[ "$output" == *PATH=* ]]
	SECRET_TOKEN=hunter2 run cvisor do --env SECRET_TOKEN --env MODE=test -- env
	[ "$status" -eq 0 ]
	[[ "$output" == *SECRET_TOKEN=hunter2* ]]
	[[ "$output" == *MODE=test* ]]
}

@test "sandbox: network none has only loopback and cannot reach the host" {
	requires_root
	run cvisor do -- sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "'
	[ "$status" -eq 0 ]
	[ "$output" = lo ]
	# a server listening on the host's loopback is out of reach
	start_host_server
	run cvisor do -- bash -c "exec 3<>/dev/tcp/127.0.0.1/$HOST_PORT && echo connected || echo refused"
	[ "$status" -eq 0 ]
	[[ "$output" == *refused* ]]
	[[ "$output" != *connected* ]]
}

@test "sandbox: network outbound: tap0 through slirp4netns, host loopback only when allowed, slirp4netns gone after" {
	requires_root
	requires_outbound
	local before
	before="$(slirp_pids)"
	start_host_server
	# inside: tap0 with slirp4netns's address, default route to its gateway
	run cvisor do --network outbound -- sh -c 'ip -4 -o addr show tap0; ip route show default'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"tap0"*"inet 10.0.2.100/24"* ]]
	[[ "${lines[1]}" == "default via 10.0.2.2 dev tap0"* ]]
	# the host's loopback is refused by default...
	run cvisor do --network outbound -- \
		bash -c "exec 3<>/dev/tcp/10.0.2.2/$HOST_PORT && echo connected || echo refused"
	[ "$status" -eq 0 ]
	[[ "$output" == *refused* ]]
	[[ "$output" != *connected* ]]
	# ...and reachable through the gateway when the policy allows it: a
	# real HTTP exchange with the test's server
	echo '{"network": "outbound", "allow_host_loopback": true}' >"$CV_TMP/policy.json"
	run cvisor do --policy "$CV_TMP/policy.json" -- \
		bash -c "exec 3<>/dev/tcp/10.0.2.2/$HOST_PORT || exit 1; printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3; head -n 1 <&3"
	[ "$status" -eq 0 ]
	[[ "$output" == "HTTP/1.0 200 OK"* ]]
	# outside: the server saw a client from the host side of slirp4netns
	grep -q '"GET / HTTP/1.0" 200' "$CV_TMP/http.log"
	run cvisor do --network outbound --allow-host-loopback -- \
		bash -c "exec 3<>/dev/tcp/10.0.2.2/$HOST_PORT && echo connected"
	[ "$output" = connected ]
	# no slirp4netns of these runs is left (cvisor do waits for it)
	[ "$(slirp_pids)" = "$before" ]
	assert_clean
}

@test "sandbox: network outbound: a server inside is not reachable from the host" {
	requires_root
	requires_outbound
	local port=$((20000 + RANDOM % 20000)) before
	before="$(slirp_pids)"
	mkdir "$CV_TMP/ws"
	cvisor do --network outbound --workspace "$CV_TMP/ws" -- bash -c "
		python3 -m http.server --bind 0.0.0.0 $port >/dev/null 2>&1 &
		for i in \$(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
		(exec 3<>/dev/tcp/127.0.0.1/$port) && echo listening > ready
		(exec 3<>/dev/tcp/10.0.2.100/$port) && echo on-tap0 >> ready
		for i in \$(seq 300); do [ -e stop ] && break; sleep 0.1; done" 3>&- &
	cv_track_pid $!
	local do_pid=$!
	for _ in $(seq 100); do [ -s "$CV_TMP/ws/ready" ] && grep -q on-tap0 "$CV_TMP/ws/ready" && break; sleep 0.1; done
	# inside: the server answers on loopback and on tap0's address
	[ "$(cat "$CV_TMP/ws/ready")" = "$(printf 'listening\non-tap0')" ]
	# outside: slirp4netns runs, no host socket listens on that port, and
	# connecting to it on the host's loopback fails (nothing is forwarded)
	[ "$(slirp_pids)" != "$before" ]
	run ss -Htln "sport = :$port"
	[ -z "$output" ]
	run bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && echo connected || echo refused"
	[[ "$output" == *refused* ]]
	touch "$CV_TMP/ws/stop"
	wait $do_pid
	[ "$(slirp_pids)" = "$before" ]
	assert_clean
}

@test "sandbox: a non-root caller runs through a user namespace (inside: its ids, read-only root; outside: its files, nothing left)" {
	requires_root
	requires_unprivileged_userns
	run as_nobody do --workspace "$NR/ws" -- \
		sh -c 'echo "ids=$(id -u):$(id -g)"; touch /usr/x 2>&1; echo made > f; echo "maps=$(grep -c . /proc/self/uid_map)"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"ids=65534:65534"* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *"maps=1"* ]] # only the caller's uid is mapped
	# outside: the file belongs to nobody, the host is untouched
	[ "$(stat -c %U "$NR/ws/f")" = nobody ]
	[ ! -e /usr/x ]
	# nothing left: no container, no bundle, no process
	[ -z "$(ls -A "$NR/root" 2>/dev/null)" ]
	[ -z "$(ls -A "$NR/root-sandbox" 2>/dev/null | grep -vx "\.live")" ]
	run ! pgrep -u nobody -f "$NR"
	nobody_teardown
}

@test "sandbox: a non-root caller without a delegated cgroup is told which limits are not enforced" {
	requires_root
	requires_unprivileged_userns
	run as_nobody do --check
	[ "$status" -eq 0 ]
	[[ "$output" == *"memory            not enforced: no delegated cgroup ("* ]]
	[[ "$output" == *"processes         not enforced: no delegated cgroup ("* ]]
	[[ "$output" == *"cpu_seconds       rlimit RLIMIT_CPU"* ]]
	run as_nobody do --memory 64MB --processes 16 --cpu-seconds 5 --report "$NR/ws/r.json" -- sh -c 'ulimit -t'
	[ "$status" -eq 0 ]
	[[ "$output" == *"sandbox: memory, processes not enforced: no delegated cgroup ("* ]]
	[ "${lines[-1]}" = 5 ] # the rlimit still applies
	[ "$(jq -c .not_enforced "$NR/ws/r.json")" = '["memory","processes"]' ]
	# as root every limit is enforced here
	run cvisor do --memory 64MB --report "$CV_TMP/r.json" -- true
	[ "$status" -eq 0 ]
	[ "$(jq -c .not_enforced "$CV_TMP/r.json")" = '[]' ]
	nobody_teardown
}

@test "sandbox: network outbound works for a non-root caller, slirp4netns gone after" {
	requires_root
	requires_outbound
	requires_unprivileged_userns
	local before
	before="$(slirp_pids)"
	run as_nobody do --network outbound -- sh -c 'ip -4 -o addr show tap0'
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *"inet 10.0.2.100/24"* ]]
	[ "$(slirp_pids)" = "$before" ]
	nobody_teardown
}

# The storage figures are read through the init's root, which goes with the
# program: a program that ends at once on a busy machine ended before the
# supervisor looked (tmp null in 51 of 60 runs beside three busy loops).
@test "sandbox: the report's storage figures hold for a program that ends at once, on a busy machine" {
	requires_root
	mkdir "$CV_TMP/ws"
	local i
	for i in 1 2 3; do
		(while :; do :; done) &
		cv_track_pid $!
	done
	for i in $(seq 10); do
		run cvisor do --workspace "$CV_TMP/ws" --report "$CV_TMP/r.json" -- true
		[ "$status" -eq 0 ]
		[ "$(jq -c .storage_bytes "$CV_TMP/r.json")" = '{"tmp":0,"workspace":null}' ]
	done
	assert_clean
}

# Its init (still in its exit once the status is written) and its watcher
# are cvisor do's children: a PID 1 that reaps late or never would keep
# what it is handed, and with the init its session keyring, charged to the
# caller's key quota. `orphans` runs cvisor do as a child subreaper's child
# and names every process it inherits.
@test "sandbox: cvisor do returns with its init and its watcher reaped, with and without limits" {
	requires_root
	local orphans="$CVISOR_BUILDDIR/tests/integration/orphans" i
	[ -x "$orphans" ]
	for i in 1 2 3; do
		run "$orphans" "$CVISOR" --root "$CV_ROOT" do -- sh -c 'exit 4'
		[ "$status" -eq 4 ]
		[ -z "$output" ]
		run "$orphans" "$CVISOR" --root "$CV_ROOT" do --memory 64MB --processes 64 -- sh -c 'exit 4'
		[ "$status" -eq 4 ]
		[ -z "$output" ]
	done
	assert_clean
}

# A sandbox of a root caller maps its root to nobody. A session keyring made
# as that root would be charged to nobody's key quota (kernel.keys.maxkeys,
# 200 by default), shared by every sandbox on the host: the 201st running at
# once would fail with EDQUOT. Host root sees in /proc/keys only keys it
# owns, so the run's keyring is listed there only when charged to it.
@test "sandbox: a run's session keyring is its own, charged to the caller, not to the uid its root maps to" {
	requires_root
	"$CVISOR" --root "$CV_ROOT" do -- sleep 30 >/dev/null 2>&1 &
	local pid=$! i line=
	cv_track_pid "$pid"
	for i in $(seq 100); do
		line="$(grep " _ses\.do-$pid-" /proc/keys || true)"
		[ -z "$line" ] || break
		sleep 0.1
	done
	[ -n "$line" ]
	# id flags usage timeout perm uid gid type description
	[ "$(awk '{ print $6 }' <<<"$line")" = 0 ]
	kill -TERM "$pid"
	wait "$pid" || true
	assert_clean
}

@test "sandbox: memory limit hit is reported (OOM kill counter)" {
	requires_root
	run cvisor do --memory 16MB --report "$CV_TMP/r.json" -- sh -c 'a=x; while :; do a="$a$a"; done'
	[ "$status" -eq 137 ]
	[ "$(jq -r .limits_hit.memory "$CV_TMP/r.json")" = true ]
	[ "$(jq -r .signal "$CV_TMP/r.json")" = 9 ]
	assert_clean
}

@test "sandbox: processes limit hit is reported (pids events)" {
	requires_root
	run cvisor do --processes 8 --report "$CV_TMP/r.json" -- \
		sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 2 & done; wait'
	[ "$(jq -r .limits_hit.processes "$CV_TMP/r.json")" = true ]
	assert_clean
}

@test "sandbox: only the cgroup hierarchies of the limits set, plus memory" {
	requires_root
	[[ -d /sys/fs/cgroup/pids && -d /sys/fs/cgroup/blkio ]] || skip "needs cgroup v1 hierarchies"
	cvisor do --processes 64 -- sh -c 'sleep 2; : 4715' &
	cv_track_pid $!
	local do_pid=$! p=""
	for _ in $(seq 50); do p="$(pgrep -f '^sh -c sleep 2; : 4715$')" && break; sleep 0.1; done
	[ -n "$p" ]
	local cg
	cg="$(cat "/proc/$p/cgroup")"
	wait "$do_pid"
	echo "$cg"
	[[ "$(grep ':memory:' <<<"$cg")" == */do-* ]]
	[[ "$(grep ':pids:' <<<"$cg")" == */do-* ]]
	# not joined: it stays in cvisor's own cgroup there
	[[ "$(grep ':blkio:' <<<"$cg")" != */do-* ]]
	[[ "$(grep ':freezer:' <<<"$cg")" != */do-* ]]
	[[ "$(grep ':devices:' <<<"$cg")" != */do-* ]]
	[[ "$(grep -E ':cpu(,cpuacct)?:' <<<"$cg")" != */do-* ]]
	assert_clean
}

@test "sandbox: cpu_seconds limit kills with SIGXCPU and is reported" {
	requires_root
	# as its pid namespace's init the shell ignores SIGXCPU: the hard
	# limit's SIGKILL one second later ends it
	run cvisor do --cpu-seconds 1 --report "$CV_TMP/r.json" -- sh -c 'while :; do :; done'
	[ "$status" -eq 137 ] || [ "$status" -eq 152 ]
	[ "$(jq -r .limits_hit.cpu_seconds "$CV_TMP/r.json")" = true ]
	assert_clean
}

@test "sandbox: max_file_size limit raises SIGXFSZ and is reported" {
	requires_root
	run cvisor do --max-file-size 1KB --report "$CV_TMP/r.json" -- sh -c 'head -c 8192 /dev/zero > big; exit $?'
	[ "$status" -eq 153 ] # 128 + SIGXFSZ, as the shell reports it
	[ "$(jq -r .limits_hit.max_file_size "$CV_TMP/r.json")" = true ]
}

@test "sandbox: open_files sets RLIMIT_NOFILE" {
	requires_root
	run cvisor do --open-files 64 -- sh -c 'ulimit -n'
	[ "$status" -eq 0 ]
	[ "$output" = 64 ]
	run cvisor do --open-files 100000000 -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"open_files: 100000000 is above this process's hard limit"* ]]
	assert_clean
}

@test "sandbox: max_output_bytes caps each stream" {
	requires_root
	run cvisor do --max-output-bytes 10 --report "$CV_TMP/r.json" -- sh -c 'echo 0123456789abcdef'
	[ "$status" -eq 0 ]
	[ "$output" = 0123456789 ]
	[ "$(jq -r .output_truncated.stdout "$CV_TMP/r.json")" = true ]
}

@test "sandbox: the timeout kills the whole sandbox, children ignoring SIGTERM included" {
	requires_root
	local t0=$SECONDS
	run cvisor do --timeout 1 --report "$CV_TMP/r.json" -- \
		sh -c 'trap "" TERM; (trap "" TERM; sleep 4711) & sleep 4712'
	[ "$status" -eq 137 ]
	[ $((SECONDS - t0)) -lt 10 ]
	[ "$(jq -r .timed_out "$CV_TMP/r.json")" = true ]
	run ! pgrep -f 'sleep 471[12]'
	assert_clean
}

@test "sandbox: a run without limits and without --report makes no cgroup; SIGKILL of cvisor do takes the sandbox with it" {
	requires_root
	"$CVISOR" --root "$CV_ROOT" do -- sh -c 'sleep 4713; :' &
	local pid=$! p=""
	cv_track_pid $pid
	for _ in $(seq 50); do p="$(pgrep -f '^sleep 4713')" && break; sleep 0.1; done
	[ -n "$p" ]
	[ -z "$(run_cgroups $pid)" ]
	# in cvisor's own cgroup, as bubblewrap's programs are in their caller's
	local mine
	mine="$(cat "/proc/$pid/cgroup")"
	[ -n "$mine" ]
	[ "$(cat "/proc/$p/cgroup")" = "$mine" ]
	kill -9 $pid
	for _ in $(seq 50); do pgrep -f '^sleep 4713' >/dev/null || break; sleep 0.1; done
	run ! pgrep -f '^sleep 4713'
	assert_clean
}

@test "sandbox: SIGKILL of cvisor do with a limit: the watcher removes the run's cgroup" {
	requires_root
	"$CVISOR" --root "$CV_ROOT" do --processes 64 -- sleep 4716 &
	local pid=$!
	cv_track_pid $pid
	for _ in $(seq 50); do pgrep -f '^sleep 4716' >/dev/null && break; sleep 0.1; done
	pgrep -f '^sleep 4716'
	[ -n "$(run_cgroups $pid)" ]
	kill -9 $pid
	for _ in $(seq 50); do pgrep -f '^sleep 4716' >/dev/null || break; sleep 0.1; done
	run ! pgrep -f '^sleep 4716'
	# the watcher removes the cgroup without any further command
	wait_run_cgroups_gone $pid
	assert_clean
}

@test "sandbox: the watcher shares cvisor do's memory (no copy); killed with cvisor do, it ends what was put into the run's cgroup and removes it" {
	requires_root
	requires python3
	"$CVISOR" --root "$CV_ROOT" do --processes 64 -- sleep 4718 &
	local pid=$! w="" outsider cg init
	cv_track_pid $pid
	for _ in $(seq 50); do
		pgrep -f '^sleep 4718' >/dev/null && w="$(pgrep -P $pid -x cvisor)" && break
		sleep 0.1
	done
	[ -n "$w" ]
	cv_track_pid $w
	run same_memory $pid $w
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	# so does the container process, now the init, in the run's cgroup
	# (a v1 one joined by itself before anything else)
	init="$(init_of 'sleep 4718')"
	[ -n "$init" ]
	run same_memory $pid $init
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	grep -qE "^([0-9]+:pids|0:):.*/do-$pid-" "/proc/$init/cgroup"
	# a process put into the run's cgroup from outside
	sleep 4719 &
	outsider=$!
	cv_track_pid $outsider
	cg="$(run_cgroups $pid | head -1)"
	[ -n "$cg" ]
	echo $outsider >"$cg/cgroup.procs"
	kill -9 $pid
	wait_run_cgroups_gone $pid
	for _ in $(seq 50); do kill -0 $outsider 2>/dev/null || break; sleep 0.1; done
	run ! kill -0 $outsider
	run ! pgrep -f '^sleep 4718'
	# the watcher became `cvisor sandbox-reap` and has ended too (a
	# zombie until init reaps it: its parent was cvisor do)
	local state=""
	for _ in $(seq 50); do
		state="$(cut -d' ' -f3 "/proc/$w/stat" 2>/dev/null)" || true
		[ -z "$state" ] || [ "$state" = Z ] && break
		sleep 0.1
	done
	[[ -z "$state" || "$state" = Z ]]
	assert_clean
}

@test "sandbox: an OOM in the sandbox's memory cgroup takes neither cvisor do nor its watcher: the report is written, the cgroup removed" {
	requires_root
	requires gcc
	mkdir "$CV_TMP/ws"
	gcc -static -O2 -o "$CV_TMP/ws/small" "$CVISOR_TESTS_DIR/data/sandbox/small-procs.c"
	# every process of the program is smaller than the init (when it shares
	# cvisor do's memory, the OOM killer would take cvisor do with it)
	"$CVISOR" --root "$CV_ROOT" do --workspace "$CV_TMP/ws" --memory 32MB --report "$CV_TMP/r.json" -- ./small &
	local pid=$! rc
	cv_track_pid $pid
	wait_ended $pid
	# the report is written last: cvisor do lived to the end, and exited
	# with the program's status (which the OOM killer may have chosen too)
	[ -s "$CV_TMP/r.json" ]
	[ "$(jq -r .limits_hit.memory "$CV_TMP/r.json")" = true ]
	[ "$(jq -r .exit_code "$CV_TMP/r.json")" = "$rc" ]
	wait_run_cgroups_gone $pid
	assert_clean
}

@test "sandbox: an OOM never takes cvisor do, whose memory the init shares: processes smaller than the init fill the memory cgroup" {
	requires_root
	requires gcc
	requires python3
	mkdir "$CV_TMP/ws"
	gcc -static -O2 -o "$CV_TMP/ws/small" "$CVISOR_TESTS_DIR/data/sandbox/small-procs.c"
	# no --report: the container process shares cvisor do's memory; the
	# OOM killer takes the largest process of the cgroup, and every
	# process sharing its memory
	run python3 -c 'import subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True)
print(" ".join([str(r.returncode)] + r.stdout.split()))' "$CVISOR" --root "$CV_ROOT" do --workspace "$CV_TMP/ws" --memory 32MB -- ./small
	[ "$status" -eq 0 ]
	# cvisor do exited with its program's status, 0 (its children were
	# killed) or 137 (the OOM killer chose the program itself); -9: it
	# was killed
	[[ "${lines[0]}" =~ ^(0\ killed\ [1-9][0-9]*|137)$ ]]
	assert_clean
}

@test "sandbox: on a v1 memory hierarchy the init, which shares cvisor do's memory, leaves the run's memory cgroup before the program starts" {
	requires_root
	requires python3
	memory_on_v1 || skip "the memory controller is not on a v1 hierarchy"
	"$CVISOR" --root "$CV_ROOT" do --memory 64MB --processes 64 -- sleep 4746 &
	local pid=$! init program
	cv_track_pid $pid
	init="$(init_of 'sleep 4746')"
	[ -n "$init" ]
	program="$(pgrep -f '^sleep 4746$')"
	run same_memory $pid $init
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	# the init is where cvisor do is, the program in the run's directory;
	# in the other hierarchies the init stays in the run's
	[ "$(grep -E ':memory:' "/proc/$init/cgroup")" = "$(grep -E ':memory:' "/proc/$pid/cgroup")" ]
	[[ "$(grep -E ':memory:' "/proc/$program/cgroup")" == */do-$pid-* ]]
	[[ "$(grep -E ':pids:' "/proc/$init/cgroup")" == */do-$pid-* ]]
	kill -TERM $pid
	local rc
	wait_ended $pid
	# the cgroup namespace is rooted at the run's directories: the init
	# is seen above it
	run cvisor do --memory 64MB -- sh -c 'grep :memory: /proc/self/cgroup; grep :memory: /proc/1/cgroup'
	[ "$status" -eq 0 ]
	[ "${lines[0]##*:}" = / ]
	[ "${lines[1]##*:}" = /.. ]
	assert_clean
}

@test "sandbox: with a memory limit on cgroup v2 the init becomes a program of its own, not cvisor do's memory: a few pages for the OOM killer, out of the program's reach" {
	requires_root
	requires_memory_image
	requires python3
	"$CVISOR" --root "$CV_ROOT" do --memory 64MB -- sleep 4744 &
	local pid=$! init rss
	cv_track_pid $pid
	init="$(init_of 'sleep 4744')"
	[ -n "$init" ]
	# its own memory: the OOM killer, which kills every process sharing
	# its victim's, could not take cvisor do along with it
	run same_memory $pid $init
	[ "$status" -eq 0 ]
	[ "$output" != 0 ]
	rss="$(awk '/^VmRSS:/ { print $2 }' "/proc/$init/status")"
	[ -n "$rss" ]
	[ "$rss" -lt 64 ]
	# from a sealed memfd that no one may read or write
	[[ "$(readlink "/proc/$init/exe")" == "/memfd:cvisor-init (deleted)" ]]
	[ "$(stat -L -c %a "/proc/$init/exe")" = 111 ]
	run python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(fcntl.fcntl(fd, 1034))' "/proc/$init/exe"
	[ "$status" -eq 0 ]
	[ "$output" = 15 ]
	kill -TERM $pid
	local rc
	wait_ended $pid
	# an image the init may not read: its execve left it non-dumpable
	run cvisor do --memory 64MB -- python3 -c '
import os
for path, mode in (("/proc/1/mem", os.O_RDONLY), ("/proc/1/mem", os.O_WRONLY), ("/proc/1/environ", os.O_RDONLY)):
    try:
        os.close(os.open(path, mode))
        print(path, mode, "ok")
    except OSError as e:
        print(path, mode, e.strerror)
try:
    print("exe", os.readlink("/proc/1/exe"), "ok")
except OSError as e:
    print("exe", e.strerror)
'
	[ "$status" -eq 0 ]
	[[ "$output" == *"/proc/1/mem 0 Permission denied"* ]]
	[[ "$output" == *"/proc/1/mem 1 Permission denied"* ]]
	[[ "$output" == *"/proc/1/environ 0 Permission denied"* ]]
	[[ "$output" == *"exe Permission denied"* ]]
	[[ "$output" != *" ok"* ]]
	assert_clean
}

@test "sandbox: with fs.suid_dumpable 1 a run with a memory limit forks (its init's execve would be dumpable)" {
	requires_root
	requires_image_init
	requires python3
	SB_SUID_DUMPABLE="$(cat /proc/sys/fs/suid_dumpable)"
	echo 1 >/proc/sys/fs/suid_dumpable
	"$CVISOR" --root "$CV_ROOT" do --memory 64MB -- sleep 4720 &
	local pid=$! init
	cv_track_pid $pid
	init="$(init_of 'sleep 4720')"
	[ -n "$init" ]
	# a fork: cvisor's image, a memory of its own
	[ "$(stat -L -c %d:%i "/proc/$init/exe")" = "$(stat -L -c %d:%i "$CVISOR")" ]
	run same_memory $pid $init
	[ "$status" -eq 0 ]
	[ "$output" != 0 ]
	kill -TERM $pid
	local rc
	wait_ended $pid
	assert_clean
}

@test "sandbox: where memfds may not be executable (vm.memfd_noexec 2) a run with a memory limit forks" {
	requires_root
	requires_memory_image
	requires unshare
	[ -e /proc/sys/vm/memfd_noexec ] || skip "no vm.memfd_noexec (Linux 6.3 and later have it)"
	local rss
	# the init's own program: a few pages
	run cvisor do --memory 64MB -- sh -c 'grep VmRSS /proc/1/status'
	[ "$status" -eq 0 ]
	rss="$(echo "$output" | awk '/VmRSS/ { print $2 }')"
	[ "$rss" -lt 64 ]
	# the sysctl is its pid namespace's (and cannot be lowered again): set
	# in one of its own, for this run only
	run unshare --pid --fork --mount-proc sh -c 'echo 2 >/proc/sys/vm/memfd_noexec &&
		"$1" --root "$2" do --memory 64MB -- sh -c "grep VmRSS /proc/1/status"' sh "$CVISOR" "$CV_ROOT"
	[ "$status" -eq 0 ]
	rss="$(echo "$output" | awk '/VmRSS/ { print $2 }')"
	[ "$rss" -gt 256 ]
	assert_clean
}

@test "sandbox: sandbox-reap (the watcher's verb) refuses what is not the own cgroup of a run whose supervisor is gone" {
	requires_root
	run "$CVISOR" sandbox-reap
	[ "$status" -ne 0 ]
	[[ "$output" == *"expected PID PID_START ID"* ]]
	run "$CVISOR" sandbox-reap x 1 do-1-2
	[ "$status" -ne 0 ]
	[[ "$output" == *"PID \`x\`: not a process id"* ]]
	run "$CVISOR" sandbox-reap 5 1 foo
	[ "$status" -ne 0 ]
	[[ "$output" == *"ID \`foo\`: not a run of cvisor do"* ]]
	"$CVISOR" --root "$CV_ROOT" do --processes 64 -- sleep 4720 &
	local pid=$! cg id
	cv_track_pid $pid
	for _ in $(seq 50); do pgrep -f '^sleep 4720' >/dev/null && break; sleep 0.1; done
	cg="$(run_cgroups $pid | head -1)"
	[ -n "$cg" ]
	id="$(basename "$cg")"
	run "$CVISOR" sandbox-reap 5 1 "$id" pids /sys/fs/cgroup/pids
	[ "$status" -ne 0 ]
	[[ "$output" == *"not the cgroup of run $id"* ]]
	# its supervisor alive: neither the run nor its cgroup is touched
	run "$CVISOR" sandbox-reap "$(pgrep -f '^sleep 4720')" 0 "$id" pids "$cg"
	[ "$status" -ne 0 ]
	[[ "$output" == *"the supervisor of run $id, process $pid, is alive"* ]]
	[ -d "$cg" ]
	pgrep -f '^sleep 4720'
	kill -9 $pid
	wait_run_cgroups_gone $pid
	assert_clean
}

@test "sandbox: SIGKILL of cvisor do and its watcher: the program dies with cvisor (parent death signal), gc removes the cgroup" {
	requires_root
	"$CVISOR" --root "$CV_ROOT" do --processes 64 -- sleep 4714 &
	local pid=$! w="" p=""
	cv_track_pid $pid
	for _ in $(seq 50); do
		p="$(pgrep -f '^sleep 4714')" && w="$(pgrep -P $pid -x cvisor)" && break
		sleep 0.1
	done
	[ -n "$p" ]
	[ -n "$w" ]
	cv_track_pid $w
	# the watcher first: killed after the supervisor, it could see the
	# supervisor's end and clean up before its own SIGKILL lands
	kill -9 $w
	# dead: a zombie until cvisor do (its parent) is gone too
	for _ in $(seq 50); do
		[ "$(cut -d' ' -f3 "/proc/$w/stat" 2>/dev/null)" = Z ] || [ ! -e "/proc/$w" ] && break
		sleep 0.05
	done
	kill -9 $pid
	for _ in $(seq 50); do pgrep -f '^sleep 4714' >/dev/null || break; sleep 0.1; done
	run ! pgrep -f '^sleep 4714'
	# nobody removed the cgroup: gc does, and only that run's
	local cgs
	cgs="$(run_cgroups $pid)"
	[ -n "$cgs" ]
	run cvisor gc
	[ "$status" -eq 0 ]
	[[ "$output" == *"cvisor gc: removed"* ]]
	[ -z "$(run_cgroups $pid)" ]
	assert_clean
}

@test "sandbox: gc removes a run's empty cgroup only once its supervisor is gone, whatever --root it used; a run without a cgroup collects it too" {
	requires_root
	local own pid dir
	own="$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)"
	[[ -n "$own" && -d "/sys/fs/cgroup/memory$own" ]] || skip "needs a v1 memory hierarchy"
	# a live process standing for a run's supervisor (of another --root:
	# this root's lock file knows nothing of it), and its fresh, still
	# empty cgroup
	sleep 4717 &
	pid=$!
	cv_track_pid $pid
	dir="/sys/fs/cgroup/memory$own/do-$pid-1"
	mkdir "$dir"
	cv_track_cgroup "$dir"
	run cvisor gc
	[ "$status" -eq 0 ]
	[ -d "$dir" ]
	kill $pid
	wait $pid || true
	# the gc every run does, here one without a cgroup of its own (so no
	# watcher); the test before has `cvisor gc` remove one
	run cvisor do -- true
	[ "$status" -eq 0 ]
	[ ! -d "$dir" ]
}

@test "sandbox: spec --policy then run behaves as do (same config.json, same view inside; timeout and max_output_bytes only in do)" {
	requires_root
	requires jq
	mkdir -p "$CV_TMP/b" "$CV_TMP/ws"
	# a timeout that a loaded machine never reaches: only the last part
	# is about it, with a short one
	cat >"$CV_TMP/policy.json" <<-EOF
	{"workspace": "$CV_TMP/ws", "memory": "64MB", "processes": 64, "cpu_seconds": 30,
	 "max_file_size": "1MB", "open_files": 100, "env": ["MODE=x"], "deny_read": ["$CV_TMP/ws/secret"],
	 "timeout": 600, "max_output_bytes": "1MB"}
	EOF
	echo SECRET >"$CV_TMP/ws/secret"
	run "$CVISOR" spec --policy "$CV_TMP/policy.json" --bundle "$CV_TMP/b"
	[ "$status" -eq 0 ]
	[ "$output" = "cvisor spec: note: $CV_TMP/policy.json: only \`cvisor do\` enforces timeout, max_output_bytes; the config records them as annotations that \`cvisor run\` does not act on" ]
	# the host's root itself, no staging directory in the bundle
	[ "$(jq -r .root.path "$CV_TMP/b/config.json")" = / ]
	[ "$(jq -r '.annotations["org.cvisor.rootfs.flags"]' "$CV_TMP/b/config.json")" = nosuid,nodev ]
	[ ! -e "$CV_TMP/b/rootfs" ]
	[ "$(jq -r .linux.resources.memory.limit "$CV_TMP/b/config.json")" = 67108864 ]
	[ "$(jq -r '.annotations["org.cvisor.sandbox.timeout-ms"]' "$CV_TMP/b/config.json")" = 600000 ]

	# the config.json cvisor do runs is the same, program aside: it is
	# in a memfd of the supervisor while the program runs (which says so
	# in its workspace, this test's own)
	SECRET_TOKEN=y "$CVISOR" --root "$CV_ROOT" do --policy "$CV_TMP/policy.json" -- \
		sh -c 'touch running; while [ ! -e stop ]; do sleep 0.05; done' 3>&- &
	cv_track_pid $!
	local do_pid=$! live="" f
	for _ in $(seq 1200); do
		for f in /proc/$do_pid/fd/*; do
			if [[ "$(readlink "$f" 2>/dev/null)" == "/memfd:config.json"* ]]; then live="$f"; fi
		done
		if [ -n "$live" ] && [ -e "$CV_TMP/ws/running" ]; then break; fi
		sleep 0.05
	done
	[ -n "$live" ]
	[ -e "$CV_TMP/ws/running" ]
	jq -S 'del(.process.args)' "$live" >"$CV_TMP/do.json"
	touch "$CV_TMP/ws/stop"
	wait $do_pid
	jq -S 'del(.process.args)' "$CV_TMP/b/config.json" >"$CV_TMP/spec.json"
	diff "$CV_TMP/spec.json" "$CV_TMP/do.json"

	# and the program sees the same sandbox either way
	local probe='id -u; pwd; echo "$MODE"; env | grep -c SECRET_TOKEN; cat secret 2>&1 | grep -c SECRET;
		touch /usr/x 2>&1; ulimit -t; ulimit -f; ulimit -n; ulimit -c;
		grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):" /proc/self/status;
		hostname; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "; ls /tmp'
	update_config ".process.args = [\"sh\", \"-c\", $(jq -Rs . <<<"$probe")]" "$CV_TMP/b"
	SECRET_TOKEN=y run cvisor run --bundle "$CV_TMP/b" "$CV_ID"
	[ "$status" -eq 0 ]
	local via_run="$output"
	SECRET_TOKEN=y run cvisor do --policy "$CV_TMP/policy.json" -- sh -c "$probe"
	[ "$status" -eq 0 ]
	[ "$output" = "$via_run" ]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	[[ "$output" == *"Seccomp:	2"* ]]
	[[ "$output" == *"CapEff:	0000000000000000"* ]]

	# the documented difference: only do enforces the timeout
	jq '.timeout = 2' "$CV_TMP/policy.json" >"$CV_TMP/short.json"
	mkdir "$CV_TMP/b-short"
	run "$CVISOR" spec --policy "$CV_TMP/short.json" --bundle "$CV_TMP/b-short"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.annotations["org.cvisor.sandbox.timeout-ms"]' "$CV_TMP/b-short/config.json")" = 2000 ]
	update_config '.process.args = ["sh", "-c", "sleep 3; echo survived"]' "$CV_TMP/b-short"
	run cvisor run --bundle "$CV_TMP/b-short" "$(cv_new_id)"
	[ "$status" -eq 0 ]
	[ "$output" = survived ]
	run cvisor do --policy "$CV_TMP/short.json" -- sh -c "sleep 3; echo survived"
	[ "$status" -eq 137 ]
	[ -z "$output" ]

	# without do-only keys, no note
	echo '{"memory": "64MB"}' >"$CV_TMP/p2.json"
	mkdir "$CV_TMP/b2"
	run "$CVISOR" spec --policy "$CV_TMP/p2.json" --bundle "$CV_TMP/b2"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	assert_clean
}

@test "sandbox: a bad policy fails with a message naming the key, nothing left" {
	requires_root
	echo '{"memory": "lots"}' > "$CV_TMP/policy.json"
	run cvisor do --policy "$CV_TMP/policy.json" -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *'policy.json: memory: expected a size like "512MB" or a number of bytes, got "lots"'* ]]
	echo '{"memroy": "1G"}' > "$CV_TMP/policy.json"
	run cvisor do --policy "$CV_TMP/policy.json" -- true
	[[ "$output" == *'unknown key "memroy" (did you mean "memory"?)'* ]]
	run cvisor do --processes 2 -- true
	[[ "$output" == *'--processes: must be between 8 and 4194304, got "2"'* ]]
	assert_clean
}

@test "sandbox: do --check says how each limit is enforced" {
	requires_root
	run cvisor do --check
	[ "$status" -eq 0 ]
	[[ "$output" == *memory*cgroup* ]]
	[[ "$output" == *cpu_seconds*"rlimit RLIMIT_CPU"* ]]
	[[ "$output" == *timeout*supervisor* ]]
}
