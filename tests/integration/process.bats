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
