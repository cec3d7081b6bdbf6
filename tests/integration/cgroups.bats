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
	if [ -s "$CV_TMP/.loopdev" ]; then losetup -d "$(cat "$CV_TMP/.loopdev")" || true; fi
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

# v1: whether the kernel takes blkio weights (the BFQ or CFQ I/O
# scheduler built in; mq-deadline and kyber have none)
blkio_weights() { [ -e /sys/fs/cgroup/blkio/blkio.weight ] || [ -e /sys/fs/cgroup/blkio/blkio.bfq.weight ]; }

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
	run ! grep 'a \*:\* rwm' "$d/devices.list"
	# the container's process is in every hierarchy
	pid=$(cvisor state "$CV_ID" | jq .pid)
	grep -qx "$pid" "$m/cgroup.procs"
	grep -qx "$pid" "$(cg_dir freezer)/cgroup.procs"
	if [ -d /sys/fs/cgroup/unified ]; then grep -qx "$pid" "$(cg_dir unified)/cgroup.procs"; fi
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ]
	[ ! -e "$m" ]
	[ ! -e "$c" ]
	[ ! -e "$d" ]
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
		# v1: since Linux 6.1 a task in a freezable sleep is frozen in place
		# (TASK_FROZEN, shown as D) and keeps its wchan; older kernels park
		# it in the refrigerator. v2 freezes through the signal path: the
		# task sleeps in do_freezer_trap, seen as get_signal.
		w=$(cat /proc/$p/wchan)
		st=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f1)
		[[ "$st" == D || "$w" == *refrigerator* || "$w" == *freezer* ]] ||
			{ is_v2 && [[ "$w" == get_signal || "$w" == *freezer_trap* ]]; } ||
			{ echo "pid $p state $st wchan $w"; false; }
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
	# on a host with v1 hierarchies the value is written once the
	# container process exists (cv_cgroup_config.v1_after_clone): it goes
	update_config '.linux.resources.cpu = {"cpus": "999"}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'write cpuset.cpus "999": '* ]] || { echo "$output"; false; }
	[ ! -e "$(cg_dir cpuset)" ]
	[ ! -e "$(cg_dir memory)" ]
	[ ! -e "$(cg_dir unified)" ]
	[ ! -e "$CV_ROOT/$CV_ID" ]
	# the container process, killed and reaped before run returned (its
	# program never started: it still shows the runtime's command line)
	run pgrep -f -- "--bundle $CV_BUNDLE $CV_ID\$"
	[ "$status" -eq 1 ]
}

