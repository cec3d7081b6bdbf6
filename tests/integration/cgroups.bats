#!/usr/bin/env bats
# cgroup resources on this host's real hierarchy (v1, hybrid or v2): set
# through config.json, read back from the cgroup files, and effective.

load helpers

setup() {
	cv_setup
	requires_root
	make_bundle
}

teardown() {
	cv_teardown
}

# Directory of the container's cgroup in hierarchy CTRL ("memory", ...,
# "unified" for cgroup2), nested under this shell's own cgroup as cvisor does
# with the default cgroupsPath.
cg_dir() {
	local ctrl=$1 id=${2:-$CV_ID} line mnt own
	if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
		own=$(sed -n 's/^0:://p' /proc/self/cgroup)
		echo "/sys/fs/cgroup${own%/}/$id"
		return
	fi
	if [ "$ctrl" = unified ]; then
		own=$(sed -n 's/^0:://p' /proc/self/cgroup)
		echo "/sys/fs/cgroup/unified${own%/}/$id"
		return
	fi
	line=$(grep -E "^[0-9]+:([^:]*,)?$ctrl(,[^:]*)?:" /proc/self/cgroup)
	own=${line#*:*:}
	mnt=/sys/fs/cgroup/$ctrl
	echo "$mnt${own%/}/$id"
}

# Like `run`, for commands that leave a container running: its process keeps
# the command's stdout, so the output goes through a file, not a pipe.
detached() {
	"$@" >"$CV_TMP/detached.out" 2>&1 </dev/null 3>&- 251>&- && status=0 || status=$?
	output=$(cat "$CV_TMP/detached.out")
}

is_v2() { [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; }

@test "v1: memory, cpu, cpuset, pids, blkio and devices are written to the container's cgroup" {
	is_v2 && skip "cgroup v1 host only"
	update_config '.process.args = ["sleep", "30"] | .linux.resources = {
		"memory": {"limit": 67108864, "reservation": 33554432, "swap": 134217728, "swappiness": 20},
		"cpu": {"shares": 512, "quota": 20000, "period": 100000, "cpus": "0"},
		"pids": {"limit": 42},
		"blockIO": {"throttleReadBpsDevice": [{"major": 254, "minor": 0, "rate": 1048576}],
		            "throttleWriteIOPSDevice": [{"major": 254, "minor": 0, "rate": 100}]},
		"devices": [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 200, "access": "rw"}]
	}'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m=$(cg_dir memory)
	[ "$(cat "$m/memory.limit_in_bytes")" = 67108864 ]
	[ "$(cat "$m/memory.soft_limit_in_bytes")" = 33554432 ]
	[ "$(cat "$m/memory.memsw.limit_in_bytes")" = 134217728 ]
	[ "$(cat "$m/memory.swappiness")" = 20 ]
	c=$(cg_dir cpu)
	[ "$(cat "$c/cpu.shares")" = 512 ]
	[ "$(cat "$c/cpu.cfs_quota_us")" = 20000 ]
	[ "$(cat "$c/cpu.cfs_period_us")" = 100000 ]
	[ "$(cat "$(cg_dir cpuset)/cpuset.cpus")" = 0 ]
	[ -n "$(cat "$(cg_dir cpuset)/cpuset.mems")" ]
	[ "$(cat "$(cg_dir pids)/pids.max")" = 42 ]
	grep -qx '254:0 1048576' "$(cg_dir blkio)/blkio.throttle.read_bps_device"
	grep -qx '254:0 100' "$(cg_dir blkio)/blkio.throttle.write_iops_device"
	d=$(cg_dir devices)
	grep -qx 'c 10:200 rw' "$d/devices.list"
	grep -qx 'c 1:3 rwm' "$d/devices.list"
	! grep -q 'a \*:\* rwm' "$d/devices.list"
	# the container's process is in every hierarchy
	pid=$(cvisor state "$CV_ID" | jq .pid)
	grep -qx "$pid" "$m/cgroup.procs"
	grep -qx "$pid" "$(cg_dir freezer)/cgroup.procs"
	if [ -d /sys/fs/cgroup/unified ]; then grep -qx "$pid" "$(cg_dir unified)/cgroup.procs"; fi
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ]
	[ ! -e "$m" ] && [ ! -e "$c" ] && [ ! -e "$d" ]
	[ ! -e "$(cg_dir unified)" ]
}

