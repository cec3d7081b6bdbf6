#!/usr/bin/env bats
# linux.memoryPolicy: the container's init runs under the NUMA policy of
# the config (set_mempolicy), its children inherit it, exec'd processes do
# not (runc's rule); what the kernel refuses fails create with one line
# naming the field, and nothing is left. Node 0 exists on every host.

load helpers

setup() {
	cv_setup
	requires_root
	[ -e /sys/devices/system/node/node0 ] || skip "no NUMA node 0 in sysfs"
	make_bundle
	cd "$CV_BUNDLE"
}

teardown() {
	cv_teardown
}

# mpol_run POLICY-JSON: runs the container printing the policy of the first
# mapping of its own numa_maps (the second field).
mpol_run() {
	update_config ".linux.memoryPolicy = $1 | .process.args = [\"sh\", \"-c\", \"head -n 1 /proc/self/numa_maps | cut -d \\\" \\\" -f 2\"]"
	run cvisor run "$CV_ID"
}

# nothing_left: no container state under --root, no cgroup of this test's id.
nothing_left() {
	run cvisor list -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ -z "$(ls -A "$CV_ROOT" 2>/dev/null)" ]
	[ -z "$(_cv_id_cgroups)" ]
}

@test "memoryPolicy: without one the process has the default policy" {
	update_config '.process.args = ["sh", "-c", "head -n 1 /proc/self/numa_maps | cut -d \" \" -f 2"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = default ]
}

@test "memoryPolicy: MPOL_BIND on node 0 shows in numa_maps" {
	mpol_run '{"mode": "MPOL_BIND", "nodes": "0"}'
	[ "$status" -eq 0 ]
	[ "$output" = bind:0 ]
}

@test "memoryPolicy: MPOL_BIND with MPOL_F_STATIC_NODES" {
	mpol_run '{"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_STATIC_NODES"]}'
	[ "$status" -eq 0 ]
	[ "$output" = bind=static:0 ]
}

@test "memoryPolicy: MPOL_PREFERRED on node 0" {
	mpol_run '{"mode": "MPOL_PREFERRED", "nodes": "0"}'
	[ "$status" -eq 0 ]
	[ "$output" = prefer:0 ]
}

@test "memoryPolicy: MPOL_INTERLEAVE on node 0" {
	mpol_run '{"mode": "MPOL_INTERLEAVE", "nodes": "0"}'
	[ "$status" -eq 0 ]
	[ "$output" = interleave:0 ]
}

@test "memoryPolicy: MPOL_LOCAL" {
	mpol_run '{"mode": "MPOL_LOCAL"}'
	[ "$status" -eq 0 ]
	[ "$output" = local ]
}

@test "memoryPolicy: the init's children keep it, exec'd processes do not (as runc)" {
	update_config '.linux.memoryPolicy = {"mode": "MPOL_BIND", "nodes": "0"} | .process.args = ["sleep", "1000"]'
	cv_create "$CV_ID"
	pid="$(cvisor state "$CV_ID" | jq .pid)"
	[ "$(awk 'NR == 1 { print $2 }' "/proc/$pid/numa_maps")" = bind:0 ]
	run cvisor exec "$CV_ID" sh -c 'head -n 1 /proc/self/numa_maps | cut -d " " -f 2'
	[ "$status" -eq 0 ]
	[ "$output" = default ]
}

# refused POLICY-JSON MESSAGE: create fails with exactly MESSAGE (one line),
# nothing left.
refused() {
	update_config ".linux.memoryPolicy = $1"
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: $2" ]
	nothing_left
}

@test "memoryPolicy: a node that does not exist fails create, nothing left" {
	refused '{"mode": "MPOL_BIND", "nodes": "63"}' \
		'create: linux.memoryPolicy: set_mempolicy MPOL_BIND nodes "63": Invalid argument'
}

@test "memoryPolicy: combinations the kernel refuses fail before anything is made" {
	refused '{"mode": "MPOL_DEFAULT", "nodes": "0"}' \
		'linux.memoryPolicy.nodes: MPOL_DEFAULT takes no nodes'
	refused '{"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_STATIC_NODES", "MPOL_F_RELATIVE_NODES"]}' \
		'linux.memoryPolicy.flags: MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other'
	refused '{"mode": "MPOL_INTERLEAVE"}' \
		'linux.memoryPolicy.nodes: MPOL_INTERLEAVE needs at least one node'
	refused '{"mode": "MPOL_LOCAL", "flags": ["MPOL_F_STATIC_NODES"]}' \
		'linux.memoryPolicy.flags: MPOL_LOCAL takes no flags'
	refused '{"mode": "MPOL_BIND", "nodes": "0-x"}' \
		'linux.memoryPolicy.nodes: invalid node list "0-x" (expected e.g. "0-3,7"): Invalid argument'
}
