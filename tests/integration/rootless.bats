#!/usr/bin/env bats
# Rootless: cvisor run by a real unprivileged user, with subordinate ids
# from /etc/subuid and /etc/subgid mapped through newuidmap/newgidmap
# (Debian's uidmap) and no cgroup (none is delegated to the user here).
#
# setup_file makes a user of its own (user-helpers.bash: subordinate ids
# 400000..465535) and a directory it owns; teardown_file deletes the user's
# containers, the user, its ranges and the directory.

load helpers
load user-helpers

setup_file() {
	tu_make_user 400000 || return 0
}

teardown_file() {
	if [ -n "${TU_DIR:-}" ] && [ -d "$TU_DIR/state" ]; then
		for id in $(as_user "$CVISOR" --root "$TU_DIR/state" list -q 2>/dev/null); do
			as_user "$CVISOR" --root "$TU_DIR/state" delete --force "$id" >/dev/null 2>&1 || true
		done
	fi
	tu_remove_user
}

setup() {
	[ -z "${TU_SKIP:-}" ] || skip "$TU_SKIP"
	cv_setup
	RL_ID="rl-$BATS_TEST_NUMBER"
	RL_BUNDLE="$TU_DIR/bundle-$BATS_TEST_NUMBER"
	mkdir "$RL_BUNDLE"
	busybox_rootfs "$RL_BUNDLE/rootfs"
	chown -R "$TU_USER:$TU_USER" "$RL_BUNDLE"
}

teardown() {
	[ -n "${RL_ID:-}" ] || return 0
	as_user "$CVISOR" --root "$TU_DIR/state" delete --force "$RL_ID" >/dev/null 2>&1 || true
	rm -rf "$RL_BUNDLE"
	cv_teardown
}

# rl_cvisor ARGS...: cvisor as the test user, in the bundle, state under $TU_DIR.
rl_cvisor() {
	(cd "$RL_BUNDLE" && as_user "$CVISOR" --root "$TU_DIR/state" "$@")
}

# rl_in_userns CMD...: CMD as root of a user namespace of the test user's
# (its uid and its subordinate ids mapped), in the bundle: how podman's
# rootless mode runs the runtime.
rl_in_userns() {
	(cd "$RL_BUNDLE" && as_user unshare --user --map-root-user --map-auto "$@")
}

# rl_config FILTER: writes the bundle's config.json from `cvisor spec
# --rootless` (the user's own ids mapped) edited by jq FILTER.
rl_config() {
	rm -f "$RL_BUNDLE/config.json"
	rl_cvisor spec --rootless
	as_user jq ".process.terminal = false | .root.readonly = false | $1" "$RL_BUNDLE/config.json" >"$CV_TMP/config.json"
	cat "$CV_TMP/config.json" >"$RL_BUNDLE/config.json"
}

