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

@test "noNewPrivileges and oomScoreAdj" {
	update_config '.process.noNewPrivileges = true | .process.oomScoreAdj = 500'
	incontainer 'grep NoNewPrivs /proc/self/status; cat /proc/self/oom_score_adj'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *1 ]]
	[ "${lines[1]}" = 500 ]
}

@test "create: the caller's fds without O_CLOEXEC are closed in the waiting container process" {
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
		ls -l /proc/"$p"/fd
		! ls -l /proc/"$p"/fd | grep -q -e "$CV_TMP/nine" -e ' 7 -> ' -e ' 9 -> '
	done
	# --preserve-fds keeps fd 3 (and only the range asked for)
	id3="$(cv_new_id)"
	"$CVISOR" --root "$CV_ROOT" create --preserve-fds 1 --bundle "$CV_BUNDLE" "$id3" 3>"$CV_TMP/three" 9>"$CV_TMP/nine" </dev/null >/dev/null 2>&1
	pid3="$(cvisor state "$id3" | jq .pid)"
	ls -l /proc/"$pid3"/fd | grep -q "$CV_TMP/three"
	! ls -l /proc/"$pid3"/fd | grep -q "$CV_TMP/nine"
}
