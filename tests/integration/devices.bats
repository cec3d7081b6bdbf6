#!/usr/bin/env bats
# /dev: default devices, linux.devices, links, console.

load helpers
load fs-helpers

@test "default devices: major:minor, mode 0666, root owned" {
	run fs_run 'for d in null zero full random urandom tty; do stat -c "%n %F %t:%T %a %u:%g" /dev/$d; done'
	[ "$status" -eq 0 ]
	[[ "$output" == *"/dev/null character special file 1:3 666 0:0"* ]]
	[[ "$output" == *"/dev/zero character special file 1:5 666 0:0"* ]]
	[[ "$output" == *"/dev/full character special file 1:7 666 0:0"* ]]
	[[ "$output" == *"/dev/random character special file 1:8 666 0:0"* ]]
	[[ "$output" == *"/dev/urandom character special file 1:9 666 0:0"* ]]
	[[ "$output" == *"/dev/tty character special file 5:0 666 0:0"* ]]
}

@test "/dev links: ptmx, fd, stdin, stdout, stderr; /dev/pts and /dev/shm" {
	run fs_run 'for l in ptmx fd stdin stdout stderr; do echo "$l -> $(readlink /dev/$l)"; done; test -d /dev/pts && test -d /dev/shm && echo dirs'
	[ "$status" -eq 0 ]
	[[ "$output" == *"ptmx -> pts/ptmx"* ]]
	[[ "$output" == *"fd -> /proc/self/fd"* ]]
	[[ "$output" == *"stdin -> /proc/self/fd/0"* ]]
	[[ "$output" == *"stdout -> /proc/self/fd/1"* ]]
	[[ "$output" == *"stderr -> /proc/self/fd/2"* ]]
	[[ "$output" == *dirs* ]]
}

@test "linux.devices: char, block and fifo with fileMode, uid, gid, nested path" {
	update_config '.linux.devices = [
		{"path":"/dev/mynull","type":"c","major":1,"minor":3,"fileMode":384,"uid":12,"gid":34},
		{"path":"/dev/sub/dir/myzero","type":"c","major":1,"minor":5},
		{"path":"/dev/myloop","type":"b","major":7,"minor":200,"fileMode":432},
		{"path":"/dev/myfifo","type":"p","fileMode":420}]'
	run fs_run 'for d in mynull sub/dir/myzero myloop myfifo; do stat -c "%n %F %t:%T %a %u:%g" /dev/$d; done'
	[ "$status" -eq 0 ]
	[[ "$output" == *"/dev/mynull character special file 1:3 600 12:34"* ]]
	[[ "$output" == *"/dev/sub/dir/myzero character special file 1:5 666 0:0"* ]]
	[[ "$output" == *"/dev/myloop block special file 7:c8 660 0:0"* ]]
	[[ "$output" == *"/dev/myfifo fifo 0:0 644 0:0"* ]]
}

@test "a linux.devices entry overrides a default device" {
	update_config '.linux.devices = [{"path":"/dev/null","type":"c","major":1,"minor":3,"fileMode":438,"uid":5,"gid":6}]'
	run fs_run 'stat -c "%t:%T %a %u:%g" /dev/null'
	[ "$status" -eq 0 ]
	[[ "$output" == *"1:3 666 5:6"* ]]
}

@test "devices on the image's /dev replace stale entries" {
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not)))'
	update_config '.root.readonly = false'
	echo stale >"$CV_BUNDLE/rootfs/dev/null"
	run fs_run 'stat -c "%F %t:%T" /dev/null'
	[ "$status" -eq 0 ]
	[[ "$output" == *"character special file 1:3"* ]]
}

@test "an unknown device type fails naming the device" {
	update_config '.linux.devices = [{"path":"/dev/x","type":"q","major":1,"minor":3}]'
	run fs_run 'true'
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.devices"* ]]
}

@test "a device path escaping through a symlink is created inside the rootfs" {
	ln -s /tmp "$CV_BUNDLE/rootfs/evil"
	update_config '.linux.devices = [{"path":"/evil/cvnull","type":"c","major":1,"minor":3}]'
	update_config '.root.readonly = false'
	run fs_run 'stat -c "%F %t:%T" /tmp/cvnull'
	[ "$status" -eq 0 ]
	[[ "$output" == *"character special file 1:3"* ]]
	[ ! -e /tmp/cvnull ]
	[ -c "$CV_BUNDLE/rootfs/tmp/cvnull" ]
}

@test "user namespace: devices are bind mounts of the host's nodes" {
	update_config '.linux.namespaces += [{"type":"user"}] | .linux.uidMappings = [{"containerID":0,"hostID":100000,"size":65536}] | .linux.gidMappings = [{"containerID":0,"hostID":100000,"size":65536}]'
	update_config '.mounts |= map(select(.type != "cgroup" and .type != "sysfs"))'
	chown -R 100000:100000 "$CV_BUNDLE/rootfs"
	d="$CV_BUNDLE"
	while [ "$d" != / ]; do chmod o+x "$d"; d="$(dirname "$d")"; done
	run fs_run 'cat /proc/self/mountinfo; stat -c "%n %t:%T" /dev/null /dev/zero'
	[ "$status" -eq 0 ]
	[[ "$(mount_line /dev/null)" == *" - devtmpfs "* || "$(mount_line /dev/null)" == *" - tmpfs "* ]]
	[[ "$output" == *"/dev/null 1:3"* ]]
	[[ "$output" == *"/dev/zero 1:5"* ]]
}
