#!/usr/bin/env bats
# create / start / run / kill / delete / pause / resume and the state after
# each verb, including after failures (nothing left behind).

load helpers

setup() {
	cv_setup
	requires_root
	make_bundle
	cd "$CV_BUNDLE"
}

teardown() {
	cv_teardown
}

# No state entry and no cgroup directory named after the id remain.
assert_gone() {
	local id="$1"
	[ ! -e "$CV_ROOT/$id" ]
	run _cv_id_cgroups
	[ -z "$output" ]
}

status_of() {
	cvisor state "$1" | jq -r .status
}

@test "run /bin/true exits 0 and leaves nothing behind" {
	run cvisor run "$CV_ID"
	[ "$status" -eq 0 ]
	assert_gone "$CV_ID"
}

@test "run returns the exit code of the process" {
	update_config '.process.args = ["sh", "-c", "exit 3"]'
	run cvisor run "$CV_ID"
	[ "$status" -eq 3 ]
	assert_gone "$CV_ID"
}

@test "run returns 128+signal when the process is killed" {
	update_config '.process.args = ["sleep", "100"]'
	"$CVISOR" --root "$CV_ROOT" run "$CV_ID" </dev/null >/dev/null 2>&1 &
	runpid=$!
	cv_track_pid "$runpid"
	for _ in $(seq 100); do [ "$(status_of "$CV_ID" 2>/dev/null)" = running ] && break; sleep 0.05; done
	cvisor kill "$CV_ID" KILL
	rc=0
	wait "$runpid" || rc=$?
	[ "$rc" -eq $((128 + 9)) ]
	assert_gone "$CV_ID"
}

@test "run forwards signals it receives to the container process" {
	update_config '.process.args = ["sh", "-c", "trap \"exit 42\" TERM; while :; do sleep 0.1; done"]'
	"$CVISOR" --root "$CV_ROOT" run "$CV_ID" </dev/null >/dev/null 2>&1 &
	runpid=$!
	cv_track_pid "$runpid"
	for _ in $(seq 100); do [ "$(status_of "$CV_ID" 2>/dev/null)" = running ] && break; sleep 0.05; done
	sleep 0.2 # let the shell install its trap
	kill -TERM "$runpid"
	rc=0
	wait "$runpid" || rc=$?
	[ "$rc" -eq 42 ]
	assert_gone "$CV_ID"
}

@test "rlimits: a hard limit above the current one is refused with a clear error" {
	hard="$(ulimit -Hn)"
	update_config ".process.rlimits = [{\"type\": \"RLIMIT_NOFILE\", \"soft\": $((hard + 1)), \"hard\": $((hard + 1))}]"
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"setrlimit RLIMIT_NOFILE (soft $((hard + 1)), hard $((hard + 1))): Operation not permitted"* ]]
	assert_gone "$CV_ID"
}

@test "create, start, kill, delete: state after every verb" {
	update_config '.process.args = ["sleep", "100"]'
	cvisor create --pid-file "$CV_TMP/pid" "$CV_ID" </dev/null >/dev/null 2>&1
	[ "$(status_of "$CV_ID")" = created ]
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	[ "$pid" = "$(cat "$CV_TMP/pid")" ]
	# Blocked before execve: still the runtime's image.
	[ "$(readlink /proc/$pid/exe)" != "$(readlink -f "$CV_BUNDLE/rootfs/bin/busybox")" ]
	cvisor start "$CV_ID"
	[ "$(status_of "$CV_ID")" = running ]
	run cvisor start "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot start an already running container"* ]]
	run cvisor delete "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot delete container $CV_ID that is not stopped: running"* ]]
	cvisor kill "$CV_ID" KILL
	# The process is no longer ours to reap: wait for it to be gone.
	for _ in $(seq 100); do [ "$(status_of "$CV_ID")" = stopped ] && break; sleep 0.05; done
	[ "$(status_of "$CV_ID")" = stopped ]
	[ "$(cvisor state "$CV_ID" | jq -r .pid)" = 0 ]
	run cvisor kill "$CV_ID" TERM
	[ "$status" -ne 0 ]
	[[ "$output" == *"container not running"* ]]
	run cvisor start "$CV_ID"
	[[ "$output" == *"cannot start a container that has stopped"* ]]
	cvisor delete "$CV_ID"
	assert_gone "$CV_ID"
	run cvisor state "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"container \"$CV_ID\" does not exist"* ]]
}

