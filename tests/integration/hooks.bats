#!/usr/bin/env bats
# OCI hooks: order, state JSON on stdin, args/env, failures and timeouts.

load helpers

setup() {
	cv_setup
	requires_root
	make_bundle
	cd "$CV_BUNDLE"
	# Host-side log for runtime-namespace hooks; the container-side ones log
	# into the rootfs (they run before pivot_root / inside the container).
	cat >"$CV_TMP/hook" <<HOOK
#!/bin/sh
read -r state
echo "\$1 \$(echo "\$state" | jq -r .status) \$(echo "\$state" | jq -r .id) A=\$A home=\$(env | grep -c ^HOME=)" >>"$CV_TMP/log"
HOOK
	chmod +x "$CV_TMP/hook"
}

teardown() {
	cv_teardown
}

hook() { # hook NAME
	echo "{\"path\": \"$CV_TMP/hook\", \"args\": [\"hook\", \"$1\"], \"env\": [\"A=1\"]}"
}

@test "hooks run in order with the state on stdin and exactly their env" {
	requires jq
	update_config ".hooks = {\"prestart\": [$(hook prestart)], \"createRuntime\": [$(hook createRuntime)], \"createContainer\": [$(hook createContainer)], \"poststart\": [$(hook poststart)], \"poststop\": [$(hook poststop)]}"
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	run cat "$CV_TMP/log"
	[ "${lines[0]}" = "prestart creating $CV_ID A=1 home=0" ]
	[ "${lines[1]}" = "createRuntime creating $CV_ID A=1 home=0" ]
	[ "${lines[2]}" = "createContainer creating $CV_ID A=1 home=0" ]
	[ "${lines[3]}" = "poststart running $CV_ID A=1 home=0" ]
	[ "${lines[4]}" = "poststop stopped $CV_ID A=1 home=0" ]
}

@test "a hook without env gets the runtime's environment, one with an empty env none" {
	# runc's hooks are Go's exec.Cmd with a nil Env: the runtime's environment
	local log="$CV_TMP/envlog"
	update_config ".hooks = {\"prestart\": [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"echo \\\"inherit mark=\$CVT_MARK path=\$PATH\\\" >>$log\"]}],
		\"poststop\": [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"echo \\\"empty mark=\$CVT_MARK\\\" >>$log\"], \"env\": []}]}"
	CVT_MARK=hooked PATH=/usr/bin:/bin:/usr/sbin:/sbin run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	run cat "$log"
	[ "${lines[0]}" = "inherit mark=hooked path=/usr/bin:/bin:/usr/sbin:/sbin" ]
	[ "${lines[1]}" = "empty mark=" ]
}

@test "a failing createRuntime hook aborts create and leaves nothing" {
	update_config ".hooks = {\"createRuntime\": [{\"path\": \"/bin/false\"}]}"
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"createRuntime hook #0 (\`/bin/false\`): exited with status 1"* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "a hook over its timeout is killed and reported" {
	update_config ".hooks = {\"prestart\": [{\"path\": \"/bin/sleep\", \"args\": [\"sleep\", \"10\"], \"timeout\": 1}]}"
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"prestart hook #0 (\`/bin/sleep\`) timed out after 1 s"* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "a failing poststart hook is only a warning" {
	update_config ".hooks = {\"poststart\": [{\"path\": \"/bin/false\"}]}"
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"poststart hook #0"* ]]
}
