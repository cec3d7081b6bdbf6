#!/usr/bin/env bats
# The root: a recursive clone of root.path (any directory, the host's "/"
# too), read-only throughout when root.readonly, the mount flags of
# annotation org.cvisor.rootfs.flags over the whole tree, and without what
# annotation org.cvisor.rootfs.hide leaves out.

load helpers
load fs-helpers # its setup and teardown (which unmounts fs_host_mount's mounts)

# A tmpfs mounted on the host at rootfs/mnt/sub, holding a file.
host_submount() {
	RF_SUBMOUNT="$CV_BUNDLE/rootfs/mnt/sub"
	mkdir -p "$RF_SUBMOUNT"
	fs_host_mount -t tmpfs -o size=1m tmpfs "$RF_SUBMOUNT"
	echo host >"$RF_SUBMOUNT/f"
}

@test "rootfs: a mount inside the rootfs directory comes along, writable unless the root is read-only" {
	requires_root
	host_submount
	update_config '.root.readonly = false'
	run fs_run 'cat /mnt/sub/f; echo new > /mnt/sub/g && echo wrote'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = host ]
	[ "${lines[1]}" = wrote ]
	[ "$(cat "$RF_SUBMOUNT/g")" = new ]
}

@test "rootfs: readonly makes the mounts it brings along read-only too; spec mounts keep their own options" {
	requires_root
	host_submount
	update_config '.root.readonly = true'
	add_mount '{"destination":"/mnt/t","type":"tmpfs","source":"tmpfs","options":["size=1m"]}'
	run fs_run 'cat /proc/self/mountinfo; echo x > /mnt/sub/g 2>&1; echo "sub=$?"; echo x > /x 2>&1; echo "top=$?";
		echo x > /mnt/t/x && echo "spec=0"'
	[ "$status" -eq 0 ]
	[[ "$(mount_line /mnt/sub)" == *" ro,"* ]]
	[[ "$(mount_line /)" == *" ro,"* ]]
	[[ "$output" == *"sub=1"* ]]
	[[ "$output" == *"top=1"* ]]
	[[ "$output" == *"spec=0"* ]]
	# the host's mount is untouched
	[[ "$(grep " $RF_SUBMOUNT " /proc/self/mountinfo)" == *" rw,"* ]]
	[ ! -e "$RF_SUBMOUNT/g" ]
}

@test "rootfs: annotation org.cvisor.rootfs.flags sets nosuid, nodev, noexec on the whole tree" {
	requires_root
	host_submount
	mknod "$RF_SUBMOUNT/null" c 1 3
	update_config '.annotations["org.cvisor.rootfs.flags"] = "nosuid,nodev"'
	run fs_run 'cat /proc/self/mountinfo; echo > /mnt/sub/null 2>&1 || echo nodev-denied'
	[ "$status" -eq 0 ]
	[[ "$(mount_line /)" == *",nosuid,nodev"* ]]
	[[ "$(mount_line /mnt/sub)" == *",nosuid,nodev"* ]]
	[[ "$output" == *"nodev-denied"* ]]
	update_config '.annotations["org.cvisor.rootfs.flags"] = "noexec"'
	run fs_run 'true'
	[ "$status" -ne 0 ] # sh itself lives on the root
	[[ "$output" == *"Permission denied"* ]]
}

@test "rootfs: annotation org.cvisor.rootfs.hide leaves out the host's mounts below a spec mount's destination" {
	requires_root
	host_submount
	mkdir -p "$CV_BUNDLE/rootfs/srv/keep"
	fs_host_mount -t tmpfs -o size=1m tmpfs "$CV_BUNDLE/rootfs/srv/keep"
	add_mount '{"destination": "/mnt", "type": "tmpfs", "source": "tmpfs"}'
	update_config '.annotations["org.cvisor.rootfs.hide"] = "/mnt"'
	run fs_run 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[ -z "$(mount_line /mnt/sub)" ] # not even below the spec's tmpfs
	[ "$(printf '%s\n' "$output" | awk '$5 == "/mnt"' | wc -l)" = 1 ]
	[ -n "$(mount_line /srv/keep)" ] # the others come along
	[[ "$(mount_line /srv/keep)" == *" ro,"* ]] # read-only with the root
	# the same in a user namespace: the runtime makes the copy
	fs_userns
	run fs_run 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[ -z "$(mount_line /mnt/sub)" ]
	[ -n "$(mount_line /srv/keep)" ]
}

@test "rootfs: org.cvisor.rootfs.hide names only destinations of mounts, nothing left" {
	requires_root
	update_config '.annotations["org.cvisor.rootfs.hide"] = "/mnt"'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'annotation org.cvisor.rootfs.hide: `/mnt` is not the destination of a mount'* ]]
	run cvisor list -q
	[ -z "$output" ]
	[ -z "$(_cv_id_cgroups)" ]
}

@test "rootfs: an unknown flag in org.cvisor.rootfs.flags is an error naming it, nothing left" {
	requires_root
	update_config '.annotations["org.cvisor.rootfs.flags"] = "nosuid,rdonly"'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'annotation org.cvisor.rootfs.flags: unknown flag `rdonly` in `nosuid,rdonly` (known: nosuid, nodev, noexec)'* ]]
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	run cvisor list -q
	[ -z "$output" ]
	[ -z "$(_cv_id_cgroups)" ]
}

@test "rootfs: root.path \"/\" is the host's root, read-only, with the spec's mounts on top" {
	requires_root
	update_config '.root = {"path": "/", "readonly": true} | .process.cwd = "/"'
	run fs_run 'test -e /usr/share/doc && echo host-usr; echo x > /usr/cvisor-rootfs-test 2>&1 || echo refused;
		cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[[ "$output" == *host-usr* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *refused* ]]
	[[ "$(mount_line /proc)" == *" - proc proc "* ]]
	[[ "$(mount_line /dev)" == *" - tmpfs "* ]]
	[ ! -e /usr/cvisor-rootfs-test ]
	# --no-pivot cannot stage the host's root
	run cvisor run --no-pivot --bundle "$CV_BUNDLE" "$(cv_new_id)"
	[ "$status" -ne 0 ]
	[[ "$output" == *'root.path `/`: --no-pivot cannot move the host'* ]]
	run cvisor list -q
	[ -z "$output" ]
}
