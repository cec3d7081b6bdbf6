#!/usr/bin/env bats
# The container process as seen from inside: caps, user, rlimits, fds,
# hostname, cwd, env.

load helpers

setup() {
	cv_setup
	requires_root
	make_bundle
	cd "$CV_BUNDLE"
}

teardown() {
	cv_teardown
}

incontainer() {
	update_config ".process.args = [\"sh\", \"-c\", $(jq -Rn --arg s "$1" '$s')]"
	run cvisor run "$CV_ID"
}

@test "capabilities come from the config" {
	update_config '.process.capabilities = {"bounding": ["CAP_KILL", "CAP_CHOWN"], "effective": ["CAP_KILL"], "permitted": ["CAP_KILL", "CAP_CHOWN"], "inheritable": []}'
	incontainer 'grep -E "^Cap(Bnd|Eff|Prm|Inh)" /proc/self/status'
	[ "$status" -eq 0 ]
	[[ "$output" == *"CapBnd:	0000000000000021"* ]]
	[[ "$output" == *"CapPrm:	0000000000000021"* ]]
	# uid 0 execs with effective = permitted (the kernel's root rule, as with runc).
	[[ "$output" == *"CapEff:	0000000000000021"* ]]
	[[ "$output" == *"CapInh:	0000000000000000"* ]]
}

@test "a non-root user gets exactly the effective set" {
	update_config '.process.user = {"uid": 1000, "gid": 1000} | .process.capabilities = {"bounding": ["CAP_KILL", "CAP_CHOWN"], "effective": ["CAP_KILL"], "permitted": ["CAP_KILL", "CAP_CHOWN"], "inheritable": ["CAP_KILL"], "ambient": ["CAP_KILL"]}'
	incontainer 'grep -E "^Cap(Eff|Amb)" /proc/self/status'
	[ "$status" -eq 0 ]
	[[ "$output" == *"CapEff:	0000000000000020"* ]]
	[[ "$output" == *"CapAmb:	0000000000000020"* ]]
}

@test "nothing of the runtime's reaches the container's stdio: ambient caps it cannot raise are skipped, a debug line in --log" {
	# runc's default config: ambient capabilities listed, inheritable not
	update_config '.process.capabilities = {"bounding": ["CAP_KILL", "CAP_CHOWN", "CAP_NET_BIND_SERVICE"], "effective": ["CAP_KILL", "CAP_CHOWN", "CAP_NET_BIND_SERVICE"], "permitted": ["CAP_KILL", "CAP_CHOWN", "CAP_NET_BIND_SERVICE"], "ambient": ["CAP_KILL", "CAP_CHOWN", "CAP_NET_BIND_SERVICE"]}'
	update_config '.process.args = ["sh", "-c", "echo out; echo err >&2"]'
	run --separate-stderr cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = out ]
	[ "$stderr" = err ]
	# with --debug, the line goes to the log, through the runtime
	run --separate-stderr cvisor --debug --log "$CV_TMP/log" run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = out ]
	grep -q "ambient capability CAP_KILL not raised" "$CV_TMP/log"
}

@test "user, groups and umask" {
	update_config '.process.user = {"uid": 1000, "gid": 1001, "additionalGids": [5, 6], "umask": 63}'
	incontainer 'id -u; id -g; cat /proc/self/status | grep ^Groups; umask'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 1001 ]
	[[ "${lines[2]}" == *"5 6"* ]]
	[ "${lines[3]}" = 0077 ]
}

@test "rlimits at or below the hard limit are applied" {
	hard="$(ulimit -Hn)"
	update_config ".process.rlimits = [{\"type\": \"RLIMIT_NOFILE\", \"soft\": 100, \"hard\": $hard}]"
	incontainer 'grep "Max open files" /proc/self/limits'
	[ "$status" -eq 0 ]
	[[ "$output" =~ "Max open files"\ +100\ +$hard ]]
}

@test "only stdio is open in the container process; --preserve-fds passes more" {
	incontainer 'ls /proc/self/fd'
	[ "$status" -eq 0 ]
	# ls itself opens one fd for the directory.
	[ "${#lines[@]}" -le 4 ]
	update_config '.process.args = ["sh", "-c", "cat <&3"]'
	echo preserved >"$CV_TMP/f"
	run cvisor run --preserve-fds 1 "$CV_ID" 3<"$CV_TMP/f"
	[ "$status" -eq 0 ]
	[ "$output" = preserved ]
}