# The maps of a container whose root is the user, 1..65536 its subordinate
# ids (a jq filter).
sub_maps() {
	echo ".linux.uidMappings = [{\"containerID\":0,\"hostID\":$TU_UID,\"size\":1},{\"containerID\":1,\"hostID\":$TU_SUB,\"size\":65536}]
		| .linux.gidMappings = [{\"containerID\":0,\"hostID\":$TU_GID,\"size\":1},{\"containerID\":1,\"hostID\":$TU_SUB,\"size\":65536}]"
}

@test "rootless: run as an unprivileged user maps its subordinate ids through newuidmap and newgidmap" {
	rl_config "$(sub_maps) | .process.capabilities[] += [\"CAP_CHOWN\"]
		| .process.args = [\"sh\", \"-c\", \"cat /proc/self/uid_map /proc/self/gid_map; id -u; touch /tmp/f && chown 7:8 /tmp/f && echo chowned\"]"
	run rl_cvisor --debug run "$RL_ID"
	[ "$status" -eq 0 ]
	# inside: root, both ranges of each map
	[ "$(printf '%s\n' "$output" | grep -cE "^ +0 +($TU_UID|$TU_GID) +1$")" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -cE "^ +1 +$TU_SUB +65536$")" -eq 2 ]
	[[ "$output" == *chowned* ]]
	# outside: container ids 7 and 8 are subordinate ids 6 and 7 past the start
	[ "$(stat -c %u:%g "$RL_BUNDLE/rootfs/tmp/f")" = "$((TU_SUB + 6)):$((TU_SUB + 7))" ]
	# no cgroup is delegated to the user here: said in --debug only
	[[ "$output" == *"debug: rootless: no cgroup is delegated to uid $TU_UID"* ]]
	[[ "$output" != *"warning"* ]]
	# run deleted it
	[ -z "$(ls -A "$TU_DIR/state")" ]
}

@test "rootless: create, start, state, kill and delete as the user" {
	rl_config "$(sub_maps) | .process.args = [\"sleep\", \"100\"]"
	# the container process inherits stdio: keep it off bats' `run` pipe
	rl_cvisor create "$RL_ID" </dev/null >"$CV_TMP/create.out" 2>&1 || { cat "$CV_TMP/create.out"; false; }
	[ ! -s "$CV_TMP/create.out" ]
	run rl_cvisor start "$RL_ID"
	[ "$status" -eq 0 ]
	run rl_cvisor state "$RL_ID"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r .status)" = running ]
	pid="$(echo "$output" | jq -r .pid)"
	cv_track_pid "$pid"
	# the container's root is the user's uid on the host
	[ "$(stat -c %u "/proc/$pid")" = "$TU_UID" ]
	run rl_cvisor kill "$RL_ID" KILL
	[ "$status" -eq 0 ]
	for _ in $(seq 50); do
		[ "$(rl_cvisor state "$RL_ID" | jq -r .status)" = stopped ] && break
		sleep 0.1
	done
	[ "$(rl_cvisor state "$RL_ID" | jq -r .status)" = stopped ]
	run rl_cvisor delete "$RL_ID"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$TU_DIR/state")" ]
}

@test "rootless: the caller's own ids alone need no helper" {
	rl_config '.process.args = ["sh", "-c", "id -u; cat /proc/self/uid_map"]'
	TU_PATH=/nonexistent run rl_cvisor run "$RL_ID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[[ "${lines[1]}" =~ ^\ +0\ +$TU_UID\ +1$ ]]
}

@test "rootless: a range /etc/subuid does not grant fails with newuidmap's reason, nothing left" {
	rl_config "$(sub_maps) | .linux.uidMappings[1].hostID = $((TU_SUB + 100000))"
	run rl_cvisor run "$RL_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == "cvisor: create: linux.uidMappings: newuidmap refused the map: newuidmap: uid range"*"not allowed" ]]
	[ -z "$(ls -A "$TU_DIR/state")" ]
	# no live process of the user; a zombie is not one: the container an
	# earlier test killed may wait a moment for the host's init to reap it
	! pgrep -u "$TU_USER" -r D,R,S,T,t >/dev/null || false
	# without the helper in PATH, the error says what to install
	rl_config "$(sub_maps)"
	TU_PATH=/nonexistent run rl_cvisor run "$RL_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"linux.uidMappings: mapping more than your own id needs newuidmap (Debian package uidmap), which is not in PATH"* ]]
	[ -z "$(ls -A "$TU_DIR/state")" ]
}

@test "rootless: a limit needs a delegated cgroup: an error naming it, nothing left" {
	rl_config "$(sub_maps) | .linux.resources.memory = {\"limit\": 67108864}"
	run rl_cvisor run "$RL_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"linux.resources.memory: the container has no memory cgroup: rootless, and uid $TU_UID may not create one"* ]]
	[ -z "$(ls -A "$TU_DIR/state")" ]
}

@test "rootless: root in a user namespace (podman's rootless mode): host devices bound, the host's sysfs" {
	unshare --help | grep -q -- --map-auto || skip "unshare has no --map-auto (util-linux 2.38)"
	# the runtime runs as root in the user's own user namespace, and the
	# container has none of its own: mknod and a new sysfs are refused there
	rl_cvisor spec
	as_user jq '.process.terminal = false | .linux.namespaces |= map(select(.type != "network"))
		| .process.args = ["sh", "-c", "id -u; echo x >/dev/null && stat -c \"%t:%T %F\" /dev/null; grep \" /sys \" /proc/self/mountinfo"]' \
		"$RL_BUNDLE/config.json" >"$CV_TMP/config.json"
	cat "$CV_TMP/config.json" >"$RL_BUNDLE/config.json"
	run rl_in_userns "$CVISOR" --root "$TU_DIR/state" --rootless true run "$RL_ID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = "1:3 character special file" ]
	[[ "${lines[2]}" == *" /sys ro,"*" - sysfs "* ]]
	[ -z "$(ls -A "$TU_DIR/state")" ]
}
