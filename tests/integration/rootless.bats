#!/usr/bin/env bats
# Rootless: cvisor run by a real unprivileged user, with subordinate ids
# from /etc/subuid and /etc/subgid mapped through newuidmap/newgidmap
# (Debian's uidmap) and no cgroup (none is delegated to the user here).
#
# setup_file makes a user of its own (cvtrl<pid>, ids RL_SUB..+65535 in
# /etc/subuid and /etc/subgid) and a directory it owns; teardown_file
# deletes the user's containers, the user, its ranges and the directory.

load helpers

RL_SUB=400000

rl_skip_file() {
	export RL_SKIP="$*"
}

setup_file() {
	export RL_SKIP=
	[ "$(id -u)" -eq 0 ] || { rl_skip_file "requires root (to make a test user)"; return 0; }
	command -v newuidmap >/dev/null && command -v newgidmap >/dev/null ||
		{ rl_skip_file "requires newuidmap and newgidmap (Debian package uidmap)"; return 0; }
	command -v setpriv >/dev/null && command -v useradd >/dev/null ||
		{ rl_skip_file "requires setpriv and useradd"; return 0; }
	export RL_USER="cvtrl$$"
	# no automatic ranges (SUB_UID_COUNT): only the one this file grants
	useradd -M -d /nonexistent -s /usr/sbin/nologin -U -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 "$RL_USER"
	usermod --add-subuids "$RL_SUB-$((RL_SUB + 65535))" --add-subgids "$RL_SUB-$((RL_SUB + 65535))" "$RL_USER"
	RL_UID="$(id -u "$RL_USER")"
	RL_GID="$(id -g "$RL_USER")"
	RL="$(mktemp -d /tmp/cvisor-rootless.XXXXXX)"
	chmod 755 "$RL"
	mkdir -m 700 "$RL/home" "$RL/run"
	chown "$RL_USER:$RL_USER" "$RL" "$RL/home" "$RL/run"
	export RL_UID RL_GID RL
	if ! as_user unshare -U true 2>/dev/null; then
		rl_skip_file "this environment refuses a user namespace to an unprivileged user (unshare -U)"
	elif ! as_user test -x "$CVISOR"; then
		rl_skip_file "$CVISOR is not executable by $RL_USER"
	fi
}

teardown_file() {
	[ -n "${RL:-}" ] || return 0
	local id
	for id in $(as_user "$CVISOR" --root "$RL/state" list -q 2>/dev/null); do
		as_user "$CVISOR" --root "$RL/state" delete --force "$id" >/dev/null 2>&1 || true
	done
	usermod --del-subuids "$RL_SUB-$((RL_SUB + 65535))" --del-subgids "$RL_SUB-$((RL_SUB + 65535))" "$RL_USER" || true
	userdel "$RL_USER" || true
	rm -rf "$RL"
}

setup() {
	[ -z "${RL_SKIP:-}" ] || skip "$RL_SKIP"
	cv_setup
	RL_ID="rl-$BATS_TEST_NUMBER"
	RL_BUNDLE="$RL/bundle-$BATS_TEST_NUMBER"
	mkdir "$RL_BUNDLE"
	busybox_rootfs "$RL_BUNDLE/rootfs"
	chown -R "$RL_USER:$RL_USER" "$RL_BUNDLE"
}

teardown() {
	[ -n "${RL_ID:-}" ] || return 0
	as_user "$CVISOR" --root "$RL/state" delete --force "$RL_ID" >/dev/null 2>&1 || true
	rm -rf "$RL_BUNDLE"
	cv_teardown
}

# as_user CMD...: CMD as the test user, its own groups only, a clean
# environment (PATH as given in RL_PATH, default the usual one).
as_user() {
	setpriv --reuid="$RL_USER" --regid="$RL_USER" --clear-groups \
		env -i PATH="${RL_PATH:-/usr/sbin:/usr/bin:/sbin:/bin}" HOME="$RL/home" XDG_RUNTIME_DIR="$RL/run" "$@"
}