# Where v1 hierarchies exist the runtime makes their directories while the
# container process prepares its root, and the process joins them before it
# mounts a cgroup filesystem, or once its mounts are done without one; its
# cgroup namespace comes after. The hooks and the program find it in all.
@test "the container process is in every hierarchy before its hooks and program run, its cgroup namespace rooted there" {
	requires jq
	cat >"$CV_TMP/hook" <<'HOOK'
#!/bin/sh
pid="$(jq -r .pid)"
cat "/proc/$pid/cgroup" >"$0.out"
HOOK
	chmod +x "$CV_TMP/hook"
	n=$(wc -l </proc/self/cgroup)
	for mount in with without; do
		id="$CV_ID-$mount"
		echo "$id" >>"$CV_TMP/.ids"
		update_config ".hooks = {\"prestart\": [{\"path\": \"$CV_TMP/hook\"}]}
			| .process.args = [\"cat\", \"/proc/self/cgroup\"]"
		[ "$mount" = with ] || update_config '.mounts |= map(select(.type != "cgroup"))'
		run cvisor run --bundle "$CV_BUNDLE" "$id"
		echo "$output"
		[ "$status" -eq 0 ]
		# the program: every hierarchy, each at the root of its namespace
		[ "${#lines[@]}" -eq "$n" ]
		[ "$(printf '%s\n' "${lines[@]}" | grep -vc ':/$')" -eq 0 ]
		# the hook, from outside: every hierarchy, each the container's
		cat "$CV_TMP/hook.out"
		[ "$(wc -l <"$CV_TMP/hook.out")" -eq "$n" ]
		[ "$(grep -vc "/$id\$" "$CV_TMP/hook.out")" -eq 0 ]
	done
}

# Here with the cgroup tests, which also run in the cgroup v2 guest: there
# the process is born in its cgroup (CLONE_INTO_CGROUP), so the pids limit
# holds from the start, leaves no room for the helper of cv_netns_maker, and
# the container process makes the namespace in line. Where the pids
# controller is v1 the process joins it later, and the helper is the
# runtime's: the namespace comes from it.
@test "a new network namespace under a pids limit of 1" {
	update_config '.linux.resources.pids.limit = 1 | .process.args = ["cat", "/sys/class/net/lo/flags"]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = 0x9 ]
}

@test "a container process that fails before it joins its cgroups leaves none behind" {
	# its first mount fails, before the v1 directories reach it
	update_config '.mounts = [{"destination": "/mnt", "type": "bind", "source": "/nonexistent-cvisor-src", "options": ["bind"]}] + .mounts'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"/nonexistent-cvisor-src"* ]]
	[ ! -e "$(cg_dir memory)" ]
	[ ! -e "$(cg_dir pids)" ]
	[ ! -e "$(cg_dir unified)" ]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "relative and absolute cgroupsPath nest as documented" {
	# a cpuset below a new intermediate directory: v1 needs the parents' cpus/mems filled in
	update_config '.process.args = ["sleep", "30"] | .linux.cgroupsPath = "cvt-rel-'"$CV_ID"'/inner"
		| .linux.resources.cpu = {"cpus": "0", "mems": "0"}'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	m=$(cg_dir memory "cvt-rel-$CV_ID/inner")
	[ -d "$m" ]
	[ "$(cat "$(cg_dir "$(is_v2 && echo unified || echo cpuset)" "cvt-rel-$CV_ID/inner")/cpuset.cpus")" = 0 ]
	is_v2 || [ -n "$(cat "$(cg_dir cpuset "cvt-rel-$CV_ID")/cpuset.mems")" ]
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ]
	[ ! -e "$m" ]
	[ ! -e "${m%/inner}" ]
	# absolute: below the hierarchy root as given (here: our own memory cgroup spelled out)
	own=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
	is_v2 && own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	update_config '.linux.cgroupsPath = "'"${own%/}/cvt-abs-$CV_ID"'"'
	detached cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -d "$(cg_dir memory "cvt-abs-$CV_ID")" ]
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
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
	run cvisor update -r - "$CV_ID" <<<'{"unified": {"cgroup.max.descendants": "5"}}'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat "$(cg_dir unified)/cgroup.max.descendants")" = 5 ]
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
		h=$(cg_dir hugetlb) f=hugetlb.2MB.limit_in_bytes r=hugetlb.2MB.rsvd.limit_in_bytes
	else
		h=$(cg_dir unified) f=hugetlb.2MB.max r=hugetlb.2MB.rsvd.max
	fi
	[ "$(cat "$h/$f")" = 4194304 ]
	# reservations (Linux 5.7+) get the same limit
	if is_v2 || [ -e "$h/$r" ]; then [ "$(cat "$h/$r")" = 4194304 ]; fi
	run cvisor update -r - "$CV_ID" <<<'{"hugepageLimits": [{"pageSize": "2MB", "limit": 8388608}]}'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat "$h/$f")" = 8388608 ]
	if [ -e "$h/$r" ]; then [ "$(cat "$h/$r")" = 8388608 ]; fi
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

# ---- update, events, devices ----

# The value of a cgroup file of the container, v1 controller CTRL.
cg_cat() { cat "$(cg_dir "$1")/$2"; }

@test "v1: update applies each of runc's flags to the cgroup files" {
	is_v2 && skip "cgroup v1 host only"
	update_config '.process.args = ["sleep", "60"] | .linux.resources = {"memory": {"limit": 268435456, "swap": 536870912}, "cpu": {"cpus": "0"}}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	weight=()
	if blkio_weights; then weight=(--blkio-weight 300); fi
	run cvisor update --memory 128m --memory-swap 256M --memory-reservation 64m \
		--cpu-shares 300 --cpu-quota 30000 --cpu-period 200000 \
		--cpuset-cpus 0 --cpuset-mems 0 --pids-limit 17 "${weight[@]}" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cg_cat memory memory.limit_in_bytes)" = 134217728 ]
	[ "$(cg_cat memory memory.memsw.limit_in_bytes)" = 268435456 ]
	[ "$(cg_cat memory memory.soft_limit_in_bytes)" = 67108864 ]
	[ "$(cg_cat cpu cpu.shares)" = 300 ]
	[ "$(cg_cat cpu cpu.cfs_quota_us)" = 30000 ]
	[ "$(cg_cat cpu cpu.cfs_period_us)" = 200000 ]
	[ "$(cg_cat cpuset cpuset.cpus)" = 0 ]
	[ "$(cg_cat cpuset cpuset.mems)" = 0 ]
	[ "$(cg_cat pids pids.max)" = 17 ]
	b=$(cg_dir blkio)
	if blkio_weights; then
		if [ -e "$b/blkio.weight" ]; then w=$(cat "$b/blkio.weight"); else w=$(cat "$b/blkio.bfq.weight"); fi
		[[ "$w" == *300* ]]
	else
		run cvisor update --blkio-weight 300 "$CV_ID"
		[ "$status" -ne 0 ]
		[[ "$output" == *"linux.resources.blockIO.weight: this kernel has no blkio.weight nor blkio.bfq.weight"* ]] || { echo "$output"; false; }
	fi
	# raising memory above the current memsw limit: memsw is written first
	run cvisor update --memory 1g --memory-swap 2g "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cg_cat memory memory.limit_in_bytes)" = 1073741824 ]
	[ "$(cg_cat memory memory.memsw.limit_in_bytes)" = 2147483648 ]
	run cvisor update --memory -1 --memory-swap -1 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cg_cat memory memory.limit_in_bytes)" -gt 1073741824 ]
	# realtime bandwidth where the kernel has RT group scheduling
	if [ -e "$(cg_dir cpu)/cpu.rt_period_us" ]; then
		run cvisor update --cpu-rt-period 900000 --cpu-rt-runtime 0 "$CV_ID"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		[ "$(cg_cat cpu cpu.rt_period_us)" = 900000 ]
	fi
	# the container still runs: the limits did not kill it
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = running ]
}

