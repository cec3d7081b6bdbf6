#!/usr/bin/env bats
# linux.seccomp: every action observed from inside the container, argument
# filters, architectures, defaultErrnoRet, unknown names, bad profiles, the
# notify agent, and verdicts compared with runc on podman's default profile.

load helpers

SC_DATA="$CVISOR_TESTS_DIR/data/seccomp"

setup_file() {
	command -v gcc >/dev/null || return 0
	gcc -static -O1 -o "$BATS_FILE_TMPDIR/probe" "$SC_DATA/probe.c" 2>"$BATS_FILE_TMPDIR/probe.log" || true
	# Can this kernel make i386 syscalls at all? int $0x80 on the bare
	# host, outside any container and filter. Where IA32 emulation is off
	# (CONFIG_IA32_EMULATION_DEFAULT_DISABLED, ia32_emulation=0, or a guest
	# kernel without that gate, as on the 6.18 test machines) it raises a
	# general protection fault: SIGSEGV, before any filter is asked.
	if [ "$(uname -m)" = x86_64 ] && [ -x "$BATS_FILE_TMPDIR/probe" ]; then
		local out status=0
		out="$("$BATS_FILE_TMPDIR/probe" i386-getpid 2>&1)" || status=$?
		if [ "$out" != "i386-getpid 0" ]; then
			[ "$status" -le 128 ] || out="killed by SIG$(kill -l $((status - 128)))"
			echo "int \$0x80 outside any container: exit $status, $out" >"$BATS_FILE_TMPDIR/no-i386"
		fi
	fi
	if [ -x "$CVISOR_BUILDDIR/tests/integration/seccomp-agent" ]; then
		cp "$CVISOR_BUILDDIR/tests/integration/seccomp-agent" "$BATS_FILE_TMPDIR/agent"
	else
		gcc -O1 -o "$BATS_FILE_TMPDIR/agent" "$CVISOR_TESTS_DIR/seccomp-agent.c" 2>/dev/null || true
	fi
}

setup() {
	cv_setup
	requires_root
	[ -x "$BATS_FILE_TMPDIR/probe" ] || skip "cannot build a static probe (gcc, libc6-dev)"
	make_bundle
	cp "$BATS_FILE_TMPDIR/probe" "$CV_BUNDLE/rootfs/bin/probe"
	# this file tests the profile alone: no capability interferes
	update_config '.process.capabilities = {} | .process.noNewPrivileges = true'
}

teardown() {
	cv_teardown
}

# sc_profile JSON: sets linux.seccomp; sc_probe NAMES...: the probe's argv.
sc_profile() {
	update_config ".linux.seccomp = $1"
}

# Skips, saying why, where the host itself cannot make i386 syscalls.
requires_host_i386() {
	[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
	[ ! -e "$BATS_FILE_TMPDIR/no-i386" ] || skip "this kernel cannot make i386 syscalls ($(cat "$BATS_FILE_TMPDIR/no-i386"))"
}

sc_probe() {
	local args
	args="$(printf '"%s",' /bin/probe "$@")"
	update_config ".process.args = [${args%,}]"
}

# Runs the bundle with cvisor; skips (saying why) while `run` or the
# runtime's side of SCMP_ACT_NOTIFY is not implemented.
sc_run() {
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	if [ "$status" -ne 0 ] && [[ "$output" == *"not implemented"* || "$output" == *"not supported by cvisor yet"* ]]; then
		skip "$output"
	fi
}

@test "seccomp: SCMP_ACT_ERRNO returns errnoRet" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 42}]}'
	sc_probe getppid keyctl
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"getppid 42"* ]]
	[[ "$output" == *"keyctl 0"* ]]
}

@test "seccomp: SCMP_ACT_ERRNO without errnoRet is EPERM" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_ERRNO"}]}'
	sc_probe getppid
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"getppid 1"* ]]
}

@test "seccomp: SCMP_ACT_KILL ends the process with SIGSYS (exit 159)" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_KILL"}]}'
	sc_probe keyctl getppid
	sc_run
	[ "$status" -eq 159 ]
	[[ "$output" == *"keyctl 0"* ]]
	[[ "$output" != *"getppid"* ]]
}

@test "seccomp: SCMP_ACT_KILL_PROCESS ends the process with SIGSYS" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_KILL_PROCESS"}]}'
	sc_probe getppid
	sc_run
	[ "$status" -eq 159 ]
}

@test "seccomp: SCMP_ACT_TRAP delivers SIGSYS to the handler" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_TRAP"}]}'
	sc_probe getppid keyctl
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"getppid SIGSYS"* ]]
	[[ "$output" == *"keyctl 0"* ]]
}

