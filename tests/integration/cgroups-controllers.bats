#!/usr/bin/env bats
# annotations["org.cvisor.cgroup.controllers"]: the container joins only the
# v1 hierarchies holding a listed controller (see cgroups.h). Checked on this
# host's real hierarchies from the outside: /proc/PID/cgroup, the limit files,
# what is left after delete, and the one-line refusals.

load helpers

ANN=org.cvisor.cgroup.controllers

setup() {
	cv_setup
	requires_root
	[ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && skip "v1/hybrid host only (pure v2 keeps one directory)"
	make_bundle
}

teardown() {
	cv_teardown
}

# Like `run`, for commands that leave a container running: its process keeps
# the command's stdout, so the output goes through a file, not a pipe.
detached() {
	"$@" >"$CV_TMP/detached.out" 2>&1 </dev/null 3>&- 251>&- && status=0 || status=$?
	output=$(cat "$CV_TMP/detached.out")
}

# The path of hierarchy CTRL (as /proc/*/cgroup names it: "memory",
# "cpu,cpuacct", "name=systemd", "" for cgroup2) in /proc/PID/cgroup.
cg_of() {
	local pid=$1 ctrl=$2
	awk -F: -v c="$ctrl" '$2 == c { print $3 }' "/proc/$pid/cgroup"
}

# Every v1 hierarchy name of this host, as /proc/self/cgroup lists them.
hierarchies() {
	awk -F: '$2 != "" { print $2 }' /proc/self/cgroup
}

# Any directory named after ID in any hierarchy (and under our own memory
# cgroup, where the memory one nests): printed, so `[ -z ... ]` fails loudly.
leftovers() {
	local id=$1
	# other tests make and remove cgroups meanwhile: find fails on one
	# gone during the walk, which says nothing about ours
	find /sys/fs/cgroup -mindepth 2 -type d -name "*$id*" 2>/dev/null || true
}

set_annotation() {
	update_config '.annotations["'"$ANN"'"] = "'"$1"'"'
}

# One line on stderr, exactly; no state, no cgroup left.
refused() {
	local want=$1 id
	id=$(cv_new_id)
	run cvisor run --bundle "$CV_BUNDLE" "$id"
	[ "$status" -ne 0 ] || { echo "status 0: $output"; false; }
	[ "$output" = "cvisor: $want" ] || { echo "got:  $output"; echo "want: cvisor: $want"; false; }
	[ ! -e "$CV_ROOT/$id" ] || { ls -la "$CV_ROOT/$id"; false; }
	local left
	left=$(leftovers "$id")
	[ -z "$left" ] || { echo "left: $left"; false; }
}

@test "memory,pids: directories in the memory and pids hierarchies only, limits applied, nothing left after delete" {
	set_annotation memory,pids
	update_config '.process.args = ["sleep", "60"] | .linux.resources = {"memory": {"limit": 33554432}, "pids": {"limit": 17}}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	pid=$(cvisor state "$CV_ID" | jq .pid)
	[ "$pid" -gt 0 ]
	cat "/proc/$pid/cgroup"
	mem=$(cg_of "$pid" memory)
	pids=$(cg_of "$pid" pids)
	[ "$mem" = "$(cg_of $$ memory | sed 's,/$,,')/$CV_ID" ]
	[ "$pids" = "$(cg_of $$ pids | sed 's,/$,,')/$CV_ID" ]
	# everywhere else it stays where the runtime was: our own cgroup
	for h in $(hierarchies) ""; do
		case "$h" in memory | pids) continue ;; esac
		[ "$(cg_of "$pid" "$h")" = "$(cg_of $$ "$h")" ] || { echo "hierarchy '$h' moved"; false; }
	done
	for h in blkio freezer devices cpuset; do
		[ -z "$(find "/sys/fs/cgroup/$h" -type d -name "$CV_ID")" ] || { echo "directory in $h"; false; }
	done
	[ "$(cat "/sys/fs/cgroup/memory$mem/memory.limit_in_bytes")" = 33554432 ]
	[ "$(cat "/sys/fs/cgroup/pids$pids/pids.max")" = 17 ]
	grep -qx "$pid" "/sys/fs/cgroup/memory$mem/cgroup.procs"
	grep -qx "$pid" "/sys/fs/cgroup/pids$pids/cgroup.procs"
	# the list is saved with the directories
	jq -e '.cgroupPaths["cvisor:controllers"] == "memory,pids"' "$CV_ROOT/$CV_ID/state.json"
	[ "$(jq -r '.cgroupPaths | keys | map(select(startswith("created:") | not)) | sort | join(" ")' \
		"$CV_ROOT/$CV_ID/state.json")" = "cvisor:controllers memory pids" ]

	run cvisor ps "$CV_ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *"$pid"* ]] || { echo "$output"; false; }
	run cvisor kill "$CV_ID" KILL
	[ "$status" -eq 0 ]
	for _ in $(seq 100); do [ -e "/proc/$pid" ] || break; sleep 0.05; done
	run cvisor delete "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ ! -e "/sys/fs/cgroup/memory$mem" ]
	[ ! -e "/sys/fs/cgroup/pids$pids" ]
	for d in /sys/fs/cgroup/*/; do
		[ -z "$(find "$d" -type d -name "*$CV_ID*")" ] || { echo "left in $d"; false; }
	done
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "pause without the freezer hierarchy fails clearly; update of a missing one too; stats report what exists" {
	set_annotation memory,pids
	update_config '.process.args = ["sleep", "60"] | .linux.resources = {"memory": {"limit": 33554432}}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run cvisor pause "$CV_ID"
	[ "$status" -ne 0 ]
	[ "$output" = "cvisor: cannot pause: the container has no freezer cgroup (annotation $ANN \"memory,pids\")" ] ||
		{ echo "$output"; false; }
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = running ]
	run cvisor resume "$CV_ID"
	[ "$status" -ne 0 ]
	run cvisor update --cpu-share 100 "$CV_ID"
	[ "$status" -ne 0 ]
	[ "$output" = "cvisor: update container \"$CV_ID\": linux.resources.cpu: the container has no cpu cgroup (annotation $ANN \"memory,pids\")" ] ||
		{ echo "$output"; false; }
	run cvisor update --memory 48m --pids-limit 9 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	pid=$(cvisor state "$CV_ID" | jq .pid)
	[ "$(cat "/sys/fs/cgroup/memory$(cg_of "$pid" memory)/memory.limit_in_bytes")" = 50331648 ]
	[ "$(cat "/sys/fs/cgroup/pids$(cg_of "$pid" pids)/pids.max")" = 9 ]
	run cvisor events --stats "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	echo "$output" | jq -e '.data.memory.usage.limit == 50331648 and .data.pids.limit == 9 and .data.pids.current >= 1'
	cvisor delete --force "$CV_ID"
	[ -z "$(leftovers "$CV_ID")" ]
}

@test "kill --all, ps and delete work with a hierarchy that is not the usual process one (blkio alone)" {
	set_annotation blkio
	# the default spec's deny-all device rule needs the devices hierarchy
	update_config '.process.args = ["sh", "-c", "sleep 60 & sleep 60"] | del(.linux.resources.devices)'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	pid=$(cvisor state "$CV_ID" | jq .pid)
	[ "$(cg_of "$pid" blkio)" = "$(cg_of $$ blkio | sed 's,/$,,')/$CV_ID" ]
	[ "$(cg_of "$pid" memory)" = "$(cg_of $$ memory)" ]
	for _ in $(seq 100); do
		n=$(cvisor ps --format json "$CV_ID" | jq length)
		[ "$n" -ge 2 ] && break
		sleep 0.05
	done
	[ "$n" -ge 2 ] || { cvisor ps "$CV_ID"; false; }
	run cvisor kill --all "$CV_ID" KILL
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	for _ in $(seq 100); do [ -e "/proc/$pid" ] || break; sleep 0.05; done
	run cvisor delete "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -z "$(leftovers "$CV_ID")" ]
}

@test "run in the foreground with memory,pids,cpu,cpuacct: exit status kept, nothing left" {
	set_annotation memory,pids,cpu,cpuacct
	update_config '.process.args = ["sh", "-c", "grep -E \":(memory|pids|freezer|devices):\" /proc/self/cgroup; exit 3"]
		| .linux.resources = {"memory": {"limit": 33554432}, "pids": {"limit": 20}, "cpu": {"shares": 256}}
		| .linux.namespaces |= map(select(.type != "cgroup"))'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 3 ] || { echo "$output"; false; }
	echo "$output" | grep -q ":memory:.*/$CV_ID\$"
	echo "$output" | grep -q ":pids:/.*$CV_ID\$"
	local cg="$output"
	run ! grep ":freezer:.*$CV_ID" <<<"$cg"
	run ! grep ":devices:.*$CV_ID" <<<"$cg"
	[ -z "$(leftovers "$CV_ID")" ]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "hybrid: the cgroup2 hierarchy is joined only when unified is listed" {
	[ -e /sys/fs/cgroup/unified/cgroup.procs ] || skip "hybrid layout only"
	set_annotation memory,unified
	update_config '.process.args = ["sleep", "60"] | del(.linux.resources.devices)'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	pid=$(cvisor state "$CV_ID" | jq .pid)
	[ "$(cg_of "$pid" "")" = "$(cg_of $$ "" | sed 's,/$,,')/$CV_ID" ]
	[ "$(cg_of "$pid" pids)" = "$(cg_of $$ pids)" ]
	# the cgroup2 freezer stands in for the missing v1 one
	run cvisor pause "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = paused ]
	run cvisor resume "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	cvisor delete --force "$CV_ID"
	[ -z "$(leftovers "$CV_ID")" ]
}

@test "an unknown name, an empty element, and resources the list leaves out are refused, nothing left behind" {
	set_annotation memory,bogus
	refused "annotation $ANN \"memory,bogus\": unknown cgroup controller \"bogus\""
	set_annotation memory,,pids
	refused "annotation $ANN \"memory,,pids\": empty controller name"
	set_annotation ""
	refused "annotation $ANN \"\": empty controller name"
	set_annotation "memory, pids"
	refused "annotation $ANN \"memory, pids\": unknown cgroup controller \" pids\""
	set_annotation pids
	update_config '.linux.resources = {"memory": {"limit": 33554432}}'
	refused "annotation $ANN \"pids\": linux.resources.memory needs the memory controller, which the list leaves out"
	set_annotation memory
	update_config '.linux.resources = {"memory": {"limit": 33554432}, "cpu": {"cpus": "0"}}'
	refused "annotation $ANN \"memory\": linux.resources.cpu.cpus/mems needs the cpuset controller, which the list leaves out"
	update_config '.linux.resources = {"devices": [{"allow": false, "access": "rwm"}]}'
	refused "annotation $ANN \"memory\": linux.resources.devices needs the devices controller, which the list leaves out"
	# no hierarchy of the host holds rdma or misc here
	if [ ! -d /sys/fs/cgroup/rdma ] && [ ! -d /sys/fs/cgroup/misc ] && ! grep -qw -e rdma -e misc /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null; then
		set_annotation rdma,misc
		update_config '.linux.resources = {}'
		refused "create: annotation $ANN \"rdma,misc\": no cgroup hierarchy of this host holds a listed controller"
	fi
}

@test "create refuses an invalid list before making the state directory; the default device rules need no devices hierarchy" {
	set_annotation memory,nope
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[ "$output" = "cvisor: annotation $ANN \"memory,nope\": unknown cgroup controller \"nope\"" ] || { echo "$output"; false; }
	[ ! -e "$CV_ROOT/$CV_ID" ]
	# default device rules with devices left out: fine, there is simply no devices cgroup
	set_annotation memory
	update_config '.linux.resources = {"memory": {"limit": 33554432}} | .process.args = ["sh", "-c", "echo x >/dev/null && cat /proc/self/cgroup"]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -z "$(leftovers "$CV_ID")" ]
}

@test "--systemd-cgroup with the annotation is refused naming both" {
	set_annotation memory
	run "$CVISOR" --root "$CV_ROOT" --systemd-cgroup run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[ "$output" = "cvisor: annotation $ANN \"memory\": not supported with --systemd-cgroup (systemd gives a scope a directory in every hierarchy it manages)" ] ||
		{ echo "$output"; false; }
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "without the annotation every hierarchy gets a directory, as before" {
	update_config '.process.args = ["sleep", "60"]'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	pid=$(cvisor state "$CV_ID" | jq .pid)
	for h in $(hierarchies) ""; do
		[[ "$(cg_of "$pid" "$h")" == */"$CV_ID" ]] || { echo "hierarchy '$h' not joined"; cat "/proc/$pid/cgroup"; false; }
	done
	jq -e '.cgroupPaths["cvisor:controllers"] == null' "$CV_ROOT/$CV_ID/state.json"
	cvisor delete --force "$CV_ID"
	[ -z "$(leftovers "$CV_ID")" ]
}
