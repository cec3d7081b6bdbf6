#!/usr/bin/env bats
# exec into a running container, with its flags.

load helpers

setup() {
	cv_setup
	requires_root
	make_bundle
	cd "$CV_BUNDLE"
	update_config '.process.args = ["sleep", "100"] | .hostname = "ctr"'
	cvisor run -d "$CV_ID" </dev/null >/dev/null 2>&1
}

teardown() {
	cv_teardown
}

@test "exec runs in the container's namespaces and returns the exit code" {
	run cvisor exec "$CV_ID" sh -c 'hostname; echo $$; exit 5'
	[ "$status" -eq 5 ]
	[ "${lines[0]}" = ctr ]
	[ "${lines[1]}" -gt 1 ]
	run cvisor exec "$CV_ID" readlink /proc/self/ns/pid
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	[ "$output" = "$(readlink /proc/$pid/ns/pid)" ]
}

# The process joins the container's v1 cgroups itself and is born in its
# v2 one (no pid written from outside: the global threadgroup lock costs an
# RCU grace period); from the host it must show in every one of them.
@test "exec: the process is in every cgroup of the container" {
	cvisor exec -d "$CV_ID" sleep 4711
	local p="" _
	for _ in $(seq 100); do p="$(pgrep -xf 'sleep 4711' | head -1)"; [ -n "$p" ] && break; sleep 0.05; done
	[ -n "$p" ]
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	run diff <(sort "/proc/$p/cgroup") <(sort "/proc/$pid/cgroup")
	kill "$p"
	echo "$output"
	[ "$status" -eq 0 ]
	# and they are the container's, not the caller's
	run diff <(sort "/proc/$pid/cgroup") <(sort /proc/self/cgroup)
	[ "$status" -ne 0 ]
}

@test "exec --user --env --cwd --additional-gids" {
	run cvisor exec --user 1000:1000 --additional-gids 7 --env X=y --cwd /tmp "$CV_ID" sh -c 'id -u; id -g; echo $X; pwd; grep ^Groups /proc/self/status'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 1000 ]
	[ "${lines[2]}" = y ]
	[ "${lines[3]}" = /tmp ]
	[[ "${lines[4]}" == *7* ]]
}

@test "exec --cap never adds to the inheritable set" {
	run cvisor exec --cap CAP_SYS_ADMIN "$CV_ID" grep -E '^Cap(Inh|Bnd)' /proc/self/status
	[ "$status" -eq 0 ]
	[[ "$output" == *"CapInh:	0000000000000000"* ]]
	[[ "$output" == *"CapBnd:	00000000202"* ]]
}

@test "exec --no-new-privs, --pid-file, --detach" {
	run cvisor exec --no-new-privs "$CV_ID" grep NoNewPrivs /proc/self/status
	[ "$status" -eq 0 ]
	[[ "$output" == *1 ]]
	cvisor exec -d --pid-file "$CV_TMP/epid" "$CV_ID" sleep 50 </dev/null >/dev/null 2>&1
	[ -s "$CV_TMP/epid" ]
	grep -q sleep /proc/$(cat "$CV_TMP/epid")/cmdline
}