@test "update --resources reads a linux.resources JSON object from a file or stdin" {
	update_config '.process.args = ["sleep", "60"]'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	echo '{"memory": {"limit": 100663296}, "pids": {"limit": 23}, "cpu": {"quota": 25000, "period": 100000}}' >"$CV_TMP/res.json"
	run cvisor update --resources "$CV_TMP/res.json" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then
		u=$(cg_dir unified)
		[ "$(cat "$u/memory.max")" = 100663296 ]
		[ "$(cat "$u/pids.max")" = 23 ]
		[ "$(cat "$u/cpu.max")" = "25000 100000" ]
	else
		[ "$(cg_cat memory memory.limit_in_bytes)" = 100663296 ]
		[ "$(cg_cat pids pids.max)" = 23 ]
		[ "$(cg_cat cpu cpu.cfs_quota_us)" = 25000 ]
	fi
	run sh -c "echo '{\"pids\": {\"limit\": 31}}' | '$CVISOR' --root '$CV_ROOT' update -r - '$CV_ID'"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then [ "$(cat "$(cg_dir unified)/pids.max")" = 31 ]; else [ "$(cg_cat pids pids.max)" = 31 ]; fi
	# bad input: one line naming the source and the JSON path
	run sh -c "echo '{\"memory\": {\"limit\": \"lots\"}}' | '$CVISOR' --root '$CV_ROOT' update -r - '$CV_ID'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"stdin: linux.resources.memory.limit: expected"* ]]
	run cvisor update --memory 12q "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'--memory: invalid size "12q"'* ]]
	run cvisor update --l3-cache-schema L3:0=f "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Intel RDT"*"not supported"* ]]
	run cvisor update --resources "$CV_TMP/res.json" --memory 1g "$CV_ID"
	[ "$status" -ne 0 ]
	# a value the kernel refuses names the file, the value and the errno
	if ! is_v2; then
		run cvisor update --cpuset-cpus 4096 "$CV_ID"
		[ "$status" -ne 0 ]
		[[ "$output" == *'cpuset.cpus "4096"'* ]]
	fi
}

@test "events --stats prints one stats event in runc's schema" {
	update_config '.process.args = ["sh", "-c", "sleep 60 & sleep 60"] | .linux.resources = {"memory": {"limit": 134217728}, "pids": {"limit": 50}}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	run cvisor events --stats "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	echo "$output"
	[ "$(jq -r .type <<<"$output")" = stats ]
	[ "$(jq -r .id <<<"$output")" = "$CV_ID" ]
	[ "$(jq '.data.pids.current' <<<"$output")" -ge 2 ]
	[ "$(jq '.data.pids.limit' <<<"$output")" -eq 50 ]
	[ "$(jq '.data.memory.usage.limit' <<<"$output")" -eq 134217728 ]
	[ "$(jq '.data.memory.usage.usage' <<<"$output")" -gt 0 ]
	[ "$(jq '.data.cpu.usage.total' <<<"$output")" -gt 0 ]
	jq -e '.data.cpu.usage | has("kernel") and has("user")' <<<"$output"
	jq -e '.data.memory | has("swap") and has("kernel") and has("kernelTCP") and (.raw | length > 5)' <<<"$output"
	jq -e '.data | has("blkio") and has("hugetlb")' <<<"$output"
	# a stopped container has no stats
	cvisor kill "$CV_ID" KILL
	for _ in $(seq 50); do [ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ] && break; sleep 0.1; done
	run cvisor events --stats "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not running"* ]]
}