@test "seccomp: SCMP_ACT_LOG allows and logs" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_LOG"}]}'
	sc_probe getppid
	local before
	before="$(dmesg 2>/dev/null | grep -c 'type=1326' || true)"
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"getppid 0"* ]]
	dmesg >/dev/null 2>&1 || skip "syscall allowed; no kernel log readable to see the audit record"
	local after
	after="$(dmesg | grep -c 'type=1326' || true)"
	[ "$after" -gt "$before" ] || skip "syscall allowed; the kernel logged no audit record (audit off or rate-limited)"
}

@test "seccomp: argument filters allow personality(0) but not personality(8)" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["personality"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13,
		 "args": [{"index": 0, "value": 0, "op": "SCMP_CMP_NE"}]}]}'
	sc_probe personality0 personality8
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"personality0 0"* ]]
	[[ "$output" == *"personality8 13"* ]]
}

@test "seccomp: SCMP_CMP_MASKED_EQ on unshare flags" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["unshare"], "action": "SCMP_ACT_ERRNO", "errnoRet": 5,
		 "args": [{"index": 0, "value": 268435456, "valueTwo": 268435456, "op": "SCMP_CMP_MASKED_EQ"}]}]}'
	sc_probe unshare unshare-user
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"unshare 0"* ]]
	[[ "$output" == *"unshare-user 5"* ]]
}

@test "seccomp: i386 syscalls are refused unless SCMP_ARCH_X86 is listed" {
	requires_host_i386
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_ERRNO"}]}'
	sc_probe keyctl i386-getpid
	sc_run
	[ "$status" -eq 159 ] # the bad-architecture action kills
	[[ "$output" == *"keyctl 0"* ]]
	[[ "$output" != *"i386-getpid"* ]]

	cvisor delete --force "$CV_ID" >/dev/null 2>&1 || true
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
		"syscalls": [{"names": ["getppid"], "action": "SCMP_ACT_ERRNO"}]}'
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"i386-getpid 0"* ]]
}

@test "seccomp: x32 syscalls are refused unless SCMP_ARCH_X32 is listed" {
	[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"], "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_ERRNO"}]}'
	sc_probe keyctl x32-getpid
	sc_run
	[ "$status" -eq 159 ]
	[[ "$output" != *"x32-getpid"* ]]
}

@test "seccomp: defaultErrnoRet" {
	# podman's allow-list minus getppid, with a distinctive default errno
	sc_profile "$(jq '.defaultErrnoRet = 77 | .syscalls |= map(.names -= ["getppid"])' "$SC_DATA/podman-default.json")"
	sc_probe getppid keyctl
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"getppid 77"* ]]
	[[ "$output" == *"keyctl 0"* ]]
}

@test "seccomp: an unknown syscall name is skipped" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["no_such_syscall_cvisor", "getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 42}]}'
	sc_probe getppid
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"getppid 42"* ]]
}

@test "seccomp: flags TSYNC, LOG and SPEC_ALLOW are accepted" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_TSYNC",
		"SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW"], "syscalls": [
		{"names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 42}]}'
	sc_probe getppid
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"getppid 42"* ]]
}

@test "seccomp: an invalid action is refused, naming the field, leaving nothing behind" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["getpid"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["getppid"], "action": "SCMP_ACT_FOO"}]}'
	sc_run
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.seccomp.syscalls[1].action"* ]]
	[[ "$output" == *"SCMP_ACT_FOO"* ]]
	run cvisor list -q
	[ -z "$output" ]
}

@test "seccomp: an unknown flag is refused, naming it" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_NOPE"]}'
	sc_run
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.seccomp.flags[0]"* ]]
	[[ "$output" == *"SECCOMP_FILTER_FLAG_NOPE"* ]]
}

@test "seccomp: SCMP_ACT_NOTIFY on write is refused" {
	sc_profile '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["write"], "action": "SCMP_ACT_NOTIFY"}]}'
	sc_run
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.seccomp.syscalls[0]"*"write"* ]]
}

# sc_agent ERRNO: starts the test agent on $CV_TMP/agent.sock.
sc_agent() {
	[ -x "$BATS_FILE_TMPDIR/agent" ] || skip "seccomp-agent not built"
	"$BATS_FILE_TMPDIR/agent" "$CV_TMP/agent.sock" "$1" "$CV_TMP/agent.msg" >"$CV_TMP/agent.out" 2>&1 &
	AGENT_PID=$!
	cv_track_pid "$AGENT_PID"
	local i
	for i in $(seq 100); do
		grep -q ready "$CV_TMP/agent.out" 2>/dev/null && return 0
		sleep 0.05
	done
	false
}

