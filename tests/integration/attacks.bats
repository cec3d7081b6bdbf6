#!/usr/bin/env bats
# Hostile rootfs layouts: mount destinations through symlinks out of the
# rootfs (CVE-2021-30465 class), racing symlink swaps. Each mount must land
# inside the rootfs or the container must fail clearly; the host must not
# change.

load helpers
load fs-helpers

host_snapshot() {
	{
		# only mounts this test could cause: other suites may run in parallel
		awk -v t="$CV_TMP" 'index($5, t) == 1 || $5 ~ /^\/(etc|mnt|proc|sys|dev)?$/ { print $5, $9 }' /proc/self/mountinfo
		stat -c '%n %Y %s' /etc/passwd "$CV_TMP/victim" "$CV_TMP/victim"/* 2>/dev/null
		ls -A "$CV_TMP/victim"
	} >"$1"
}

setup() {
	requires_root
	cv_setup
	make_bundle
	update_config '.root.readonly = false'
	mkdir -p "$CV_TMP/victim"
	echo keep >"$CV_TMP/victim/file"
}

@test "destination symlinked to / lands on the rootfs itself, not the host" {
	ln -s / "$CV_BUNDLE/rootfs/toroot"
	add_mount '{"destination":"/toroot/mnt/x","type":"tmpfs","source":"tmpfs"}'
	host_snapshot "$CV_TMP/before"
	run fs_run 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[[ "$(mount_line /mnt/x)" == *" - tmpfs "* ]]
	[ -d "$CV_BUNDLE/rootfs/mnt/x" ]
	[ ! -e /mnt/x ]
	host_snapshot "$CV_TMP/after"
	diff "$CV_TMP/before" "$CV_TMP/after"
}

@test "destination symlinked to /etc stays in the rootfs's /etc" {
	ln -s /etc "$CV_BUNDLE/rootfs/toetc"
	echo hostfile >"$CV_TMP/bindsrc"
	add_mount "{\"destination\":\"/toetc/passwd\",\"type\":\"bind\",\"source\":\"$CV_TMP/bindsrc\",\"options\":[\"bind\"]}"
	host_snapshot "$CV_TMP/before"
	run fs_run 'cat /etc/passwd'
	[ "$status" -eq 0 ]
	[[ "$output" == *hostfile* ]]
	grep -q '^root:' /etc/passwd
	host_snapshot "$CV_TMP/after"
	diff "$CV_TMP/before" "$CV_TMP/after"
}

@test "destination through ../../.. and an absolute host path stays inside" {
	ln -s "../../../../../../../../$CV_TMP/victim" "$CV_BUNDLE/rootfs/up"
	ln -s "$CV_TMP/victim" "$CV_BUNDLE/rootfs/abs"
	add_mount '{"destination":"/up/a","type":"tmpfs","source":"tmpfs"}'
	add_mount '{"destination":"/abs/b","type":"tmpfs","source":"tmpfs"}'
	add_mount '{"destination":"/x/../../../../up/c","type":"tmpfs","source":"tmpfs"}'
	host_snapshot "$CV_TMP/before"
	run fs_run 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[ -d "$CV_BUNDLE/rootfs/$CV_TMP/victim/a" ]
	[ -d "$CV_BUNDLE/rootfs/$CV_TMP/victim/b" ]
	[ -d "$CV_BUNDLE/rootfs/$CV_TMP/victim/c" ]
	[ ! -e "$CV_TMP/victim/a" ]
	[ ! -e "$CV_TMP/victim/b" ]
	[ ! -e "$CV_TMP/victim/c" ]
	host_snapshot "$CV_TMP/after"
	diff "$CV_TMP/before" "$CV_TMP/after"
}

@test "/proc and /sys as symlinks out of the rootfs are mounted inside" {
	rmdir "$CV_BUNDLE/rootfs/proc" "$CV_BUNDLE/rootfs/sys"
	ln -s "$CV_TMP/victim" "$CV_BUNDLE/rootfs/proc"
	ln -s /sys "$CV_BUNDLE/rootfs/sys" # points at itself once inside the root
	host_snapshot "$CV_TMP/before"
	run fs_run 'cat /proc/self/mountinfo'
	host_snapshot "$CV_TMP/after"
	diff "$CV_TMP/before" "$CV_TMP/after"
	[ "$(cat "$CV_TMP/victim/file")" = keep ]
	# either a clear failure or the mounts are inside the rootfs
	if [ "$status" -eq 0 ]; then
		[[ "$output" == *" - proc proc "* ]]
	else
		[[ "$output" == *"/proc"* || "$output" == *"/sys"* ]]
	fi
}

@test "a linux.devices parent symlinked out of the rootfs" {
	ln -s "$CV_TMP/victim" "$CV_BUNDLE/rootfs/dev/evil"
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not)))'
	update_config '.linux.devices = [{"path":"/dev/evil/node","type":"c","major":1,"minor":3}]'
	host_snapshot "$CV_TMP/before"
	run fs_run 'true'
	host_snapshot "$CV_TMP/after"
	diff "$CV_TMP/before" "$CV_TMP/after"
	[ ! -e "$CV_TMP/victim/node" ]
}

@test "a directory swapped for a symlink while mounts are made" {
	# many nested mounts under /race while a racer flips /race between a
	# directory and a symlink to the host victim directory
	for i in $(seq 1 20); do
		add_mount "{\"destination\":\"/race/d$i/e\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"}"
	done
	host_snapshot "$CV_TMP/before"
	r="$CV_BUNDLE/rootfs"
	(
		set +e
		while :; do
			rm -rf "$r/race.tmp"; mkdir -p "$r/race.tmp"
			mv -T "$r/race.tmp" "$r/race" 2>/dev/null
			ln -sfn "$CV_TMP/victim" "$r/race.lnk" && mv -T "$r/race.lnk" "$r/race" 2>/dev/null
			ln -sfn / "$r/race.lnk" && mv -T "$r/race.lnk" "$r/race" 2>/dev/null
		done
	) &
	racer=$!
	cv_track_pid "$racer"
	ok=0 failed=0
	for n in $(seq 1 15); do
		run fs_run 'true'
		if [ "$status" -eq 0 ]; then ok=$((ok + 1)); else failed=$((failed + 1)); fi
	done
	kill "$racer" || true
	wait "$racer" 2>/dev/null || true
	echo "# ok=$ok failed=$failed" >&3
	host_snapshot "$CV_TMP/after"
	diff "$CV_TMP/before" "$CV_TMP/after"
	[ "$(ls -A "$CV_TMP/victim")" = file ]
	[ ! -e /d1 ]
}

@test "tmpcopyup while a directory is swapped for a symlink to the host copies nothing from the host" {
	echo SECRET >"$CV_TMP/victim/hostsecret"
	r="$CV_BUNDLE/rootfs"
	mkdir -p "$r/data"
	for i in $(seq 1 30); do echo "$i" >"$r/data/f$i"; done
	add_mount '{"destination":"/data","type":"tmpfs","source":"tmpfs","options":["tmpcopyup"]}'
	host_snapshot "$CV_TMP/before"
	(
		set +e
		while :; do
			rm -rf "$r/data/sub.tmp"; mkdir -p "$r/data/sub.tmp" && echo inside >"$r/data/sub.tmp/hostsecret"
			mv -T "$r/data/sub.tmp" "$r/data/sub" 2>/dev/null
			ln -sfn "$CV_TMP/victim" "$r/data/sub.lnk" && mv -T "$r/data/sub.lnk" "$r/data/sub" 2>/dev/null
		done
	) &
	racer=$!
	cv_track_pid "$racer"
	ok=0 failed=0 leaks=0
	for n in $(seq 1 20); do
		run fs_run 'cat /data/sub/hostsecret 2>/dev/null; cat /data/sub.tmp/hostsecret 2>/dev/null; cat /data/sub.lnk/hostsecret 2>/dev/null; echo end'
		if [ "$status" -eq 0 ]; then ok=$((ok + 1)); else failed=$((failed + 1)); fi
		[[ "$output" != *SECRET* ]] || leaks=$((leaks + 1))
		# a failure names the copy, never something obscure
		[ "$status" -eq 0 ] || [[ "$output" == *"tmpcopyup on \`/data\`"* ]]
	done
	kill "$racer" || true
	wait "$racer" 2>/dev/null || true
	echo "# ok=$ok failed=$failed leaks=$leaks" >&3
	[ "$leaks" -eq 0 ]
	host_snapshot "$CV_TMP/after"
	diff "$CV_TMP/before" "$CV_TMP/after"
	[ "$(cat "$CV_TMP/victim/hostsecret")" = SECRET ]
}