@test "a process allocating past the memory limit is OOM-killed" {
	# dd's 64 MiB buffer cannot fit in 16 MiB (memory+swap): SIGKILL, 128+9
	update_config '.process.args = ["dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"]
		| .linux.resources.memory = {"limit": 16777216, "swap": 16777216}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	echo "$output"
	[ "$status" -eq 137 ]
	# the same without a limit completes
	update_config '.linux.resources.memory = {}'
	run cvisor run --bundle "$CV_BUNDLE" "$(cv_new_id)"
	[ "$status" -eq 0 ]
	[ ! -e "$(cg_dir memory)" ]
}

@test "a fork bomb stops at pids.limit" {
	update_config '.process.args = ["sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 3 & done; wait; echo done"]
		| .linux.resources.pids = {"limit": 8}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	echo "$output"
	[[ "$output" == *"can't fork"* ]] || [[ "$output" == *"Resource temporarily unavailable"* ]]
	[ ! -e "$(cg_dir pids)" ]
}

@test "pause freezes every process of the container, resume thaws them" {
	update_config '.process.args = ["sh", "-c", "sleep 60 & sleep 60"]'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run cvisor pause "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then
		grep -qx 'frozen 1' "$(cg_dir unified)/cgroup.events"
	else
		[ "$(cat "$(cg_dir freezer)/freezer.state")" = FROZEN ]
	fi
	n=0
	for p in $(cat "$(cg_dir "$(is_v2 && echo unified || echo freezer)")/cgroup.procs"); do
		n=$((n + 1))
		# Since Linux 6.1 a task in a freezable sleep is frozen in place
		# (TASK_FROZEN, shown as D) and keeps its wchan; older kernels
		# park it in the refrigerator.
		w=$(cat /proc/$p/wchan)
		st=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f1)
		[[ "$st" == D || "$w" == *refrigerator* || "$w" == *freezer* ]] || { echo "pid $p state $st wchan $w"; false; }
	done
	[ "$n" -ge 2 ]
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = paused ]
	run cvisor resume "$CV_ID"
	[ "$status" -eq 0 ]
	if ! is_v2; then [ "$(cat "$(cg_dir freezer)/freezer.state")" = THAWED ]; fi
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ]
	[ ! -e "$(cg_dir freezer)" ]
}

@test "a value the kernel refuses names the file, the value and the errno; nothing is left" {
	update_config '.linux.resources.cpu = {"cpus": "999"}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'write cpuset.cpus "999": '* ]] || { echo "$output"; false; }
	[ ! -e "$(cg_dir cpuset)" ] && [ ! -e "$(cg_dir memory)" ]
}

@test "relative and absolute cgroupsPath nest as documented" {
	update_config '.process.args = ["sleep", "30"] | .linux.cgroupsPath = "cvt-rel-'"$CV_ID"'/inner"'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m=$(cg_dir memory "cvt-rel-$CV_ID/inner")
	[ -d "$m" ]
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ]
	[ ! -e "$m" ] && [ ! -e "${m%/inner}" ]
	# absolute: below the hierarchy root as given (here: our own memory cgroup spelled out)
	own=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
	is_v2 && own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	update_config '.linux.cgroupsPath = "'"${own%/}/cvt-abs-$CV_ID"'"'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -d "$(cg_dir memory "cvt-abs-$CV_ID")" ]
	run cvisor delete --force "$CV_ID"
	[ ! -e "$(cg_dir memory "cvt-abs-$CV_ID")" ]
	update_config '.linux.cgroupsPath = "../escape"'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'linux.cgroupsPath: "." and ".." are not allowed'* ]] || { echo "$output"; false; }
}