@test "hostname, env and a missing cwd that is created" {
	update_config '.hostname = "box1" | .process.env += ["FOO=bar"] | .process.cwd = "/work/dir"'
	incontainer 'hostname; echo $FOO; pwd'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = box1 ]
	[ "${lines[1]}" = bar ]
	[ "${lines[2]}" = /work/dir ]
}

@test "an unknown capability is an error naming it" {
	update_config '.process.capabilities.effective += ["CAP_BOGUS"]'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.capabilities.effective: unknown capability "CAP_BOGUS"'* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "an AppArmor profile or SELinux label the host cannot apply is an error naming the field" {
	# No such profile or label exists on any host; without the LSM the
	# runtime says so before it makes anything, with it the write fails.
	update_config '.process.apparmorProfile = "cvisor-no-such-profile"'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.apparmorProfile "cvisor-no-such-profile"'* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
	update_config '.process.apparmorProfile = "" | .process.selinuxLabel = "cvisor_no_such_label"'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.selinuxLabel "cvisor_no_such_label"'* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
	# empty means none
	update_config '.process.selinuxLabel = "" | .process.args = ["true"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
}

@test "noNewPrivileges and oomScoreAdj" {
	update_config '.process.noNewPrivileges = true | .process.oomScoreAdj = 500'
	incontainer 'grep NoNewPrivs /proc/self/status; cat /proc/self/oom_score_adj'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *1 ]]
	[ "${lines[1]}" = 500 ]
}

@test "create: the waiting container process keeps no fd of the caller (without O_CLOEXEC) and no host directory" {
	update_config '.process.args = ["true"]'
	# fd 7 is the write end of the pipe `cat` reads: it sees EOF only when
	# every holder closed it, so a container keeping it hangs until timeout.
	run timeout 20 bash -c '{ "$CVISOR" --root "$CV_ROOT" create --bundle "$CV_BUNDLE" "$CV_ID" 7>&1 >/dev/null 2>&1 </dev/null; echo rc=$?; } | cat'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = rc=0 ]
	run cvisor state "$CV_ID"
	[[ "$output" == *'"status": "created"'* ]]
	pid="$(cvisor state "$CV_ID" | jq .pid)"
	# another inherited fd, a file this time, checked in /proc/PID/fd
	id2="$(cv_new_id)"
	"$CVISOR" --root "$CV_ROOT" create --bundle "$CV_BUNDLE" "$id2" 9>"$CV_TMP/nine" </dev/null >/dev/null 2>&1
	pid2="$(cvisor state "$id2" | jq .pid)"
	for p in "$pid" "$pid2"; do
		# in a variable first: a failing ls must fail the test, not pass the grep
		fds="$(ls -l /proc/"$p"/fd)"
		echo "$fds"
		# not the caller's file or pipe, and no host directory (a cgroup,
		# the state directory): each is a way out through /proc/self/fd/N
		run ! grep -e "$CV_TMP/nine" -e ' -> pipe:' -e ' -> /sys/fs/cgroup/' -e " -> $CV_ROOT/[^/]*\$" <<<"$fds"
	done
	# --preserve-fds keeps fd 3 (and only the range asked for)
	id3="$(cv_new_id)"
	"$CVISOR" --root "$CV_ROOT" create --preserve-fds 1 --bundle "$CV_BUNDLE" "$id3" 3>"$CV_TMP/three" 9>"$CV_TMP/nine" </dev/null >/dev/null 2>&1
	pid3="$(cvisor state "$id3" | jq .pid)"
	fds="$(ls -l /proc/"$pid3"/fd)"
	grep -q "$CV_TMP/three" <<<"$fds"
	run ! grep "$CV_TMP/nine" <<<"$fds"
}