@test "events streams stats every interval and ends when the container stops" {
	# the container runs until the test has seen two intervals, however
	# slow the machine (no race with a fixed sleep)
	update_config '.process.args = ["sh", "-c", "while [ ! -e /stop ]; do sleep 0.1; done"]'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	"$CVISOR" --root "$CV_ROOT" events --interval 300ms "$CV_ID" >"$CV_TMP/events.out" 2>&1 &
	local ev=$!
	cv_track_pid "$ev"
	for _ in $(seq 600); do
		[ "$(grep -c '"type":"stats"' "$CV_TMP/events.out")" -ge 2 ] && break
		sleep 0.1
	done
	[ "$(grep -c '"type":"stats"' "$CV_TMP/events.out")" -ge 2 ] || { cat "$CV_TMP/events.out"; false; }
	# the container stops: events ends by itself, with status 0
	touch "$CV_BUNDLE/rootfs/stop"
	local st=0
	for _ in $(seq 600); do kill -0 "$ev" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$ev" 2>/dev/null; then
		echo "events still running after the container stopped"
		false
	fi
	wait "$ev" || st=$?
	[ "$st" -eq 0 ] || { cat "$CV_TMP/events.out"; false; }
	run cvisor events --interval 5x "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"invalid duration"* ]]
}

@test "events reports an oom event when the container exceeds its memory limit" {
	update_config '.process.args = ["sh", "-c", "read x </tmp/go; dd if=/dev/zero of=/dev/null bs=64M count=1; sleep 60"]
		| .linux.resources.memory = {"limit": 16777216, "swap": 16777216}'
	mkfifo "$CV_BUNDLE/rootfs/tmp/go" 2>/dev/null || { mkdir -p "$CV_BUNDLE/rootfs/tmp"; mkfifo "$CV_BUNDLE/rootfs/tmp/go"; }
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	timeout 20 "$CVISOR" --root "$CV_ROOT" events --interval 1h "$CV_ID" >"$CV_TMP/events" 2>&1 &
	evpid=$!
	echo "$evpid" >>"$CV_TMP/.pids"
	sleep 0.5
	echo go >"$CV_BUNDLE/rootfs/tmp/go"
	for _ in $(seq 100); do grep -q '"type":"oom"' "$CV_TMP/events" && break; sleep 0.1; done
	cat "$CV_TMP/events"
	grep -qx "{\"type\":\"oom\",\"id\":\"$CV_ID\"}" "$CV_TMP/events"
	cvisor kill "$CV_ID" KILL
	wait "$evpid"
}

@test "linux.devices nodes are allowed by the device cgroup, other nodes are not" {
	# the v2 guest loads modules on demand only
	[ -c /dev/fuse ] || modprobe fuse 2>/dev/null || true
	[ -c /dev/loop-control ] || modprobe loop 2>/dev/null || true
	[ -c /dev/fuse ] || skip "needs /dev/fuse (module fuse)"
	[ -c /dev/loop-control ] || skip "needs /dev/loop-control (module loop)"
	update_config '.process.args = ["sh", "-c", ": >/dev/fuse && echo fuse-ok; cat /dev/loopctl 2>&1; true"]
		| .linux.devices = [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229, "fileMode": 438}]
		| .mounts += [{"destination": "/dev/loopctl", "type": "bind", "source": "/dev/loop-control", "options": ["bind"]}]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *fuse-ok* ]]
	[[ "$output" == *"loopctl"*"Operation not permitted"* ]]
}

@test "hybrid: the container's process is in the cgroup2 hierarchy too" {
	is_v2 && skip "hybrid host only"
	[ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] || skip "no cgroup2 at /sys/fs/cgroup/unified"
	update_config '.process.args = ["sleep", "30"]'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	pid=$(cvisor state "$CV_ID" | jq .pid)
	u=$(cg_dir unified)
	grep -qx "$pid" "$u/cgroup.procs"
	grep -q "^0::.*/$CV_ID\$" /proc/$pid/cgroup
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ]
	[ ! -e "$u" ]
}

# ---- every resource, v1/hybrid and v2 ----

# The container's file FILE: the v1 controller CTRL's directory, or the one
# cgroup2 directory on v2.
cgf() { if is_v2; then cat "$(cg_dir unified)/$2"; else cat "$(cg_dir "$1")/$2"; fi; }