# rl_cvisor ARGS...: cvisor as the test user, in the bundle, state under $RL.
rl_cvisor() {
	(cd "$RL_BUNDLE" && as_user "$CVISOR" --root "$RL/state" "$@")
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
	echo ".linux.uidMappings = [{\"containerID\":0,\"hostID\":$RL_UID,\"size\":1},{\"containerID\":1,\"hostID\":$RL_SUB,\"size\":65536}]
		| .linux.gidMappings = [{\"containerID\":0,\"hostID\":$RL_GID,\"size\":1},{\"containerID\":1,\"hostID\":$RL_SUB,\"size\":65536}]"
}

@test "rootless: run as an unprivileged user maps its subordinate ids through newuidmap and newgidmap" {
	rl_config "$(sub_maps) | .process.capabilities[] += [\"CAP_CHOWN\"]
		| .process.args = [\"sh\", \"-c\", \"cat /proc/self/uid_map /proc/self/gid_map; id -u; touch /tmp/f && chown 7:8 /tmp/f && echo chowned\"]"
	run rl_cvisor --debug run "$RL_ID"
	[ "$status" -eq 0 ]
	# inside: root, both ranges of each map
	[ "$(printf '%s\n' "$output" | grep -cE "^ +0 +($RL_UID|$RL_GID) +1$")" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -cE "^ +1 +$RL_SUB +65536$")" -eq 2 ]
	[[ "$output" == *chowned* ]]
	# outside: container ids 7 and 8 are subordinate ids 6 and 7 past the start
	[ "$(stat -c %u:%g "$RL_BUNDLE/rootfs/tmp/f")" = "$((RL_SUB + 6)):$((RL_SUB + 7))" ]
	# no cgroup is delegated to the user here: said in --debug only
	[[ "$output" == *"debug: rootless: no cgroup is delegated to uid $RL_UID"* ]]
	[[ "$output" != *"warning"* ]]
	# run deleted it
	[ -z "$(ls -A "$RL/state")" ]
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
	[ "$(stat -c %u "/proc/$pid")" = "$RL_UID" ]
	run rl_cvisor kill "$RL_ID" KILL
	[ "$status" -eq 0 ]
	for _ in $(seq 50); do
		[ "$(rl_cvisor state "$RL_ID" | jq -r .status)" = stopped ] && break
		sleep 0.1
	done
	[ "$(rl_cvisor state "$RL_ID" | jq -r .status)" = stopped ]
	run rl_cvisor delete "$RL_ID"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$RL/state")" ]
}

@test "rootless: the caller's own ids alone need no helper" {
	rl_config '.process.args = ["sh", "-c", "id -u; cat /proc/self/uid_map"]'
	RL_PATH=/nonexistent run rl_cvisor run "$RL_ID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[[ "${lines[1]}" =~ ^\ +0\ +$RL_UID\ +1$ ]]
}

@test "rootless: a range /etc/subuid does not grant fails with newuidmap's reason, nothing left" {
	rl_config "$(sub_maps) | .linux.uidMappings[1].hostID = $((RL_SUB + 100000))"
	run rl_cvisor run "$RL_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == "cvisor: create: linux.uidMappings: newuidmap refused the map: newuidmap: uid range"*"not allowed" ]]
	[ -z "$(ls -A "$RL/state")" ]
	! pgrep -u "$RL_USER" >/dev/null || false
	# without the helper in PATH, the error says what to install
	rl_config "$(sub_maps)"
	RL_PATH=/nonexistent run rl_cvisor run "$RL_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"linux.uidMappings: mapping more than your own id needs newuidmap (Debian package uidmap), which is not in PATH"* ]]
	[ -z "$(ls -A "$RL/state")" ]
}

@test "rootless: a limit needs a delegated cgroup: an error naming it, nothing left" {
	rl_config "$(sub_maps) | .linux.resources.memory = {\"limit\": 67108864}"
	run rl_cvisor run "$RL_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"linux.resources.memory: the container has no memory cgroup: rootless, and uid $RL_UID may not create one"* ]]
	[ -z "$(ls -A "$RL/state")" ]
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
	run rl_in_userns "$CVISOR" --root "$RL/state" --rootless true run "$RL_ID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = "1:3 character special file" ]
	[[ "${lines[2]}" == *" /sys ro,"*" - sysfs "* ]]
	[ -z "$(ls -A "$RL/state")" ]
}
