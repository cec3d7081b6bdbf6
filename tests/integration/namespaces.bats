#!/usr/bin/env bats
# Namespaces: user (maps), network (loopback up), time offsets, joining by
# path, and sysctl ownership checks.

load helpers

setup() {
	cv_setup
	requires_root
	make_bundle
	cd "$CV_BUNDLE"
}

teardown() {
	# A container without a mount namespace whose delete failed leaves its
	# mounts on the rootfs, in our namespace: not past this test.
	local r
	if [ -n "${CV_BUNDLE:-}" ] && r="$(realpath "$CV_BUNDLE/rootfs" 2>/dev/null)"; then
		while mountpoint -q "$r"; do umount -l "$r" || break; done
	fi
	cv_teardown
}

@test "a new user namespace gets the configured maps (several ranges)" {
	# The mapped root must be able to reach the bundle.
	d="$CV_BUNDLE"
	while [ "$d" != / ]; do chmod a+x "$d"; d="$(dirname "$d")"; done
	chown -R 100000:100000 "$CV_BUNDLE/rootfs"
	update_config '.linux.namespaces += [{"type": "user"}] | .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 1000}, {"containerID": 1000, "hostID": 200000, "size": 10}] | .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] | .process.args = ["cat", "/proc/self/uid_map", "/proc/self/gid_map"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^\ +0\ +100000\ +1000$ ]]
	[[ "${lines[1]}" =~ ^\ +1000\ +200000\ +10$ ]]
	[[ "${lines[2]}" =~ ^\ +0\ +100000\ +65536$ ]]
}