@test "delete of a created container kills it; delete --force of a running one" {
	update_config '.process.args = ["sleep", "100"]'
	cvisor create "$CV_ID" </dev/null >/dev/null 2>&1
	pid="$(cvisor state "$CV_ID" | jq -r .pid)"
	cvisor delete "$CV_ID"
	assert_gone "$CV_ID"
	# gone, or a zombie nobody reaped yet
	if kill -0 "$pid" 2>/dev/null; then grep -q '^State:.*Z' /proc/$pid/status; fi

	id2="$CV_ID-2"; echo "$id2" >>"$CV_TMP/.ids"
	cvisor run -d "$id2" </dev/null >/dev/null 2>&1
	[ "$(status_of "$id2")" = running ]
	cvisor delete --force "$id2"
	assert_gone "$id2"
}

@test "kill and delete of a missing container use the runc words" {
	run cvisor kill nothere-$$ KILL
	[ "$status" -ne 0 ]
	[[ "$output" == *'container "nothere-'*'" does not exist'* ]]
	run cvisor delete nothere-$$
	[ "$status" -ne 0 ]
	[[ "$output" == *"does not exist"* ]]
}

@test "delete --force of a missing container succeeds, and removes what a killed create left" {
	run cvisor delete --force nothere-$$
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# a create killed before it wrote its state leaves a directory with a
	# lock only: delete says it does not exist, delete --force removes it
	mkdir -p "$CV_ROOT/$CV_ID"
	: >"$CV_ROOT/$CV_ID/lock"
	run cvisor delete "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"container \"$CV_ID\" does not exist"* ]]
	[ -d "$CV_ROOT/$CV_ID" ]
	run cvisor delete -f "$CV_ID"
	[ "$status" -eq 0 ]
	[ ! -e "$CV_ROOT/$CV_ID" ]
	# an invalid id is still an error
	run cvisor delete --force "../x"
	[ "$status" -ne 0 ]
	[[ "$output" == *"invalid container id"* ]]
}

@test "pause and resume" {
	update_config '.process.args = ["sleep", "100"]'
	cvisor run -d "$CV_ID" </dev/null >/dev/null 2>&1
	cvisor pause "$CV_ID"
	[ "$(status_of "$CV_ID")" = paused ]
	run cvisor resume "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$(status_of "$CV_ID")" = running ]
	run cvisor resume "$CV_ID"
	[[ "$output" == *"container not paused"* ]]
	run cvisor ps "$CV_ID"
	[ "$status" -eq 0 ]
	[[ "$output" == *sleep* ]]
	cvisor delete --force "$CV_ID"
	assert_gone "$CV_ID"
}

@test "a missing rootfs is a clear error and leaves nothing" {
	update_config '.root.path = "nowhere"'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"nowhere"* ]]
	assert_gone "$CV_ID"
}

@test "a failure inside the container process is reported with context and cleaned up" {
	update_config '.process.args = ["does-not-exist"]'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *'"does-not-exist": executable file not found in $PATH'* ]]
	assert_gone "$CV_ID"
	run cvisor create "$CV_ID"
	[ "$status" -ne 0 ]
	assert_gone "$CV_ID"
}

@test "the container process of a failed create is killed" {
	update_config '.process.capabilities.bounding += ["CAP_NOT_A_CAP"]'
	run cvisor run "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"CAP_NOT_A_CAP"* ]]
	assert_gone "$CV_ID"
}

@test "list shows containers with their status" {
	update_config '.process.args = ["sleep", "100"]'
	cvisor create "$CV_ID" </dev/null >/dev/null 2>&1
	run cvisor list
	[ "$status" -eq 0 ]
	[[ "$output" == *"$CV_ID"*created* ]]
	cvisor delete "$CV_ID"
	run cvisor list -q
	[ -z "$output" ]
}

# CVE-2019-5736: the runtime runs from a read-only or sealed image, so a
# handle a container takes on it is never writable. The binary under test is
# a private copy, so a failing test cannot damage the build.
guard_setup() {
	cp "$CVISOR" "$CV_TMP/cvisor-copy"
	GUARD_SUM=$(sha256sum <"$CV_TMP/cvisor-copy")
	# the glibc loader and libraries, so the binary can run inside
	local l
	for l in $(ldd "$CV_TMP/cvisor-copy" | grep -o '/[^ ]*'); do
		mkdir -p "rootfs$(dirname "$l")"
		cp -L "$l" "rootfs$l"
	done
}

