# Helpers for the filesystem tests (mounts, devices, masked, attacks).
# Load after helpers: `load helpers; load fs-helpers`.

# fs_run SCRIPT: runs `sh -c SCRIPT` in a new container of $CV_BUNDLE
# (through `cvisor run`; set FS_RUNNER=path/to/fs-run to drive the
# filesystem module alone). Use with bats' `run`.
fs_run() {
	update_config ".process.args = [\"sh\", \"-c\", $(jq -Rn --arg s "$1" '$s')]"
	if [ -n "${FS_RUNNER:-}" ]; then
		if jq -e '.linux.namespaces | any(.type == "user")' "$CV_BUNDLE/config.json" >/dev/null; then
			"$FS_RUNNER" --userns "$CV_BUNDLE" 2>&1
		else
			"$FS_RUNNER" "$CV_BUNDLE" 2>&1
		fi
	else
		cvisor run --bundle "$CV_BUNDLE" "$(cv_new_id)" 2>&1
	fi
}

# add_mount JSON: appends one mount object to .mounts
add_mount() {
	update_config ".mounts += [$1]"
}

# mount_line DEST: the /proc/self/mountinfo line for DEST, from $output
mount_line() {
	printf '%s\n' "$output" | awk -v d="$1" '$5 == d' | tail -1
}

# fs_userns: the container gets its own user namespace (root = host 100000,
# 65536 ids), the rootfs is chowned into it and its parents made searchable.
fs_userns() {
	local d
	update_config '.linux.namespaces += [{"type":"user"}] | .linux.uidMappings = [{"containerID":0,"hostID":100000,"size":65536}] | .linux.gidMappings = [{"containerID":0,"hostID":100000,"size":65536}]'
	chown -R 100000:100000 "$CV_BUNDLE/rootfs"
	d="$CV_BUNDLE"
	while [ "$d" != / ]; do
		chmod o+x "$d"
		d="$(dirname "$d")"
	done
}

# fs_run_userns SCRIPT: like fs_run, through the fs-run driver with --userns
# (the runtime's order: idmapped mounts prepared before the user namespace).
fs_run_userns() {
	update_config ".process.args = [\"sh\", \"-c\", $(jq -Rn --arg s "$1" '$s')]"
	"$CVISOR_BUILDDIR/tests/integration/fs-run" --userns "$CV_BUNDLE" 2>&1
}

# Host mounts this test makes; fs_teardown unmounts them (deepest first).
fs_host_mount() {
	mount "$@" && echo "${@: -1}" >>"$CV_TMP/.mounts"
}

fs_teardown() {
	if [ -n "${CV_TMP:-}" ] && [ -f "$CV_TMP/.mounts" ]; then
		tac "$CV_TMP/.mounts" | while read -r m; do
			umount -l "$m" 2>/dev/null || true
		done
	fi
	cv_teardown
}

setup() {
	requires_root
	cv_setup
	make_bundle
}

teardown() {
	fs_teardown
}