@test "exec --cwd through a magic link (/proc/self/fd/N) is refused (CVE-2024-21626)" {
	for n in $(seq 3 24); do
		run cvisor exec --cwd "/proc/self/fd/$n" "$CV_ID" sh -c 'echo escaped; ls ../../../..'
		[ "$status" -ne 0 ] || { echo "fd $n: $output"; false; }
		[[ "$output" == *"cwd"* ]]
		[[ "$output" != *escaped* ]]
	done
	run cvisor exec --cwd /proc/self "$CV_ID" pwd
	[ "$status" -eq 0 ]
	[[ "$output" == /proc/* ]]
}

@test "exec of a missing command fails clearly; exec in a stopped container fails" {
	run cvisor exec "$CV_ID" nope
	[ "$status" -ne 0 ]
	[[ "$output" == *'"nope": executable file not found'* ]]
	cvisor kill "$CV_ID" KILL
	for _ in $(seq 100); do [ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ] && break; sleep 0.05; done
	run cvisor exec "$CV_ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"stopped"* ]]
}

@test "exec --apparmor / --process-label the host cannot apply are errors naming the field" {
	run cvisor exec --apparmor cvisor-no-such-profile "$CV_ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.apparmorProfile "cvisor-no-such-profile"'* ]]
	run cvisor exec --process-label cvisor_no_such_label "$CV_ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.selinuxLabel "cvisor_no_such_label"'* ]]
	run cvisor exec "$CV_ID" true
	[ "$status" -eq 0 ]
}

@test "exec runs with the container's personality" {
	[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
	cvisor delete -f "$CV_ID"
	update_config '.linux.personality = {"domain": "LINUX32"}'
	cvisor run -d "$CV_ID" </dev/null >/dev/null 2>&1
	run cvisor exec "$CV_ID" uname -m
	[ "$status" -eq 0 ]
	[ "$output" = i686 ]
}

# exec_on_pty [EXEC-FLAGS...] -- CMD...: `cvisor exec -t -d` through a console
# socket; what CMD writes to its pty ends up in $CV_TMP/tty.out.
exec_on_pty() {
	local flags=()
	while [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	[ -x "$CVISOR_BUILDDIR/tests/integration/recvtty" ] || skip "recvtty not built (make check builds it)"
	rm -f "$CV_TMP/tty.sock"
	"$CVISOR_BUILDDIR/tests/integration/recvtty" "$CV_TMP/tty.sock" >"$CV_TMP/tty.out" 2>/dev/null &
	cv_track_pid $!
	local rpid=$!
	for _ in $(seq 100); do [ -S "$CV_TMP/tty.sock" ] && break; sleep 0.02; done
	cvisor exec -t --console-socket "$CV_TMP/tty.sock" -d "${flags[@]}" "$CV_ID" "$@" </dev/null >/dev/null 2>&1
	wait "$rpid" || true
}

@test "console socket: the pty master reaches the receiver" {
	exec_on_pty -- sh -c 'tty; echo hello-tty'
	grep -q hello-tty "$CV_TMP/tty.out"
	grep -q /dev/pts/ "$CV_TMP/tty.out"
}

@test "exec -t --user: the pty belongs to the user, its group stays devpts' tty group" {
	# runc's rule: the uid becomes the process's, the gid stays the one
	# devpts gave (gid=5 in its mount options), whatever /etc/group says
	echo 'tty:x:7:' >>"$CV_BUNDLE/rootfs/etc/group"
	exec_on_pty --user 1000:1000 -- sh -c 'stat -c "owner=%u:%g" "$(tty)"'
	grep -q owner=1000:5 "$CV_TMP/tty.out" || { cat "$CV_TMP/tty.out"; false; }
	# the user can reopen its own terminal
	exec_on_pty --user 1000:1000 -- sh -c 'echo reopened >"$(tty)" && echo wrote'
	grep -q wrote "$CV_TMP/tty.out" || { cat "$CV_TMP/tty.out"; false; }
	# and root's stays root's
	exec_on_pty -- sh -c 'stat -c "owner=%u:%g" "$(tty)"'
	grep -q owner=0:5 "$CV_TMP/tty.out" || { cat "$CV_TMP/tty.out"; false; }
}

# The test agent at $CV_TMP/agent.sock answering notified syscalls with
# errno $1 (0: success without running them); $2 names its message file.
start_agent() {
	local agent="$CVISOR_BUILDDIR/tests/integration/seccomp-agent"
	[ -x "$agent" ] || skip "seccomp-agent not built"
	rm -f "$CV_TMP/agent.sock"
	"$agent" "$CV_TMP/agent.sock" "$1" "$CV_TMP/$2" >"$CV_TMP/$2.out" 2>&1 &
	cv_track_pid $!
	local i
	for i in $(seq 100); do
		grep -q ready "$CV_TMP/$2.out" 2>/dev/null && return 0
		sleep 0.05
	done
	false
}

notify_mkdir_profile() {
	update_config ".linux.seccomp = {\"defaultAction\": \"SCMP_ACT_ALLOW\",
		\"listenerPath\": \"$CV_TMP/agent.sock\", \"listenerMetadata\": \"m1\",
		\"syscalls\": [{\"names\": [\"mkdir\", \"mkdirat\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"
}

@test "seccomp NOTIFY without noNewPrivileges: the listener reaches the agent before the program runs" {
	start_agent 13 msg1
	notify_mkdir_profile
	update_config '.process.noNewPrivileges = false | .process.args = ["sh", "-c", "mkdir /tmp/nd; echo rc=$?"]'
	id=$(cv_new_id)
	run cvisor run "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Permission denied"* ]]
	[[ "$output" == *"rc=1"* ]]
	[ ! -e rootfs/tmp/nd ]
	jq -e --arg id "$id" '.fds == ["seccompFd"] and .metadata == "m1" and .state.id == $id
		and .state.status == "creating"' "$CV_TMP/msg1"
}

@test "exec with a NOTIFY profile hands its own listener to the agent" {
	start_agent 0 msg1
	notify_mkdir_profile
	id=$(cv_new_id)
	cvisor run -d "$id" </dev/null >/dev/null 2>&1
	for i in $(seq 50); do [ -s "$CV_TMP/msg1" ] && break; sleep 0.1; done
	jq -e '.fds == ["seccompFd"]' "$CV_TMP/msg1"
	# a second agent, answering EACCES, for the exec'd process
	start_agent 13 msg2
	run cvisor exec "$id" sh -c 'mkdir /tmp/ex; echo rc=$?'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Permission denied"* ]]
	[ ! -e rootfs/tmp/ex ]
	jq -e --arg id "$id" '.fds == ["seccompFd"] and .state.id == $id and .state.status == "running"' "$CV_TMP/msg2"
	# that agent took one connection and is gone: the next exec fails,
	# naming the socket, and leaves no process behind
	run cvisor exec "$id" true
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"agent.sock"* ]]
	[ "$(cvisor ps --format json "$id" | jq length)" -eq 1 ]
}

# A process.json for `exec --process` from the container's own process,
# with jq FILTER applied.
exec_process_json() {
	jq ".process | .args = [\"sh\", \"-c\", \"grep Cpus_allowed_list /proc/self/status\"] | $1" "$CV_BUNDLE/config.json" >"$CV_TMP/process.json"
}

@test "exec: execCPUAffinity final is the affinity the program runs with; the runtime's own is restored" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 cpus"
	exec_process_json '.execCPUAffinity = {"initial": "0", "final": "1"}'
	run cvisor exec --process "$CV_TMP/process.json" "$CV_ID"
	[ "$status" -eq 0 ]
	[[ "$output" =~ Cpus_allowed_list:[[:space:]]+1$ ]]
	exec_process_json '.execCPUAffinity = {"final": "0"}'
	run cvisor exec --process "$CV_TMP/process.json" "$CV_ID"
	[ "$status" -eq 0 ]
	[[ "$output" =~ Cpus_allowed_list:[[:space:]]+0$ ]]
	# the runtime's own affinity is restored after the clone: a later exec
	# without the setting gets the container's normal set
	exec_process_json 'del(.execCPUAffinity)'
	run cvisor exec --process "$CV_TMP/process.json" "$CV_ID"
	[ "$status" -eq 0 ]
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	[ "$output" = "$(grep Cpus_allowed_list /proc/"$pid"/status)" ]
}

@test "exec: a bad execCPUAffinity list is refused naming the field" {
	exec_process_json '.execCPUAffinity = {"final": "1-x"}'
	run cvisor exec --process "$CV_TMP/process.json" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.execCPUAffinity.final: invalid cpu list "1-x"'* ]]
	exec_process_json '.execCPUAffinity = {"initial": "3-1"}'
	run cvisor exec --process "$CV_TMP/process.json" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.execCPUAffinity.initial: invalid cpu list'* ]]
}