guard_cvisor() {
	"$CV_TMP/cvisor-copy" --root "$CV_ROOT" "$@"
}

# A startContainer hook runs in the container while the runtime's child is
# still its pid 1; it holds every capability, CAP_SYS_PTRACE included. It
# opens pid 1's image and its fds that name the runtime, and writes through
# them once the test writes /go (guard_go).
guard_ptrace_attack() {
	cat >rootfs/bin/grab <<'SH'
#!/bin/sh
(
	exec 3</proc/1/exe || { echo NOOPEN >/out; exit 0; }
	echo "pid 1 runs $(readlink /proc/1/exe)" >/out
	for f in /proc/1/fd/*; do
		case "$(readlink $f)" in *cvisor*|/memfd:*) ;; *) continue ;; esac
		if (echo PWNED >>"$f") 2>/dev/null; then echo "WROTE fd $(readlink $f)" >>/out; fi
	done
	# the test writes /go once no host process maps the binary any more:
	# before that a write fails with ETXTBSY even without protection
	while [ ! -e /go ]; do sleep 0.05; done
	if echo PWNED >>/proc/self/fd/3 2>>/out; then echo WROTE >>/out; exit 0; fi
	echo DENIED >>/out
) </dev/null >/dev/null 2>&1 &
SH
	chmod +x rootfs/bin/grab
	update_config '.root.readonly = false | .process.args = ["sleep", "100"]
		| .process.capabilities.bounding += ["CAP_SYS_PTRACE"]
		| .process.capabilities.effective += ["CAP_SYS_PTRACE"]
		| .process.capabilities.permitted += ["CAP_SYS_PTRACE"]
		| .hooks.startContainer = [{"path": "/bin/grab"}]'
}

# Once no process executes the binary (or a copy of it, or the images
# given), lets the attack write; waits for its outcome in rootfs/out.
guard_go() {
	local i pattern=(-e "$CV_TMP/cvisor-copy" -e "/memfd:")
	for i in "$@"; do pattern+=(-e "$i"); done
	for i in $(seq 1 100); do
		grep -qs "${pattern[@]}" /proc/[0-9]*/maps 2>/dev/null || break
		sleep 0.05
	done
	: >rootfs/go
	for i in $(seq 1 80); do grep -qE "DENIED|WROTE|NOOPEN" rootfs/out 2>/dev/null && break; sleep 0.1; done
	cat rootfs/out
}

@test "CVE-2019-5736: a #!/proc/self/exe program cannot write the runtime binary" {
	guard_setup
	# the interpreter (the runtime's image) opens its log, a FIFO: it waits
	# there until the attack holds its image, however fast it would exit
	mkfifo rootfs/fifo
	printf '#!/proc/self/exe --log=/fifo\n' >rootfs/bin/evil
	chmod +x rootfs/bin/evil
	# init: catch any process whose image is not busybox, keep a handle,
	# let it go on, and once that process is gone try to write through the
	# handle
	cat >rootfs/bin/attack <<'SH'
#!/bin/sh
while :; do
	for p in /proc/[0-9]*; do
		t=$(readlink $p/exe 2>/dev/null) || continue
		case "$t" in */busybox|"") continue ;; esac
		exec 3<$p/exe || continue
		echo "grabbed $t" >/out
		cat /fifo >/dev/null &
		while [ -e $p/exe ]; do :; done
		for i in 1 2 3 4 5 6 7 8 9 10; do
			if echo PWNED >>/proc/self/fd/3 2>>/out; then echo WROTE >>/out; exit 0; fi
			sleep 0.2
		done
		echo DENIED >>/out
		exit 0
	done
done
SH
	chmod +x rootfs/bin/attack
	update_config '.root.readonly = false | .process.args = ["/bin/sh", "-c", "/bin/attack; sleep 100"]'
	guard_cvisor run -d "$CV_ID"
	for i in $(seq 1 30); do
		guard_cvisor exec "$CV_ID" /bin/evil 2>/dev/null || true
		grep -q grabbed rootfs/out 2>/dev/null && break
	done
	cat rootfs/out
	grep -q grabbed rootfs/out
	for i in $(seq 1 50); do grep -qE "DENIED|WROTE" rootfs/out && break; sleep 0.1; done
	cat rootfs/out
	run grep -c WROTE rootfs/out
	[ "$output" = 0 ]
	grep -q DENIED rootfs/out
	[ "$(sha256sum <"$CV_TMP/cvisor-copy")" = "$GUARD_SUM" ]
	guard_cvisor delete -f "$CV_ID"
}

