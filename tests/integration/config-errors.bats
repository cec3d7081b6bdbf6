#!/usr/bin/env bats
# Malformed and invalid config.json files: `create` fails with one line that
# names the field or path, exits 1, and leaves nothing under --root.

load helpers

# create_fails EXPECTED: runs create on $CV_BUNDLE and checks the exact
# message, the exit status and that no container state was left behind.
create_fails() {
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: $1" ]
	run cvisor list -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$(ls -A "$CV_ROOT" 2>/dev/null)" ]
}

@test "config: truncated JSON names the byte offset" {
	make_bundle
	printf '{"ociVersion": "1.0.2", ' > "$CV_BUNDLE/config.json"
	create_fails 'config.json: invalid JSON at byte 24: parse error: premature EOF'
}

@test "config: a non-object document" {
	make_bundle
	printf '[1, 2]' > "$CV_BUNDLE/config.json"
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == "cvisor: config.json: "* ]]
	[ "$(echo "$output" | wc -l)" -eq 1 ]
}

@test "config: unsupported major ociVersion" {
	make_bundle
	update_config '.ociVersion = "2.0.0"'
	create_fails 'config.json: ociVersion: unsupported major version "2.0.0" (want 1.x)'
}

@test "config: wrong type names the JSON path" {
	make_bundle
	update_config '.process.user.uid = "root"'
	create_fails 'config.json: process.user.uid: expected a non-negative integer, got "root"'
}

@test "config: missing required property" {
	make_bundle
	update_config 'del(.ociVersion)'
	create_fails 'config.json: missing required property "ociVersion"'
}

@test "config: unknown enum value names the array element" {
	make_bundle
	update_config '.linux.namespaces[2].type = "foo"'
	create_fails 'config.json: linux.namespaces[2].type: unknown namespace type "foo"'
}

@test "config: relative process.cwd" {
	make_bundle
	update_config '.process.cwd = "relative"'
	create_fails 'config.json: process.cwd: must be an absolute path, got "relative"'
}

@test "config: missing rootfs names the path" {
	make_bundle
	update_config '.root.path = "nonexistent"'
	create_fails "root.path: rootfs \`$CV_BUNDLE/nonexistent\`: No such file or directory"
}

@test "config: missing config.json names the file" {
	make_bundle
	rm "$CV_BUNDLE/config.json"
	create_fails "open \`$CV_BUNDLE/config.json\`: No such file or directory"
}

@test "config: missing bundle directory" {
	make_bundle
	CV_BUNDLE=$CV_TMP/nonexistent
	create_fails "bundle \`$CV_TMP/nonexistent\`: No such file or directory"
}

@test "config: unknown properties are ignored" {
	make_bundle
	update_config '.futureProperty = {"a": 1} | .process.futureToo = true'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ]
}

@test "config: the container's own error wins when it fails before the runtime reads its pid" {
	# Without the namespace handshake the child runs ahead. strace slows
	# each open of the runtime (not of the child: no -f) by 0.1 s, so the
	# child has surely failed and exited before the runtime reads
	# /proc/PID/stat; the error must still be the child's, not ESRCH.
	requires strace
	requires_root
	make_bundle
	update_config '.linux.sysctl = {"net.ipv4.ip_forward": "1"} | .linux.namespaces |= map(select(.type != "network"))'
	run strace -o /dev/null -e trace=openat -e inject=openat:delay_enter=100000 \
		"$CVISOR" --root "$CV_ROOT" run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: create: linux.sysctl: "net.ipv4.ip_forward" needs the container to have its own network namespace: Operation not permitted' ]
	[ -z "$(ls -A "$CV_ROOT" 2>/dev/null)" ]
}