@test "process.cwd through a magic link (/proc/self/fd/N) is refused: no cwd outside the rootfs (CVE-2024-21626)" {
	# An fd the runtime holds while it sets up the container (a cgroup or
	# state directory, its procfs) is a host directory: a cwd through
	# /proc/self/fd/N would leave the program's cwd, and ".." from it,
	# on the host. Every N the runtime might hold, with run and create.
	for n in $(seq 3 24); do
		update_config ".process.cwd = \"/proc/self/fd/$n\" | .process.args = [\"sh\", \"-c\", \"echo escaped; ls ../../../..\"]"
		run cvisor run "$CV_ID"
		[ "$status" -ne 0 ] || { echo "run, fd $n: $output"; false; }
		[[ "$output" == *"process.cwd"* ]]
		[[ "$output" != *escaped* ]]
		[ ! -e "$CV_ROOT/$CV_ID" ]
		run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
		[ "$status" -ne 0 ] || { echo "create, fd $n: $output"; false; }
		[[ "$output" == *"process.cwd"* ]]
		[ ! -e "$CV_ROOT/$CV_ID" ]
	done
	# a cwd through an ordinary symlink still resolves, inside the rootfs
	ln -s /tmp "$CV_BUNDLE/rootfs/tmplink"
	update_config '.process.cwd = "/tmplink" | .process.args = ["pwd"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = /tmp ]
}

@test "scheduler: SCHED_BATCH with nice, SCHED_IDLE, and flags (RESET_ON_FORK resets a negative nice in children)" {
	update_config '.process.scheduler = {"policy": "SCHED_BATCH", "nice": 7}'
	incontainer 'grep ^policy /proc/1/sched; cut -d" " -f19 /proc/1/stat'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ policy\ +:\ +3$ ]]
	[ "${lines[1]}" = 7 ]
	update_config '.process.scheduler = {"policy": "SCHED_IDLE"}'
	incontainer 'grep ^policy /proc/1/sched'
	[[ "$output" =~ policy\ +:\ +5$ ]]
	# pid 1 keeps nice -5; a child it forks starts at 0 with RESET_ON_FORK
	update_config '.process.scheduler = {"policy": "SCHED_OTHER", "nice": -5, "flags": ["SCHED_FLAG_RESET_ON_FORK"]}'
	# (cat in a pipeline is a forked child; a lone busybox applet may run in sh itself)
	incontainer 'cut -d" " -f19 /proc/1/stat; cat /proc/self/stat | cut -d" " -f19'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = -5 ]
	[ "${lines[1]}" = 0 ]
	update_config '.process.scheduler = {"policy": "SCHED_OTHER", "nice": -5}'
	incontainer 'cat /proc/self/stat | cut -d" " -f19'
	[ "$output" = -5 ]
	update_config '.process.scheduler = {"policy": "SCHED_OTHER", "flags": ["SCHED_FLAG_NOPE"]}'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.scheduler.flags[0]: unknown'*'"SCHED_FLAG_NOPE"'* ]]
}

@test "scheduler: SCHED_FIFO where the kernel permits it" {
	update_config '.process.scheduler = {"policy": "SCHED_FIFO", "priority": 10}'
	incontainer 'grep ^policy /proc/1/sched; grep ^prio /proc/1/sched'
	if [ "$status" -ne 0 ]; then
		# RT group scheduling gives a new cpu cgroup no RT runtime: the
		# refusal must name the field
		[[ "$output" == *"process.scheduler: sched_setattr SCHED_FIFO"* ]] || false
		skip "SCHED_FIFO refused here: $output"
	fi
	[[ "${lines[0]}" =~ policy\ +:\ +1$ ]]
	# kernel prio of an RT task is 99 - rt_priority
	[[ "${lines[1]}" =~ prio\ +:\ +89$ ]]
}

@test "ioPriority: class and level as ioprio_get reports them" {
	update_config '.process.ioPriority = {"class": "IOPRIO_CLASS_BE", "priority": 6}'
	incontainer 'ionice -p 1'
	[ "$status" -eq 0 ]
	[[ "$output" == *"best-effort"*"prio 6"* ]]
	update_config '.process.ioPriority = {"class": "IOPRIO_CLASS_IDLE", "priority": 0}'
	incontainer 'ionice -p 1'
	[[ "$output" == *idle* ]]
	update_config '.process.ioPriority = {"class": "IOPRIO_CLASS_NOPE", "priority": 0}'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'process.ioPriority.class: unknown'*'"IOPRIO_CLASS_NOPE"'* ]]
}