# major:minor of a block device with data (an unbound loop device reads
# nothing). The v2 guest has none of its own: null_blk gives it one.
blk_dev() {
	local d
	for d in /sys/block/*; do
		if [ -e "$d/dev" ] && [ "$(cat "$d/size")" -gt 16384 ]; then
			cat "$d/dev"
			return 0
		fi
	done
	modprobe null_blk nr_devices=1 >/dev/null 2>&1 && [ -e /sys/block/nullb0/dev ] && cat /sys/block/nullb0/dev
}

@test "memory: limit, reservation, swap, swappiness, kernel, kernelTCP, disableOOMKiller, useHierarchy; update and checkBeforeUpdate" {
	update_config '.process.args = ["sleep", "60"] | .linux.resources.memory = {"limit": 67108864, "reservation": 33554432,
		"swap": 134217728, "swappiness": 20, "kernel": 67108864, "kernelTCP": 16777216,
		"disableOOMKiller": true, "useHierarchy": true}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	echo "$output"
	[ "$(cgf memory memory.max 2>/dev/null || cgf memory memory.limit_in_bytes)" = 67108864 ]
	if is_v2; then
		[ "$(cgf memory memory.low)" = 33554432 ]
		# v2's swap limit excludes memory: swap - limit
		[ "$(cgf memory memory.swap.max)" = 67108864 ]
		[[ "$output" == *"linux.resources.memory.kernel ignored"* ]]
		[[ "$output" == *"linux.resources.memory.kernelTCP ignored"* ]]
		[[ "$output" == *"linux.resources.memory.swappiness ignored"* ]]
		[[ "$output" == *"linux.resources.memory.disableOOMKiller ignored"* ]]
	else
		[ "$(cgf memory memory.soft_limit_in_bytes)" = 33554432 ]
		[ "$(cgf memory memory.memsw.limit_in_bytes)" = 134217728 ]
		[ "$(cgf memory memory.swappiness)" = 20 ]
		# kernel memory limits: written where the kernel still takes them,
		# else a warning naming the field
		[ "$(cgf memory memory.kmem.limit_in_bytes 2>/dev/null)" = 67108864 ] ||
			[[ "$output" == *"linux.resources.memory.kernel ignored: "*"memory.kmem.limit_in_bytes \"67108864\""* ]]
		[ "$(cgf memory memory.kmem.tcp.limit_in_bytes 2>/dev/null)" = 16777216 ] ||
			[[ "$output" == *"linux.resources.memory.kernelTCP ignored: "*"memory.kmem.tcp.limit_in_bytes \"16777216\""* ]]
		grep -qx 'oom_kill_disable 1' "$(cg_dir memory)/memory.oom_control"
		[ "$(cgf memory memory.use_hierarchy)" = 1 ]
	fi
	# checkBeforeUpdate: a limit below the current usage is refused, nothing changes
	run cvisor update -r - "$CV_ID" <<<'{"memory": {"limit": 4096, "checkBeforeUpdate": true}}'
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.resources.memory.limit 4096 is below the current usage"*"(checkBeforeUpdate)"* ]] || { echo "$output"; false; }
	[ "$(cgf memory memory.max 2>/dev/null || cgf memory memory.limit_in_bytes)" = 67108864 ]
	run cvisor update --memory 96m --memory-swap 192m --memory-reservation 48m "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then
		[ "$(cgf memory memory.max)" = 100663296 ]
		[ "$(cgf memory memory.swap.max)" = 100663296 ]
		[ "$(cgf memory memory.low)" = 50331648 ]
	else
		[ "$(cgf memory memory.limit_in_bytes)" = 100663296 ]
		[ "$(cgf memory memory.memsw.limit_in_bytes)" = 201326592 ]
		[ "$(cgf memory memory.soft_limit_in_bytes)" = 50331648 ]
		run cvisor update -r - "$CV_ID" <<<'{"memory": {"disableOOMKiller": false, "swappiness": 60}}'
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		grep -qx 'oom_kill_disable 0' "$(cg_dir memory)/memory.oom_control"
		[ "$(cgf memory memory.swappiness)" = 60 ]
	fi
	run cvisor update --kernel-memory-tcp 32m "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then [[ "$output" == *"linux.resources.memory.kernelTCP ignored"* ]]; else [ "$(cgf memory memory.kmem.tcp.limit_in_bytes)" = 33554432 ]; fi
	run cvisor update --memory -1 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then [ "$(cgf memory memory.max)" = max ]; else [ "$(cgf memory memory.limit_in_bytes)" -gt 100663296 ]; fi
	run cvisor update -r - "$CV_ID" <<<'{"memory": {"swappiness": 101}}'
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.resources.memory.swappiness: 101 is out of range (0..100)"* ]] || { echo "$output"; false; }
}

@test "cpu: shares/weight, quota, period, burst, cpus, mems, idle, realtime; update round trips" {
	update_config '.process.args = ["sleep", "60"] | .linux.resources.cpu = {"shares": 512, "quota": 20000, "period": 100000,
		"burst": 10000, "cpus": "0", "mems": "0"}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then
		# runc's shares to weight: 1 + (512 - 2) * 9999 / 262142
		[ "$(cgf cpu cpu.weight)" = 20 ]
		[ "$(cgf cpu cpu.max)" = "20000 100000" ]
		[ "$(cgf cpu cpu.max.burst)" = 10000 ]
	else
		[ "$(cgf cpu cpu.shares)" = 512 ]
		[ "$(cgf cpu cpu.cfs_quota_us)" = 20000 ]
		[ "$(cgf cpu cpu.cfs_period_us)" = 100000 ]
		[ "$(cgf cpu cpu.cfs_burst_us)" = 10000 ]
	fi
	[ "$(cgf cpuset cpuset.cpus)" = 0 ]
	[ "$(cgf cpuset cpuset.mems)" = 0 ]
	run cvisor update --cpu-shares 1024 --cpu-quota 50000 --cpu-period 200000 --cpuset-cpus 0 --cpuset-mems 0 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then
		[ "$(cgf cpu cpu.weight)" = 39 ]
		[ "$(cgf cpu cpu.max)" = "50000 200000" ]
	else
		[ "$(cgf cpu cpu.shares)" = 1024 ]
		[ "$(cgf cpu cpu.cfs_quota_us)" = 50000 ]
		[ "$(cgf cpu cpu.cfs_period_us)" = 200000 ]
	fi
	# a lone period keeps the quota; -1 lifts it
	run cvisor update --cpu-period 100000 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then [ "$(cgf cpu cpu.max)" = "50000 100000" ]; else [ "$(cgf cpu cpu.cfs_quota_us)" = 50000 ]; fi
	run cvisor update --cpu-quota -1 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then [ "$(cgf cpu cpu.max)" = "max 100000" ]; else [ "$(cgf cpu cpu.cfs_quota_us)" = -1 ]; fi
	run cvisor update -r - "$CV_ID" <<<'{"cpu": {"burst": 0}}'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cgf cpu "$(is_v2 && echo cpu.max.burst || echo cpu.cfs_burst_us)")" = 0 ]
	# idle (SCHED_IDLE for the whole group), set and cleared
	run cvisor update -r - "$CV_ID" <<<'{"cpu": {"idle": 1}}'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cgf cpu cpu.idle)" = 1 ]
	run cvisor update -r - "$CV_ID" <<<'{"cpu": {"idle": 0}}'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cgf cpu cpu.idle)" = 0 ]
	# realtime bandwidth: v1 only (the kernel has no v2 interface for it)
	run cvisor update -r - "$CV_ID" <<<'{"cpu": {"realtimePeriod": 800000, "realtimeRuntime": 10000}}'
	if is_v2; then
		[ "$status" -ne 0 ]
		[[ "$output" == *"linux.resources.cpu.realtimeRuntime/realtimePeriod: not supported on cgroup v2"* ]] || { echo "$output"; false; }
	else
		[ -e "$(cg_dir cpu)/cpu.rt_period_us" ] || skip "kernel without CONFIG_RT_GROUP_SCHED (no cpu.rt_period_us)"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		[ "$(cgf cpu cpu.rt_period_us)" = 800000 ]
		[ "$(cgf cpu cpu.rt_runtime_us)" = 10000 ]
	fi
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = running ]
}

@test "cpu quota is effective: a busy loop is throttled" {
	update_config '.process.args = ["sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"]
		| .linux.resources.cpu = {"quota": 10000, "period": 100000}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# 10% of one CPU: after a second the group has hit its quota in most periods
	sleep 1
	n=$(awk '$1 == "nr_throttled" { print $2 }' <<<"$(cgf cpu cpu.stat)")
	echo "nr_throttled $n"
	[ "$n" -ge 3 ]
}

@test "pids.limit: set, updated, lifted" {
	update_config '.process.args = ["sleep", "60"] | .linux.resources.pids = {"limit": 42}'
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cgf pids pids.max)" = 42 ]
	run cvisor update --pids-limit 17 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cgf pids pids.max)" = 17 ]
	run cvisor update --pids-limit -1 "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cgf pids pids.max)" = max ]
}

@test "blockIO: weight, leafWeight, weightDevice and the four throttles; update of the weight" {
	dev=$(blk_dev) || skip "no block device on this host (and no null_blk module)"
	maj=${dev%:*} min=${dev#*:}
	update_config '.process.args = ["sleep", "60"] | .linux.resources.blockIO = {"weight": 300, "leafWeight": 300,
		"throttleReadBpsDevice": [{"major": '"$maj"', "minor": '"$min"', "rate": 1048576}],
		"throttleWriteBpsDevice": [{"major": '"$maj"', "minor": '"$min"', "rate": 2097152}],
		"throttleReadIOPSDevice": [{"major": '"$maj"', "minor": '"$min"', "rate": 100}],
		"throttleWriteIOPSDevice": [{"major": '"$maj"', "minor": '"$min"', "rate": 200}]}'
	weights=1
	if ! is_v2 && ! blkio_weights; then
		# no scheduler with weights: refused, naming the field, nothing left
		weights=0
		detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
		[ "$status" -ne 0 ]
		[[ "$output" == *"linux.resources.blockIO.weight: this kernel has no blkio.weight nor blkio.bfq.weight"* ]] || { echo "$output"; false; }
		run cvisor state "$CV_ID"
		[ "$status" -ne 0 ]
		[ ! -e "$(cg_dir blkio)" ]
		[ ! -e "$(cg_dir memory)" ]
		update_config 'del(.linux.resources.blockIO.weight, .linux.resources.blockIO.leafWeight)'
	fi
	detached cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	echo "$output"
	if is_v2; then
		u=$(cg_dir unified)
		grep -qx "$dev rbps=1048576 wbps=2097152 riops=100 wiops=200" "$u/io.max" || { cat "$u/io.max"; false; }
		if [ -e "$u/io.bfq.weight" ]; then
			grep -qx 'default 300' "$u/io.bfq.weight"
		else
			# blkio's 10..1000 mapped onto io.weight's 1..10000
			grep -qx 'default 2930' "$u/io.weight" || { cat "$u/io.weight"; false; }
		fi
		[[ "$output" == *"linux.resources.blockIO.leafWeight ignored"* ]]
		run cvisor update --blkio-weight 500 "$CV_ID"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		grep -qx 'default 500' "$u/io.bfq.weight" 2>/dev/null || grep -qx 'default 4950' "$u/io.weight"
	else
		b=$(cg_dir blkio)
		grep -qx "$dev 1048576" "$b/blkio.throttle.read_bps_device"
		grep -qx "$dev 2097152" "$b/blkio.throttle.write_bps_device"
		grep -qx "$dev 100" "$b/blkio.throttle.read_iops_device"
		grep -qx "$dev 200" "$b/blkio.throttle.write_iops_device"
		if [ "$weights" = 0 ]; then
			run cvisor update --blkio-weight 500 "$CV_ID"
			[ "$status" -ne 0 ]
			[[ "$output" == *"linux.resources.blockIO.weight: this kernel has no blkio.weight"* ]] || { echo "$output"; false; }
		elif [ -e "$b/blkio.weight" ]; then
			[ "$(cat "$b/blkio.weight")" = 300 ]
			[ "$(cat "$b/blkio.leaf_weight")" = 300 ]
		else
			# BFQ: no leaf weights (they were CFQ's)
			grep -qxE '(default )?300' "$b/blkio.bfq.weight"
			[[ "$output" == *"linux.resources.blockIO.leafWeight ignored"* ]]
		fi
		if [ "$weights" = 1 ]; then
			run cvisor update --blkio-weight 500 "$CV_ID"
			[ "$status" -eq 0 ] || { echo "$output"; false; }
			grep -q 500 "$b/blkio.weight" 2>/dev/null || grep -qxE '(default )?500' "$b/blkio.bfq.weight"
		fi
	fi
	# weightDevice: BFQ takes per-device weights only for a device it
	# schedules; elsewhere the kernel's refusal is named
	run cvisor update -r - "$CV_ID" <<<'{"blockIO": {"weightDevice": [{"major": '"$maj"', "minor": '"$min"', "weight": 400}]}}'
	sched=$(cat "/sys/dev/block/$dev/queue/scheduler" 2>/dev/null || true)
	if is_v2; then u=$(cg_dir unified); wf=$( [ -e "$u/io.bfq.weight" ] && echo io.bfq.weight || echo io.weight); else
		b=$(cg_dir blkio); wf=$( [ -e "$b/blkio.weight_device" ] && echo blkio.weight_device || echo blkio.bfq.weight_device); fi
	# io.weight per device needs io.cost enabled for it (io.cost.qos)
	if [ "$weights" = 0 ]; then
		[ "$status" -ne 0 ]
		[[ "$output" == *"linux.resources.blockIO.weightDevice: this kernel has no blkio.weight"* ]] || { echo "$output"; false; }
	elif [[ "$wf" == *bfq* && "$sched" != *"[bfq]"* ]] ||
		{ [ "$wf" = io.weight ] && ! grep -q "^$dev enable=1" /sys/fs/cgroup/io.cost.qos 2>/dev/null; }; then
		[ "$status" -ne 0 ]
		v=$( [ "$wf" = io.weight ] && echo 3940 || echo 400)
		[[ "$output" == *"write $wf \"$dev $v\": Operation not supported"* ]] || { echo "$output"; false; }
	else
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		if [ "$wf" = io.weight ]; then grep -qx "$dev 3940" "$u/io.weight"; elif is_v2; then grep -qx "$dev 400" "$u/$wf";
		else grep -qx "$dev 400" "$b/$wf"; fi
	fi
	# throttles through update --resources
	run cvisor update -r - "$CV_ID" <<<'{"blockIO": {"throttleReadBpsDevice": [{"major": '"$maj"', "minor": '"$min"', "rate": 4194304}]}}'
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	if is_v2; then grep -q "^$dev rbps=4194304 " "$(cg_dir unified)/io.max"; else grep -qx "$dev 4194304" "$(cg_dir blkio)/blkio.throttle.read_bps_device"; fi
}

@test "blockIO throttle is effective: direct reads run at the read bps limit" {
	requires losetup
	# a loop device over a file of ours: readable here and in the v2 guest
	[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
	truncate -s 8M "$CV_TMP/disk.img"
	loop=$(losetup -f --show "$CV_TMP/disk.img") || skip "cannot set up a loop device"
	echo "$loop" >"$CV_TMP/.loopdev"
	dev=$(cat "/sys/block/${loop#/dev/}/dev")
	maj=${dev%:*} min=${dev#*:}
	# 4 MiB at 1 MiB/s: about 4 s (unthrottled: well under a second)
	update_config '.process.args = ["dd", "if=/dev/cvtblk", "of=/dev/null", "bs=64k", "count=64", "iflag=direct"]
		| .linux.devices = [{"path": "/dev/cvtblk", "type": "b", "major": '"$maj"', "minor": '"$min"', "fileMode": 384}]
		| .linux.resources.blockIO = {"throttleReadBpsDevice": [{"major": '"$maj"', "minor": '"$min"', "rate": 1048576}]}'
	t0=$(date +%s%N)
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	t1=$(date +%s%N)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"64+0 records in"* ]]
	echo "elapsed $(((t1 - t0) / 1000000)) ms"
	[ $((t1 - t0)) -ge 2500000000 ]
}

@test "rdma: rdma.max is written, or the missing controller/device is named" {
	update_config '.linux.resources.rdma = {"cvt_dev0": {"hcaHandles": 2, "hcaObjects": 2000}}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	if is_v2; then
		# the controller exists; no RDMA device named cvt_dev0 does
		[[ "$output" == *'write rdma.max "cvt_dev0 hca_handle=2 hca_object=2000": '* ]] || { echo "$output"; false; }
	elif [ ! -d /sys/fs/cgroup/rdma ]; then
		[[ "$output" == *"linux.resources.rdma: the rdma cgroup controller is not mounted on this host"* ]] || { echo "$output"; false; }
	fi
	[ ! -e "$(cg_dir memory)" ]
	[ ! -e "$(cg_dir unified)" ]
}

@test "v2: network classID/priorities are refused clearly (net_cls/net_prio are v1 only)" {
	is_v2 || skip "cgroup v2 host only (the v1 case is the net_cls test above)"
	update_config '.linux.resources.network = {"classID": 1048577}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.resources.network: classID and priorities need the cgroup v1 net_cls/net_prio controllers"* ]] || { echo "$output"; false; }
	[ ! -e "$(cg_dir unified)" ]
}

@test "linux.resources.devices rules are enforced (v1 devices.allow, v2 eBPF program)" {
	[ -c /dev/fuse ] || modprobe fuse 2>/dev/null || true
	[ -c /dev/fuse ] || skip "needs /dev/fuse (module fuse)"
	update_config '.process.args = ["sh", "-c", ": >/dev/fuse2 && echo fuse-ok"]
		| .mounts += [{"destination": "/dev/fuse2", "type": "bind", "source": "/dev/fuse", "options": ["bind"]}]
		| .linux.resources.devices = [{"allow": false, "access": "rwm"}, {"allow": true, "type": "c", "major": 10, "minor": 229, "access": "rw"}]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *fuse-ok* ]]
	# without the rule the same node is refused
	update_config '.linux.resources.devices = [{"allow": false, "access": "rwm"}]'
	run cvisor run --bundle "$CV_BUNDLE" "$(cv_new_id)"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	[[ "$output" != *fuse-ok* ]]
}