@test "seccomp: SCMP_ACT_NOTIFY hands the listener to the agent, which answers success" {
	sc_agent 0
	sc_profile "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"$CV_TMP/agent.sock\",
		\"listenerMetadata\": \"hello agent\",
		\"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"
	sc_probe mkdir getppid
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"mkdir 0"* ]]
	[[ "$output" == *"getppid 0"* ]]
	# the agent answered without running it
	[ ! -e "$CV_BUNDLE/rootfs/tmp/probe-dir" ]
	wait "$AGENT_PID"
	run jq -e --arg id "$CV_ID" '.ociVersion and .fds == ["seccompFd"] and .pid > 0 and
		.metadata == "hello agent" and .state.id == $id and .state.pid == .pid' "$CV_TMP/agent.msg"
	[ "$status" -eq 0 ]
}

@test "seccomp: SCMP_ACT_NOTIFY: the agent's errno reaches the container" {
	sc_agent 13
	sc_profile "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"listenerPath\": \"$CV_TMP/agent.sock\",
		\"syscalls\": [{\"names\": [\"mkdir\"], \"action\": \"SCMP_ACT_NOTIFY\"}]}"
	sc_probe mkdir
	sc_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"mkdir 13"* ]]
}

SC_COMPARE=(getppid unshare unshare-user keyctl mount personality0 personality8 personality1 ptrace reboot
	kexec_load open_by_handle_at bpf clone3 socket-netlink-audit settimeofday nr1000 i386-getpid x32-getpid)

@test "seccomp: podman's default profile gives the same verdicts as runc" {
	requires runc
	local probes=() p
	for p in "${SC_COMPARE[@]}"; do
		# a host without i386 syscalls kills the probe at int $0x80,
		# under any runtime (see requires_host_i386): compare the rest
		if [ "$p" = i386-getpid ] && [ -e "$BATS_FILE_TMPDIR/no-i386" ]; then
			continue
		fi
		probes+=("$p")
	done
	sc_profile "$(cat "$SC_DATA/podman-default.json")"
	sc_probe "${probes[@]}"
	local rid="cvt-runc-$$-$BATS_TEST_NUMBER"
	run runc --root "$CV_TMP/runc-root" run --bundle "$CV_BUNDLE" "$rid"
	runc --root "$CV_TMP/runc-root" delete --force "$rid" >/dev/null 2>&1 || true
	echo "runc: $output"
	[ "$status" -eq 0 ]
	local runc_out="$output"
	# the profile must matter: some probes are refused
	[[ "$runc_out" == *"personality1 38"* ]]
	sc_run
	echo "cvisor: $output"
	[ "$status" -eq 0 ]
	[ "$output" = "$runc_out" ]
}

# Issue 14 item 1: profiles written before close_range, clone3, openat2,
# faccessat2, pidfd_* and mount_setattr deny them; nothing the runtime does
# after loading the filter may need one. Podman's default list without
# them, denying what it does not name, as the 2019 engine defaults did.
@test "seccomp: a 2019-style allowlist (no close_range, clone3, openat2, faccessat2, pidfd_*, mount_setattr) lets create, run and exec work, with and without noNewPrivileges" {
	requires jq
	local prof nnp
	prof="$(jq -c '.defaultAction = "SCMP_ACT_ERRNO" | del(.defaultErrnoRet)
		| .syscalls |= map(.names -= ["close_range", "clone3", "openat2", "faccessat2", "pidfd_open",
			"pidfd_getfd", "pidfd_send_signal", "mount_setattr"] | select(.names | length > 0))' \
		"$SC_DATA/podman-default.json")"
	[ -n "$prof" ]
	[[ "$prof" != *close_range* ]]
	for nnp in true false; do
		update_config ".linux.seccomp = $prof | .process.noNewPrivileges = $nnp
			| .process.capabilities = {\"bounding\": [\"CAP_SETUID\", \"CAP_SETGID\"], \"effective\": [\"CAP_SETUID\", \"CAP_SETGID\"], \"permitted\": [\"CAP_SETUID\", \"CAP_SETGID\"]}
			| .process.args = [\"sh\", \"-c\", \"echo ran\"]"
		run cvisor run --bundle "$CV_BUNDLE" "$CV_ID-run-$nnp"
		[ "$status" -eq 0 ] || { echo "run, noNewPrivileges $nnp: $output"; false; }
		[ "$output" = ran ]
		update_config '.process.args = ["sleep", "100"]'
		cv_create "$CV_ID-$nnp"
		run cvisor start "$CV_ID-$nnp"
		[ "$status" -eq 0 ] || { echo "start, noNewPrivileges $nnp: $output"; false; }
		run cvisor exec "$CV_ID-$nnp" sh -c 'echo exec-ran'
		[ "$status" -eq 0 ] || { echo "exec, noNewPrivileges $nnp: $output"; false; }
		[ "$output" = exec-ran ]
		run cvisor exec --user 1000:1000 "$CV_ID-$nnp" id -u
		[ "$status" -eq 0 ] || { echo "exec --user, noNewPrivileges $nnp: $output"; false; }
		[ "$output" = 1000 ]
		cvisor delete --force "$CV_ID-$nnp"
	done
}