@test "personality LINUX32: uname -m reports a 32-bit machine" {
	[ "$(uname -m)" = x86_64 ] || skip "x86_64 only"
	incontainer 'uname -m'
	[ "$output" = x86_64 ]
	update_config '.linux.personality = {"domain": "LINUX32"}'
	incontainer 'uname -m'
	[ "$status" -eq 0 ]
	[ "$output" = i686 ]
}

@test "startContainer hooks run in the container after start, before the program" {
	update_config '.root.readonly = false | .hooks = {"startContainer": [{"path": "/bin/sh", "args": ["sh", "-c", "cat > /tmp/start-state.json; echo $$ > /tmp/hook-pid; readlink /proc/self/ns/mnt > /tmp/hook-mntns"]}]} | .process.args = ["sh", "-c", "cat /tmp/hook-pid; grep -o created /tmp/start-state.json | head -n1; [ \"$(cat /tmp/hook-mntns)\" = \"$(readlink /proc/self/ns/mnt)\" ] && echo same-mntns"]'
	cv_create "$CV_ID"
	# the hook has not run at create
	pid="$(cvisor state "$CV_ID" | jq .pid)"
	[ ! -e "$CV_BUNDLE/rootfs/tmp/hook-pid" ]
	run cvisor start "$CV_ID"
	[ "$status" -eq 0 ]
	for _ in $(seq 100); do [ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ] && break; sleep 0.05; done
	# the hook's files are in the container's rootfs (its mount namespace),
	# its pid is in the container's pid namespace
	[ -s "$CV_BUNDLE/rootfs/tmp/hook-pid" ]
	[ "$(cat "$CV_BUNDLE/rootfs/tmp/hook-pid")" -gt 1 ]
	jq -e ".id == \"$CV_ID\" and .pid == $pid" "$CV_BUNDLE/rootfs/tmp/start-state.json"
	cvisor delete "$CV_ID"
	# with run, the program reads what the hook wrote
	rm -f "$CV_BUNDLE"/rootfs/tmp/hook-* "$CV_BUNDLE/rootfs/tmp/start-state.json"
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" -gt 1 ]
	[ "${lines[1]}" = created ]
	[ "${lines[2]}" = same-mntns ]
}

@test "--pidfd-socket: the pidfd received refers to the container process" {
	recv="$CVISOR_BUILDDIR/tests/integration/recvtty"
	[ -x "$recv" ] || skip "recvtty not built"
	update_config '.process.args = ["sleep", "100"]'
	"$recv" --pidfd "$CV_TMP/pidfd.sock" >"$CV_TMP/pidfd.out" 2>"$CV_TMP/pidfd.err" 3>&- &
	rpid=$!
	cv_track_pid "$rpid"
	for _ in $(seq 100); do [ -S "$CV_TMP/pidfd.sock" ] && break; sleep 0.02; done
	cv_create "$CV_ID" --pidfd-socket "$CV_TMP/pidfd.sock"
	wait "$rpid"
	pid="$(cvisor state "$CV_ID" | jq .pid)"
	cat "$CV_TMP/pidfd.out"
	[ "$(cat "$CV_TMP/pidfd.out")" = "Pid:	$pid" ]
	# run -d as well
	rm -f "$CV_TMP/pidfd.sock"
	"$recv" --pidfd "$CV_TMP/pidfd.sock" >"$CV_TMP/pidfd.out" 2>"$CV_TMP/pidfd.err" 3>&- &
	rpid=$!
	cv_track_pid "$rpid"
	for _ in $(seq 100); do [ -S "$CV_TMP/pidfd.sock" ] && break; sleep 0.02; done
	id2="$(cv_new_id)"
	cvisor run -d --pidfd-socket "$CV_TMP/pidfd.sock" "$id2"
	wait "$rpid"
	pid2="$(cvisor state "$id2" | jq .pid)"
	[ "$(cat "$CV_TMP/pidfd.out")" = "Pid:	$pid2" ]
	# a socket nobody listens on fails create and leaves nothing
	id3="$(cv_new_id)"
	run cvisor create --pidfd-socket "$CV_TMP/none.sock" --bundle "$CV_BUNDLE" "$id3"
	[ "$status" -ne 0 ]
	[[ "$output" == *"pidfd socket"* ]]
	[ ! -e "$CV_ROOT/$id3" ]
}