@test "CVE-2019-5736: a program embedding libcvisor (a writable binary) is never reachable from the container" {
	local embed="$CVISOR_BUILDDIR/tests/embed/embed-test"
	[ -x "$embed" ] || skip "tests/embed/embed-test not built (make check builds it)"
	guard_setup
	# the embedding program: a writable copy, its libcvisor.so found by its
	# run path in the build tree
	cp "$embed" "$CV_TMP/embedder"
	local lib embed_sum lib_sum
	lib="$(ldd "$CV_TMP/embedder" | awk '/libcvisor/ { print $3 }')"
	[ -n "$lib" ]
	embed_sum=$(sha256sum <"$CV_TMP/embedder")
	lib_sum=$(sha256sum <"$lib")
	# the next test's attack: had the library cloned the embedding program
	# into the container, pid 1 would be that program, and writable
	guard_ptrace_attack
	"$CV_TMP/embedder" cli "$CV_ROOT" "$CV_TMP/cvisor-copy" run-detach "$CV_ID" "$PWD" </dev/null >/dev/null 2>&1
	guard_go "$CV_TMP/embedder"
	run grep -c -e embedder -e libcvisor rootfs/out
	[ "$output" = 0 ]
	run grep -c WROTE rootfs/out
	[ "$output" = 0 ]
	grep -q DENIED rootfs/out
	[ "$(sha256sum <"$CV_TMP/embedder")" = "$embed_sum" ]
	[ "$(sha256sum <"$lib")" = "$lib_sum" ]
	[ "$(sha256sum <"$CV_TMP/cvisor-copy")" = "$GUARD_SUM" ]
	"$CV_TMP/embedder" cli "$CV_ROOT" "$CV_TMP/cvisor-copy" delete "$CV_ID"
}

@test "CVE-2019-5736: with CAP_SYS_PTRACE and no user namespace, /proc/PID/exe and fds of the runtime are not writable" {
	guard_setup
	guard_ptrace_attack
	guard_cvisor create "$CV_ID"
	guard_cvisor start "$CV_ID"
	guard_go
	run grep -c WROTE rootfs/out
	[ "$output" = 0 ]
	grep -q DENIED rootfs/out
	[ "$(sha256sum <"$CV_TMP/cvisor-copy")" = "$GUARD_SUM" ]
	guard_cvisor delete -f "$CV_ID"
}

@test "create and run --config read another file than the bundle's config.json" {
	update_config '.process.args = ["sh", "-c", "exit 4"]'
	jq '.process.args = ["sh", "-c", "exit 6"]' config.json >"$CV_TMP/other.json"
	run cvisor run --config "$CV_TMP/other.json" "$CV_ID"
	[ "$status" -eq 6 ]
	run cvisor run "$CV_ID"
	[ "$status" -eq 4 ]
	run cvisor create --config "$CV_TMP/missing.json" "$CV_ID"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$CV_TMP/missing.json"* ]]
	run cvisor list -q
	[ -z "$output" ]
}

@test "run --keep leaves the container stopped until delete, which runs poststop and removes it" {
	update_config '.process.args = ["sh", "-c", "exit 5"] | .hooks = {"poststop": [{"path": "/bin/sh", "args": ["sh", "-c", "cat > '"$CV_TMP"'/poststop.json"]}]}'
	run cvisor run --keep "$CV_ID"
	[ "$status" -eq 5 ]
	[ "$(status_of "$CV_ID")" = stopped ]
	run cvisor list -q
	[ "$output" = "$CV_ID" ]
	# the cgroup stays with it
	run _cv_id_cgroups
	[ -n "$output" ]
	[ ! -e "$CV_TMP/poststop.json" ]
	run cvisor start "$CV_ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot start a container that has stopped"* ]]
	run cvisor delete "$CV_ID"
	[ "$status" -eq 0 ]
	jq -e ".id == \"$CV_ID\"" "$CV_TMP/poststop.json"
	assert_gone "$CV_ID"
	# without --keep the same run deletes it
	run cvisor run "$CV_ID"
	[ "$status" -eq 5 ]
	assert_gone "$CV_ID"
}
