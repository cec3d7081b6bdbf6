#!/usr/bin/env bats
# maskedPaths and readonlyPaths.

load helpers
load fs-helpers

@test "masked files are /dev/null, masked directories an empty read-only tmpfs" {
	run fs_run 'cat /proc/self/mountinfo; stat -c "%F %t:%T" /proc/keys; cat /proc/keys | wc -c; ls -A /proc/acpi | wc -l; touch /proc/acpi/x; echo "rc=$?"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"character special file 1:3"* ]]
	[[ "$(mount_line /proc/acpi)" == *" ro,nosuid,nodev,noexec"*" - tmpfs "* ]]
	[[ "$(mount_line /sys/firmware)" == *" ro,"*" - tmpfs "* ]]
	[[ "$output" == *"rc=1"* ]]
	[[ "$output" == *"Read-only file system"* ]]
}

@test "missing masked and readonly paths are skipped" {
	update_config '.linux.maskedPaths += ["/proc/no-such-file", "/no/such/dir"] | .linux.readonlyPaths += ["/no-such"]'
	run fs_run 'echo ran'
	[ "$status" -eq 0 ]
	[[ "$output" == *ran* ]]
}

@test "readonlyPaths: writes fail with EROFS and /proc keeps nosuid,nodev,noexec" {
	update_config '(.mounts[] | select(.destination == "/proc") | .options) = ["nosuid","nodev","noexec"]'
	update_config '.process.capabilities.bounding += ["CAP_SYS_ADMIN"] | .process.capabilities.effective += ["CAP_SYS_ADMIN"] | .process.capabilities.permitted += ["CAP_SYS_ADMIN"]'
	run fs_run 'cat /proc/self/mountinfo; echo 1 > /proc/sys/kernel/ns_last_pid; echo "rc=$?"'
	[ "$status" -eq 0 ]
	[[ "$(mount_line /proc/sys)" == *" ro,nosuid,nodev,noexec"* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *"rc=1"* ]]
}

@test "a readonly path directory in the rootfs" {
	update_config '.linux.readonlyPaths = ["/etc"] | .root.readonly = false'
	run fs_run 'touch /etc/x; echo "rc=$?"; touch /tmp/ok && echo tmpok'
	[ "$status" -eq 0 ]
	[[ "$output" == *"rc=1"* ]]
	[[ "$output" == *tmpok* ]]
	[ ! -e "$CV_BUNDLE/rootfs/etc/x" ]
}

@test "a masked file is never bound from a /dev/null that is not the null device" {
	# /dev comes from a bind mount of a directory whose "null" is a plain file
	mkdir -p "$CV_TMP/fakedev"
	echo secret >"$CV_TMP/fakedev/null"
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not)))'
	add_mount "{\"destination\":\"/dev\",\"type\":\"bind\",\"source\":\"$CV_TMP/fakedev\",\"options\":[\"rbind\"]}"
	run fs_run 'cat /proc/keys'
	[ "$status" -ne 0 ]
	[[ "$output" == *"/dev/null"*"not the null device"* ]]
	[ "$(cat "$CV_TMP/fakedev/null")" = secret ]
}

@test "a masked path that is a symlink is masked inside the rootfs" {
	update_config '.linux.maskedPaths = ["/etc/link"] | .root.readonly = false'
	echo data >"$CV_BUNDLE/rootfs/etc/target"
	ln -s /etc/target "$CV_BUNDLE/rootfs/etc/link"
	run fs_run 'cat /etc/target | wc -c'
	[ "$status" -eq 0 ]
	[[ "$output" == *0* ]]
	[ "$(cat "$CV_BUNDLE/rootfs/etc/target")" = data ]
}

@test "user namespace: masked and readonly paths hold" {
	fs_userns
	update_config '.mounts |= map(select(.type != "cgroup"))'
	update_config '.linux.readonlyPaths += ["/etc"] | .root.readonly = false'
	run fs_run 'cat /proc/self/mountinfo; stat -c "%F %t:%T" /proc/keys; cat /proc/keys | wc -c; ls -A /proc/acpi | wc -l; touch /proc/acpi/x; echo "acpi=$?"; echo 1 > /proc/sys/kernel/ns_last_pid; echo "sys=$?"; touch /etc/x; echo "etc=$?"; touch /tmp/x && echo tmpok'
	[ "$status" -eq 0 ]
	[[ "$output" == *"character special file 1:3"* ]]
	[[ "$(mount_line /proc/acpi)" == *" ro,nosuid,nodev,noexec"*" - tmpfs "* ]]
	[[ "$(mount_line /proc/sys)" == *" ro,"* ]]
	[[ "$(mount_line /etc)" == *" ro,"* ]]
	[[ "$output" == *"acpi=1"* ]]
	[[ "$output" == *"sys=1"* ]]
	[[ "$output" == *"etc=1"* ]]
	[[ "$output" == *tmpok* ]]
	[ ! -e "$CV_BUNDLE/rootfs/etc/x" ]
}

@test "user namespace: the default capabilities cannot undo a mask or a readonly path" {
	[ -z "${FS_RUNNER:-}" ] || skip "capabilities are applied by cvisor run only"
	fs_userns
	update_config '.mounts |= map(select(.type != "cgroup"))'
	run fs_run 'umount /proc/keys 2>&1; echo "umount=$?"; mount -o remount,rw /proc/sys 2>&1; echo "remount=$?"; cat /proc/keys | wc -c; echo 1 > /proc/sys/kernel/ns_last_pid; echo "sys=$?"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"umount=1"* || "$output" == *"umount=255"* ]]
	[[ "$output" != *"remount=0"* ]]
	[[ "$output" == *"sys=1"* ]]
	[[ "$(printf '%s\n' "$output" | grep -x '[0-9]*' | head -1)" = 0 ]]
}