@test "every namespace new, ids mapped to 100000+, a bind mount from a 0700 directory: create, start, exec, kill, delete" {
	requires jq
	d="$CV_BUNDLE"
	while [ "$d" != / ]; do chmod a+x "$d"; d="$(dirname "$d")"; done
	chown -R 100000:100000 "$CV_BUNDLE/rootfs"
	# the source sits below a directory only the host's root may enter
	mkdir -m 0700 "$CV_TMP/private"
	mkdir "$CV_TMP/private/data"
	echo secret-data >"$CV_TMP/private/data/file"
	update_config ".linux.namespaces = [{\"type\":\"pid\"},{\"type\":\"network\"},{\"type\":\"ipc\"},{\"type\":\"uts\"},{\"type\":\"mount\"},{\"type\":\"user\"},{\"type\":\"cgroup\"}]
		| .linux.uidMappings = [{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]
		| .linux.gidMappings = [{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]
		| .mounts += [{\"destination\": \"/data\", \"type\": \"bind\", \"source\": \"$CV_TMP/private/data\", \"options\": [\"rbind\", \"ro\"]}]
		| .process.args = [\"sleep\", \"100\"]"
	cv_create "$CV_ID"
	cvisor start "$CV_ID"
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = running ]
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	[ "$(stat -c %u "/proc/$pid")" = 100000 ]
	run cvisor exec "$CV_ID" sh -c 'id -u; cat /data/file; head -1 /proc/self/uid_map'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = secret-data ]
	[[ "${lines[2]}" =~ ^\ +0\ +100000\ +65536$ ]]
	cvisor kill "$CV_ID" KILL
	for _ in $(seq 100); do [ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ] && break; sleep 0.05; done
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ]
	cvisor delete "$CV_ID"
	run cvisor state "$CV_ID"
	[[ "$output" == *"does not exist"* ]]
}

# Mounts of ours below DIR in this mount namespace.
mounts_below() {
	awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

@test "no mount namespace: mounts in the caller's namespace on the rootfs, a chroot, nothing left after delete" {
	requires jq
	rootfs="$(realpath "$CV_BUNDLE/rootfs")"
	before="$(mounts_below "$rootfs")"
	update_config '.linux.namespaces |= map(select(.type != "mount")) | .process.args = ["sleep", "100"]'
	echo only-in-rootfs >"$rootfs/marker"
	cv_create "$CV_ID"
	cvisor start "$CV_ID"
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	# our mount namespace, the rootfs as its root
	[ "$(readlink "/proc/$pid/ns/mnt")" = "$(readlink /proc/self/ns/mnt)" ]
	[ "$(readlink "/proc/$pid/root")" = "$rootfs" ]
	# its mounts are ours too, on the bundle's rootfs
	mounts_below "$rootfs" | grep -qx "$rootfs/proc"
	mounts_below "$rootfs" | grep -qx "$rootfs/dev"
	# exec lands in the same root (a file only the rootfs has) and sees
	# the container's own /proc and /dev
	run cvisor exec "$CV_ID" sh -c 'cat /marker; cat /proc/1/comm; ls /dev/null'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = only-in-rootfs ]
	[ "${lines[1]}" = sleep ]
	[ "${lines[2]}" = /dev/null ]
	cvisor kill "$CV_ID" KILL
	for _ in $(seq 100); do [ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ] && break; sleep 0.05; done
	cvisor delete "$CV_ID"
	[ "$(mounts_below "$rootfs")" = "$before" ]
}

@test "no mount namespace: run and a failing create leave nothing mounted" {
	rootfs="$(realpath "$CV_BUNDLE/rootfs")"
	before="$(mounts_below "$rootfs")"
	update_config '.linux.namespaces |= map(select(.type != "mount")) | .process.args = ["sh", "-c", "test -e /proc/self/status && echo in"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = in ]
	[ "$(mounts_below "$rootfs")" = "$before" ]
	# a mount that fails half way: the ones before it are gone too
	update_config '.mounts += [{"destination": "/mnt/bad", "type": "tmpfs", "source": "tmpfs", "options": ["bogusopt=1"]}]'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *bogusopt* ]]
	[ "$(mounts_below "$rootfs")" = "$before" ]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "no mount namespace: a user namespace or the host's root is refused before anything exists" {
	update_config '.linux.namespaces = [{"type": "pid"}, {"type": "user"}]
		| .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]
		| .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"a user namespace needs a mount namespace too"* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
	update_config '.linux.namespaces = [{"type": "pid"}] | .root.path = "/"'
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"root.path \`/\`: the host's root needs a mount namespace"* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "a new network namespace has loopback up" {
	update_config '.process.args = ["cat", "/sys/class/net/lo/operstate", "/sys/class/net/lo/flags"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = 0x9 ]
}

# The network namespace is made beside the container process, while it
# mounts (cv_netns_maker): by the time anything looks, it is the
# container's own, and the helper that made it is gone.
@test "a new network namespace is the container's before sysfs, the hooks and the program see it" {
	requires jq
	cat >"$CV_TMP/hook" <<'HOOK'
#!/bin/sh
pid="$(jq -r .pid)"
readlink "/proc/$pid/ns/net" >"$0.out"
HOOK
	chmod +x "$CV_TMP/hook"
	update_config ".hooks = {\"prestart\": [{\"path\": \"$CV_TMP/hook\"}]}
		| .process.args = [\"sh\", \"-c\", \"readlink /proc/self/ns/net; ls /sys/class/net; cat /sys/class/net/lo/operstate /sys/class/net/lo/flags; echo /proc/[0-9]*\"]"
	run cvisor run "$CV_ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" != "$(readlink /proc/self/ns/net)" ]
	[ "${lines[0]}" = "$(cat "$CV_TMP/hook.out")" ]
	# sysfs was mounted in it: only its loopback, up
	[ "${lines[1]}" = lo ]
	[ "${lines[3]}" = 0x9 ]
	# in its pid namespace only sh, pid 1, is left: no helper. The shell
	# expands the glob itself, so no child of its own races the listing.
	[ "${lines[4]}" = /proc/1 ]
	# and the helper's pid was given back: the first process the
	# container makes is pid 2, as without a helper
	id2="$CV_ID-2"; echo "$id2" >>"$CV_TMP/.ids"
	update_config '.hooks = null | .process.args = ["sh", "-c", "true & echo $!; wait"]'
	run cvisor run "$id2"
	[ "$status" -eq 0 ]
	[ "$output" = 2 ]
}

@test "time namespace offsets are applied before the process runs" {
	[ -e /proc/self/ns/time ] || skip "no time namespaces"
	update_config '.linux.namespaces += [{"type": "time"}] | .linux.timeOffsets = {"boottime": {"secs": 86400, "nanosecs": 0}} | .process.args = ["cat", "/proc/uptime"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	host="$(cut -d. -f1 /proc/uptime)"
	ours="$(echo "$output" | cut -d. -f1)"
	[ "$((ours - host))" -ge 86000 ]
}

@test "joining a namespace by path" {
	update_config '.process.args = ["sleep", "100"]'
	cvisor run -d "$CV_ID" </dev/null >/dev/null 2>&1
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	id2="$CV_ID-2"; echo "$id2" >>"$CV_TMP/.ids"
	update_config ".linux.namespaces |= map(if .type == \"uts\" then .path = \"/proc/$pid/ns/uts\" else . end) | .hostname = null | .process.args = [\"readlink\", \"/proc/self/ns/uts\"]"
	run cvisor run "$id2"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(readlink /proc/$pid/ns/uts)" ]
}

# A pod's container with user namespaces (and a sandbox run of a library
# sandbox): its own user, pid and mount namespaces, the network namespace
# of another process. The new pid namespace must belong to the new user
# namespace, or /proc cannot be mounted there (EPERM, as it was).
@test "a new user and pid namespace with a network namespace joined by path: /proc mounts, the network is the joined one" {
	requires jq
	unshare -n sleep 4744 &
	local holder=$!
	cv_track_pid $holder
	for _ in $(seq 50); do [ "$(readlink /proc/$holder/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break; sleep 0.05; done
	d="$CV_BUNDLE"
	while [ "$d" != / ]; do chmod a+x "$d"; d="$(dirname "$d")"; done
	chown -R 100000:100000 "$CV_BUNDLE/rootfs"
	update_config ".linux.namespaces = [{\"type\":\"pid\"},{\"type\":\"network\",\"path\":\"/proc/$holder/ns/net\"},{\"type\":\"ipc\"},{\"type\":\"uts\"},{\"type\":\"mount\"},{\"type\":\"user\"}]
		| .linux.uidMappings = [{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]
		| .linux.gidMappings = [{\"containerID\": 0, \"hostID\": 100000, \"size\": 65536}]
		| .process.args = [\"sh\", \"-c\", \"echo pid=\$\$; readlink /proc/self/ns/net; ls /proc/1/ns/ >/dev/null && echo proc-ok\"]"
	run cvisor run "$CV_ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = pid=1 ]
	[ "${lines[1]}" = "$(readlink /proc/$holder/ns/net)" ]
	[ "${lines[2]}" = proc-ok ]
	kill $holder
}

@test "sysctl: allowed in an owned namespace, refused otherwise" {
	update_config '.linux.sysctl = {"net.ipv4.ip_forward": "1"} | .process.args = ["cat", "/proc/sys/net/ipv4/ip_forward"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = 1 ]
	update_config '.linux.namespaces |= map(select(.type != "network"))'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'"net.ipv4.ip_forward" needs the container to have its own network namespace'* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
	update_config '.linux.sysctl = {"vm.swappiness": "1"}'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'"vm.swappiness" is not namespaced'* ]]
}