@test "linux.resources.unified is written on v2 and hybrid, refused on v1" {
	update_config '.process.args = ["sleep", "30"] | .linux.resources.unified = {"cgroup.max.descendants": "3"}'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	if [ ! -d /sys/fs/cgroup/unified ] && ! is_v2; then
		[ "$status" -ne 0 ]
		[[ "$output" == *"linux.resources.unified requires cgroup v2"* ]]
		return
	fi
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat "$(cg_dir unified)/cgroup.max.descendants")" = 3 ]
	cvisor delete --force "$CV_ID"
	update_config '.linux.resources.unified = {"memory.nonexistent": "1"}'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'linux.resources.unified: write memory.nonexistent "1": No such file or directory'* ]] || { echo "$output"; false; }
}

@test "v1: net_cls/net_prio resources fail clearly where the controllers are absent" {
	is_v2 && skip "cgroup v1 host only"
	[ -d /sys/fs/cgroup/net_cls ] && skip "net_cls is mounted here"
	update_config '.linux.resources.network = {"classID": 1048577}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.resources.network.classID: the net_cls cgroup controller is not mounted on this host"* ]] || { echo "$output"; false; }
	[ ! -e "$(cg_dir memory)" ]
}

@test "hugepage limits are written (v1 hugetlb, or the cgroup2 mount on hybrid hosts)" {
	[ -d /sys/kernel/mm/hugepages/hugepages-2048kB ] || skip "no 2MB huge pages"
	if ! is_v2 && [ ! -d /sys/fs/cgroup/hugetlb ]; then
		grep -qw hugetlb /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null || skip "no hugetlb controller"
		uroot=/sys/fs/cgroup/unified$(sed -n 's/^0:://p' /proc/self/cgroup)
		grep -qw hugetlb "$uroot/cgroup.subtree_control" || echo "$uroot" >"$CV_TMP/.disable-hugetlb"
	fi
	update_config '.process.args = ["sleep", "30"] | .linux.resources.hugepageLimits = [{"pageSize": "2MB", "limit": 4194304}]'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if [ -d /sys/fs/cgroup/hugetlb ]; then
		[ "$(cat "$(cg_dir hugetlb)/hugetlb.2MB.limit_in_bytes")" = 4194304 ]
	else
		[ "$(cat "$(cg_dir unified)/hugetlb.2MB.max")" = 4194304 ]
	fi
	cvisor delete --force "$CV_ID"
	if [ -s "$CV_TMP/.disable-hugetlb" ]; then echo -hugetlb >"$(cat "$CV_TMP/.disable-hugetlb")/cgroup.subtree_control"; fi
	update_config '.linux.resources.hugepageLimits = [{"pageSize": "2MB/../x", "limit": 1}]'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'invalid pageSize "2MB/../x"'* ]] || { echo "$output"; false; }
}

@test "the systemd cgroup driver fails clearly without systemd" {
	[ -d /run/systemd/system ] && skip "systemd runs here"
	update_config '.linux.cgroupsPath = "machine.slice:cvisor:'"$CV_ID"'"'
	run "$CVISOR" --root "$CV_ROOT" --systemd-cgroup run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"systemd cgroup driver requested but systemd is not running"* ]] || { echo "$output"; false; }
	update_config '.linux.cgroupsPath = "nocolons"'
	run "$CVISOR" --root "$CV_ROOT" --systemd-cgroup run --bundle "$CV_BUNDLE" "$CV_ID"
	[[ "$output" == *'expects "slice:prefix:name"'* ]] || { echo "$output"; false; }
}

@test "kill --all reaches every process in the container's cgroup" {
	update_config '.process.args = ["sh", "-c", "sleep 60 & sleep 60 & wait"]'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	d=$(cg_dir "$(is_v2 && echo unified || echo pids)")
	[ "$(wc -l <"$d/cgroup.procs")" -ge 3 ]
	run cvisor kill --all "$CV_ID" KILL
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	for _ in $(seq 50); do [ -s "$d/cgroup.procs" ] || break; sleep 0.1; done
	[ ! -s "$d/cgroup.procs" ]
	run cvisor delete "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ ! -e "$d" ]
}
