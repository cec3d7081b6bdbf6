#!/usr/bin/env bats
# create + start with a non-root process.user: the container process must
# still reach the exec FIFO after it dropped to that user.

load helpers

@test "create/start with process.user 1000:1000 runs as that user" {
	requires_root
	make_bundle
	update_config '.process.user = {"uid": 1000, "gid": 1000} | .process.args = ["sh", "-c", "id -u; id -g"]'
	# the container process writes to create's stdout: $CV_TMP/create.out
	cv_create "$CV_ID"
	run cvisor state "$CV_ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"status": "created"'* ]]
	run cvisor start "$CV_ID"
	[ "$status" -eq 0 ]
	for _ in $(seq 100); do [ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ] && break; sleep 0.05; done
	[ "$(cvisor state "$CV_ID" | jq -r .status)" = stopped ]
	cat "$CV_TMP/create.out"
	[ "$(cat "$CV_TMP/create.out")" = "$(printf '1000\n1000')" ]
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ]
}

@test "run with process.user 1000:1000 prints that uid and gid" {
	requires_root
	make_bundle
	update_config '.process.user = {"uid": 1000, "gid": 1000} | .process.args = ["sh", "-c", "echo $(id -u):$(id -g)"]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = "1000:1000" ]
}

@test "created container with process.user writes its output after start" {
	requires_root
	make_bundle
	update_config '.process.user = {"uid": 1000, "gid": 1000} | .process.args = ["sh", "-c", "id -u > /tmp/out; sleep 30"] | .root.readonly = false | .mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["mode=1777"]}]'
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ]
	run cvisor start "$CV_ID"
	[ "$status" -eq 0 ]
	local pid
	pid=$(cvisor state "$CV_ID" | jq -r .pid)
	for _ in $(seq 50); do
		[ -s "/proc/$pid/root/tmp/out" ] && break
		sleep 0.1
	done
	[ "$(cat "/proc/$pid/root/tmp/out")" = "1000" ]
	run cvisor state "$CV_ID"
	[[ "$output" == *'"status": "running"'* ]]
}

# Issue 14 item 5: without HOME in process.env, runc and crun set it from the
# container's /etc/passwd for the process's uid, "/" without an entry.
@test "HOME: from the container's /etc/passwd when process.env has none, for run and exec; a given one kept" {
	requires_root
	requires jq
	make_bundle
	echo 'app:x:1000:1000:app:/home/app:/bin/sh' >>"$CV_BUNDLE/rootfs/etc/passwd"
	update_config '.process.env = ["PATH=/bin:/usr/bin"] | .process.args = ["sh", "-c", "echo \"home=$HOME\""]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID-root"
	[ "$status" -eq 0 ]
	[ "$output" = home=/root ]
	update_config '.process.user = {"uid": 1000, "gid": 1000}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID-app"
	[ "$status" -eq 0 ]
	[ "$output" = home=/home/app ]
	update_config '.process.user = {"uid": 4242, "gid": 4242}'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID-none"
	[ "$status" -eq 0 ]
	[ "$output" = home=/ ]
	update_config '.process.user = {"uid": 1000, "gid": 1000} | .process.env += ["HOME=/given"]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID-given"
	[ "$status" -eq 0 ]
	[ "$output" = home=/given ]
	# exec: the same rule, for its own user
	update_config '.process.user = {"uid": 0, "gid": 0} | .process.env = ["PATH=/bin:/usr/bin"] | .process.args = ["sleep", "100"]'
	cvisor run -d --bundle "$CV_BUNDLE" "$CV_ID" </dev/null >/dev/null 2>&1
	run cvisor exec --user 1000:1000 "$CV_ID" sh -c 'echo "home=$HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = home=/home/app ]
	run cvisor exec "$CV_ID" sh -c 'echo "home=$HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = home=/root ]
	cvisor delete --force "$CV_ID"
}

@test "HOME: an /etc/passwd that is a FIFO neither blocks the start nor counts: HOME=/" {
	requires_root
	make_bundle
	rm "$CV_BUNDLE/rootfs/etc/passwd"
	mkfifo "$CV_BUNDLE/rootfs/etc/passwd"
	update_config '.process.env = ["PATH=/bin:/usr/bin"] | .process.args = ["sh", "-c", "echo \"home=$HOME\""]'
	run timeout 30 "$CVISOR" --root "$CV_ROOT" run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$output" = home=/ ]
}
