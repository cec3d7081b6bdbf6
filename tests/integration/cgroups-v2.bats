#!/usr/bin/env bats
# cgroup v2 for real: this host is hybrid, so these tests boot a qemu guest
# (tests/vm/run-cgroup2.sh: Debian kernel, cgroup2 with every controller at
# /sys/fs/cgroup) and run the cgroup and sandbox tests inside it.

load helpers

vm() {
	local runner="$CVISOR_SRCDIR/tests/vm/run-cgroup2.sh"
	# generous: qemu emulates the CPU (TCG), and a loaded host slows it
	run "$runner" --timeout 1500 -- "$@"
	echo "$output"
	[ "$status" -ne 77 ] || skip "cannot boot the cgroup v2 guest: ${lines[-1]}"
}

# One bats file of this tree, run in the guest: it must pass there.
vm_bats() {
	vm env CVISOR="$CVISOR" CVISOR_BUILDDIR="$CVISOR_BUILDDIR" CVISOR_SRCDIR="$CVISOR_SRCDIR" \
		bats --tap "$CVISOR_SRCDIR/tests/integration/$1"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 1 "* ]]
	[[ "$output" != *"not ok"* ]]
}

@test "v2 guest: the cgroup manager's live test (create, resources, devices eBPF, freeze, kill, destroy)" {
	requires_root
	live="$CVISOR_BUILDDIR/tests/unit/test_cgroups_live"
	[ -x "$live" ] || skip "build tests/unit/test_cgroups_live first (make check builds it)"
	vm "$live"
	[ "$status" -eq 0 ]
	[[ "$output" == *"# layout: unified"* ]]
	[[ "$output" != *"not ok"* ]]
}

@test "v2 guest: every cgroups.bats test on a pure cgroup v2 host (limits, pause, kill, update, events)" {
	requires_root
	requires bats jq
	vm_bats cgroups.bats
}

@test "v2 guest: every sandbox.bats test on a pure cgroup v2 host (cvisor do: limits, report, timeout, cleanup)" {
	requires_root
	requires bats jq
	vm_bats sandbox.bats
	# the limits themselves ran, not skipped
	grep -qxE 'ok [0-9]+ sandbox: memory limit hit is reported \(OOM kill counter\)' <<<"$output"
	grep -qxE 'ok [0-9]+ sandbox: processes limit hit is reported \(pids events\)' <<<"$output"
}

@test "v2 guest: every sandbox-api.bats test on a pure cgroup v2 host (libcvisor sandboxes: overlay, limits, sessions)" {
	requires_root
	requires bats jq
	vm_bats sandbox-api.bats
	grep -qxE 'ok [0-9]+ sandbox api: limits: memory \(OOM\), processes and a CPU share are enforced and reported' <<<"$output"
}
