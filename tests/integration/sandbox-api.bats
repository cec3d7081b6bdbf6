#!/usr/bin/env bats
# libcvisor's sandbox calls (cvisor.h, "sandboxes"; cvisor-sandbox(3)),
# driven by tests/embed/sandbox-test (a program linking libcvisor.so, a
# writable binary): persistence, isolation, limits, sessions, files, and
# the attacks on each promise.

load helpers
load sandbox-helpers

SBT="$CVISOR_BUILDDIR/tests/embed/sandbox-test"

setup() {
	sb_setup
	requires_root
	[ -x "$SBT" ] || skip "tests/embed/sandbox-test not built (make check builds it)"
	export CVISOR_HELPER="$CVISOR"
}

teardown() {
	rm -f "${SBX_SECRET:-}"
	sb_teardown
}

# sbt STEPS...: the test program on a sandbox of this test's state root.
sbt() {
	run timeout 300 "$SBT" ctx "$CV_ROOT" "$@"
}

# has_line LINE: $output has exactly that line (else it is shown).
has_line() {
	printf '%s\n' "$output" | grep -qxF -- "$1" || {
		printf 'no line `%s` in:\n%s\n' "$1" "$output"
		return 1
	}
}

# No keeper of this test's runs, no process of its runs, nothing left.
assert_sandboxes_gone() {
	run pgrep -f -- "--root=$CV_ROOT .*sandbox-keeper"
	[ "$status" -eq 1 ]
	assert_clean
}

@test "sandbox api: what one run writes, the next run of the sandbox sees; write_file and read_file too" {
	sbt new net 0 run 'echo one > f; echo two > /var/tmp/cvisor-sbx-$PPID' \
		run 'cat f /var/tmp/cvisor-sbx-*; pwd; echo $HOME' \
		write /workspace/in.txt 'from the host' run 'cat in.txt' \
		run 'echo made > out.txt' read /workspace/out.txt
	[ "$status" -eq 0 ]
	has_line 'out=one\ntwo\n/workspace\n/workspace\n'
	has_line 'out=from the host'
	has_line 'data=made\n'
	assert_sandboxes_gone
}

@test "sandbox api: the host never sees a sandbox's writes, and two sandboxes never see each other's" {
	local mark="cvisor-sbx-$BATS_TEST_NUMBER-$$"
	sbt new net 0 run "echo a > /var/tmp/$mark; echo a > $mark" \
		new net 0 run "cat /var/tmp/$mark; cat $mark" \
		use 0 run "cat /var/tmp/$mark"
	[ "$status" -eq 0 ]
	has_line "err=cat: /var/tmp/$mark: No such file or directory\ncat: $mark: No such file or directory\n"
	has_line 'out=a\n'
	[ ! -e "/var/tmp/$mark" ]
	[ ! -e "/workspace/$mark" ]
	assert_sandboxes_gone
}

@test "sandbox api: the program is never PID 1; kill -9 of itself is 137, a zombie is reaped, the status is the program's" {
	sbt new net 0 run 'echo $$; kill -9 $$' run 'exit 3' \
		run 'sh -c "sleep 0.2 & exec true"; sleep 0.5; ps -o stat= | grep -c Z || true'
	[ "$status" -eq 0 ]
	has_line 'exit=137'
	has_line 'exit=3'
	has_line 'out=0\n'
	run ! grep -qx 'out=1\\n' <<<"$output"
}

@test "sandbox api: a timed-out run is 137 and every process of it ends; the report says timed_out" {
	sbt new net 0 runt 300 'sleep 987.651 & sleep 987.652; echo never' report
	[ "$status" -eq 0 ]
	has_line 'exit=137'
	has_line 'out='
	[[ "$output" == *'"timed_out": true'* ]]
	run pgrep -f "sleep 987.65"
	[ "$status" -eq 1 ]
}

@test "sandbox api: captured output is capped; the excess is dropped and the report says so" {
	sbt new net 0 opt max_output_bytes 1000 run 'head -c 5000 /dev/zero | tr "\0" x; echo err >&2' report
	[ "$status" -eq 0 ]
	has_line "out=$(printf 'x%.0s' $(seq 1000))"
	has_line 'err=err\n'
	[[ "$output" == *'"stdout": true'* ]]
}

@test "sandbox api: run_with: a run's own env and output cap apply to it alone; a bad entry is refused with its errno" {
	sbt new net 0 env A sandbox runwith 'A=run,B=2' 0 'echo "$A $B"' run 'echo "$A $B"' \
		runwith 'A=x,B' 0 true errno runwith - 5 'echo 0123456789' report run 'echo 0123456789'
	[ "$status" -eq 0 ]
	has_line 'out=run 2\n'
	has_line 'out=sandbox \n'
	has_line 'error=sandbox run: env `B`: not NAME=value'
	has_line 'errno=22'
	has_line 'out=01234'
	[[ "$output" == *'"stdout": true'* ]]
	has_line 'out=0123456789\n'
}

@test "sandbox api: cancel from another thread ends a run in flight (137, report says cancelled); the sandbox runs on" {
	sbt new net 0 cancel 500 'sleep 987.661 & sleep 987.662; echo never' report run 'echo again' \
		read /workspace/none errno
	[ "$status" -eq 0 ]
	has_line 'cancel rc=0'
	has_line 'exit=137'
	has_line 'out='
	[[ "$output" == *'"cancelled": true'* ]]
	has_line 'out=again\n'
	has_line 'errno=2'
	run pgrep -f "sleep 987.66"
	[ "$status" -eq 1 ]
}

@test "sandbox api: limits: memory (OOM), processes and a CPU share are enforced and reported" {
	sbt new net 0 limits $((64 << 20)) 0 0 run 'python3 -c "b = bytearray(512 << 20)"' report
	[ "$status" -eq 0 ]
	has_line 'exit=137'
	[[ "$output" == *'"memory": true'* ]]
	sbt new net 0 limits 0 16 0 run 'for i in $(seq 40); do sleep 1 & done 2>/dev/null; wait' report
	[ "$status" -eq 0 ]
	[[ "$output" == *'"processes": true'* ]]
	# half a core: a busy loop of 1.5 s is held back about 0.75 s. The
	# cgroup's throttled time tells, not CPU against wall time: in the
	# emulated cgroup v2 guest on a loaded host, time the guest lost is
	# charged as CPU time (cpu 1.455 s in 1.671 s once, limit and all)
	sbt new net 0 limits 0 0 50 runt 1500 'while :; do :; done' report
	[ "$status" -eq 0 ]
	local held
	held=$(printf '%s\n' "$output" | sed -n 's/.*"cpu_throttled_seconds": \([^,]*\),*$/\1/p')
	[ -n "$held" ]
	awk -v h="$held" 'BEGIN { exit !(h + 0 >= 0.2) }' || { echo "held back $held s"; false; }
	# without a limit nothing holds it back (null: no cgroup for CPU time)
	sbt new net 0 limits 0 0 0 runt 500 'while :; do :; done' report
	[ "$status" -eq 0 ]
	held=$(printf '%s\n' "$output" | sed -n 's/.*"cpu_throttled_seconds": \([^,]*\),*$/\1/p')
	[[ "$held" == null || "$held" == 0 ]] || { echo "held back $held s"; false; }
}

@test "sandbox api: network: loopback only when off, listen(2) refused unless allowed" {
	sbt new net 0 run 'ls /sys/class/net' \
		run 'python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()"' \
		listen 1 run 'python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(); print(\"listening\")"'
	[ "$status" -eq 0 ]
	has_line 'out=lo\n'
	[[ "$output" == *"PermissionError: [Errno 1] Operation not permitted"* ]]
	has_line 'out=listening\n'
}

@test "sandbox api: network on (the default) goes through slirp4netns" {
	requires_outbound
	sbt new run 'ls /sys/class/net'
	[ "$status" -eq 0 ]
	has_line 'out=lo\ntap0\n'
}

# The network of a sandbox is kept: slirp4netns starts with its first run,
# not with each (~50 ms a run), and every run of that sandbox shares one
# network namespace, whose own sysfs it sees; another sandbox has another.
@test "sandbox api: network on: the runs of a sandbox share one network namespace and its slirp4netns; another sandbox has its own; nothing left" {
	requires_outbound
	local before after ns1 ns2 ns3
	before=$(pgrep -x slirp4netns | sort | tr '\n' ' ')
	sbt new run 'readlink /proc/self/ns/net; ls /sys/class/net' \
		run 'readlink /proc/self/ns/net' \
		new run 'readlink /proc/self/ns/net'
	[ "$status" -eq 0 ]
	# out=net:[N]\nlo\ntap0\n, out=net:[N]\n, out=net:[M]\n
	ns1=$(printf '%s\n' "$output" | sed -n 's/^out=\(net:\[[0-9]*\]\)\\nlo\\ntap0\\n$/\1/p')
	ns2=$(printf '%s\n' "$output" | sed -n 's/^out=\(net:\[[0-9]*\]\)\\n$/\1/p' | sed -n 1p)
	ns3=$(printf '%s\n' "$output" | sed -n 's/^out=\(net:\[[0-9]*\]\)\\n$/\1/p' | sed -n 2p)
	echo "$output"
	echo "ns: $ns1 $ns2 $ns3"
	[ -n "$ns1" ]
	[ "$ns1" = "$ns2" ]
	[ -n "$ns3" ]
	[ "$ns3" != "$ns1" ]
	[ "$ns1" != "$(readlink /proc/self/ns/net)" ]
	assert_sandboxes_gone
	# each sandbox's slirp4netns ends with it
	for _ in $(seq 50); do
		after=$(pgrep -x slirp4netns | sort | tr '\n' ' ')
		[ "$after" = "$before" ] && break
		sleep 0.1
	done
	[ "$after" = "$before" ]
}

@test "sandbox api: the environment is the allowlist plus set_env; a token of the caller does not reach the run" {
	SECRET_TOKEN=hunter2 sbt new net 0 env MODE test env MODE final run 'env | sort'
	[ "$status" -eq 0 ]
	[[ "$output" == *'MODE=final\n'* ]]
	[[ "$output" != *'MODE=test'* ]]
	[[ "$output" != *hunter2* ]]
}

@test "sandbox api: files: missing, empty, directory, /tmp (not kept), a relative path" {
	sbt new net 0 read /workspace/nope run ': > empty' read /workspace/empty read /workspace \
		write /tmp/x data write relative data
	[ "$status" -eq 0 ]
	has_line "error=2 sandbox read \`/workspace/nope\`: No such file or directory"
	has_line 'data='
	has_line "error=21 sandbox read \`/workspace\`: Is a directory"
	[[ "$output" == *"rc=-18 error=sandbox write \`/tmp/x\`: /proc, /sys, /dev, /run and /tmp are each run's own and not kept"* ]]
	has_line "rc=-22 error=sandbox write \`relative\`: not an absolute path: Invalid argument"
}

@test "sandbox api: attack: a symlink planted by the program never leads the host side out of its view" {
	# a host file only root may read, outside /tmp (each run's own)
	SBX_SECRET=$(mktemp /var/tmp/cvisor-sbx-secret.XXXXXX)
	local mark="$SBX_SECRET"
	echo topsecret >"$mark"
	chmod 600 "$mark"
	sbt new net 0 run "ln -s /etc/shadow sh; ln -s $mark hs; ln -s /etc/os-release pw; mkfifo fifo" \
		read /workspace/sh read /workspace/hs write /workspace/pw pwned read /workspace/fifo \
		copyout /workspace/hs "$CV_TMP/out" copyout /workspace/pw "$CV_TMP/pw"
	[ "$status" -eq 0 ]
	[[ "$output" != *topsecret* ]]
	[[ "$output" != *'root:'* ]]
	has_line "error=13 sandbox read \`/workspace/hs\`: Permission denied"
	has_line "error=22 sandbox read (not a regular file) \`/workspace/fifo\`: Invalid argument"
	# a host file through the link (one no other test rewrites meanwhile):
	# refused as the program would be
	[[ "$output" == *"sandbox write \`/workspace/pw\`: Permission denied"* ]]
	run ! grep -q pwned /etc/os-release
	[ ! -e "$CV_TMP/out" ]
	# what the link showed the program: the host's file, read-only
	cmp /etc/os-release "$CV_TMP/pw"
}

@test "sandbox api: copy_into and copy_out of a file; copy_out replaces its destination, never follows it" {
	printf 'payload\n' >"$CV_TMP/in"
	ln -s /etc/hostname "$CV_TMP/dest"
	sbt new net 0 copyin "$CV_TMP/in" /workspace/in run 'cat in; echo more >> in' \
		copyout /workspace/in "$CV_TMP/dest" copyin "$CV_TMP" /workspace/d
	[ "$status" -eq 0 ]
	has_line 'out=payload\n'
	[ ! -L "$CV_TMP/dest" ]
	[ "$(cat "$CV_TMP/dest")" = "$(printf 'payload\nmore')" ]
	[ "$(cat /etc/hostname)" != payload ]
}

@test "sandbox api: copy_into of a directory applies its .gitignore files; copy_out of a directory brings the tree back" {
	mkdir -p "$CV_TMP/src/sub" "$CV_TMP/src/build"
	echo a >"$CV_TMP/src/a.txt"
	echo b >"$CV_TMP/src/sub/b.txt"
	echo o >"$CV_TMP/src/build/x.o"
	echo l >"$CV_TMP/src/sub/debug.log"
	printf 'build/\n' >"$CV_TMP/src/.gitignore"
	printf '*.log\n' >"$CV_TMP/src/sub/.gitignore"
	ln -s a.txt "$CV_TMP/src/link"
	sbt new net 0 copyin "$CV_TMP/src" /workspace/proj run 'cd proj && find . | sort; readlink link' \
		run 'echo new > proj/sub/new.txt' copyout /workspace/proj "$CV_TMP/out"
	[ "$status" -eq 0 ]
	has_line 'out=.\n./.gitignore\n./a.txt\n./link\n./sub\n./sub/.gitignore\n./sub/b.txt\na.txt\n'
	[ "$(cat "$CV_TMP/out/sub/new.txt")" = new ]
	[ "$(readlink "$CV_TMP/out/link")" = a.txt ]
	[ ! -e "$CV_TMP/out/build" ]
}

@test "sandbox api: cache_save and cache_restore round trip in every format; bad keys and formats are refused" {
	local be="disk:$CV_TMP/cache" f
	sbt new net 0 run 'mkdir -p c/d; echo payload > c/d/f; printf "*.tmp\n" > c/.gitignore; echo t > c/x.tmp' \
		csave /workspace/c kg "$be" gzip csave /workspace/c kz "$be" zstd csave /workspace/c kn "$be" none \
		csave /workspace/c ../up "$be" gzip csave /workspace/c ke "$be" estargz csave /workspace/c kb "$be" rar \
		new net 0 crestore /workspace/g kg "$be" gzip crestore /workspace/z kz "$be" zstd \
		crestore /workspace/n kn "$be" none crestore /workspace/m missing "$be" gzip \
		run 'cat g/d/f z/d/f n/d/f; ls g z n'
	[ "$status" -eq 0 ]
	has_line 'out=payload\npayload\npayload\ng:\nd\n\nn:\nd\n\nz:\nd\n'
	[[ "$output" == *'rc=-22 error=cache key `../up`'* ]]
	[[ "$output" == *'rc=-95 error=archive format `estargz` is not implemented'* ]]
	[[ "$output" == *'rc=-22 error='*'rar'* ]]
	[[ "$output" == *'rc=-2 error='* ]]
	for f in kg.tar.gz kz.tar.zst kn.tar; do
		[ -s "$CV_TMP/cache/$f" ]
	done
}

@test "sandbox api: attack: a cache archive that escapes its target is refused, nothing lands outside it" {
	requires python3
	mkdir -p "$CV_TMP/cache"
	python3 - "$CV_TMP/cache" <<'PY'
import io, sys, tarfile
def add(t, name, data=b"x", kind=tarfile.REGTYPE, link=""):
    i = tarfile.TarInfo(name); i.type = kind; i.linkname = link; i.size = len(data) if kind == tarfile.REGTYPE else 0
    t.addfile(i, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
with tarfile.open(sys.argv[1] + "/dotdot.tar", "w") as t:
    add(t, "ok"); add(t, "../escaped-dotdot")
with tarfile.open(sys.argv[1] + "/abs.tar", "w") as t:
    add(t, "/workspace/escaped-abs")
with tarfile.open(sys.argv[1] + "/link.tar", "w") as t:
    add(t, "l", kind=tarfile.SYMTYPE, link="/workspace"); add(t, "l/escaped-link")
PY
	local be="disk:$CV_TMP/cache"
	sbt new net 0 run 'mkdir t' crestore /workspace/t/a dotdot "$be" none crestore /workspace/t/b abs "$be" none \
		crestore /workspace/t/c link "$be" none run 'find /workspace | sort'
	[ "$status" -eq 0 ]
	has_line 'rc=-1 error=sandbox extract into `/workspace/t/a`: archive entry `../escaped-dotdot`: `..` in its path: Operation not permitted'
	has_line 'rc=-1 error=sandbox extract into `/workspace/t/b`: archive entry `/workspace/escaped-abs`: absolute path: Operation not permitted'
	has_line 'rc=-1 error=sandbox extract into `/workspace/t/c`: archive entry `l/escaped-link`: `l` is a symlink: Operation not permitted'
	# the entries before the bad one stay; nothing outside the target
	has_line 'out=/workspace\n/workspace/t\n/workspace/t/a\n/workspace/t/a/ok\n/workspace/t/b\n/workspace/t/c\n/workspace/t/c/l\n'
}

@test "sandbox api: a plain session streams stdout and stderr apart, in order; its stdin is closed" {
	sbt new net 0 sess 'for i in 1 2 3; do echo o$i; echo e$i >&2; sleep 0.1; done; cat' 0 \
		sin x swait sout serr
	[ "$status" -eq 0 ]
	[[ "$output" == *'sin=-32'* ]]
	has_line 'swait=0'
	has_line 'sout=o1\no2\no3\n'
	has_line 'serr=e1\ne2\ne3\n'
}

@test "sandbox api: a PTY session is a terminal that follows resize, echoes, and exits with the shell's status" {
	sbt new net 0 sess - 1 resize 40 100 sleep 300 sin 'tty; stty size; exit 5
' swait sout
	[ "$status" -eq 0 ]
	has_line 'swait=5'
	# the echo, then the output; the shell's prompt may come between (input typed ahead of it)
	[[ "$output" == *'tty; stty size; exit 5\r\n'*'/dev/pts/0\r\n40 100\r\n'* ]] || { echo "$output"; false; }
}

@test "sandbox api: kill ends everything a session started (137); try_wait tells running from done" {
	sbt new net 0 sess 'sleep 987.653 & sleep 987.654' 0 sleep 300 stry skill swait stry
	[ "$status" -eq 0 ]
	has_line 'stry=0 done=0'
	has_line 'swait=137'
	has_line 'stry=137 done=1'
	run pgrep -f "sleep 987.65"
	[ "$status" -eq 1 ]
	assert_sandboxes_gone
}

@test "sandbox api: the calling process is unchanged: signals, mask, flags, fds, no child" {
	sbt new net 0 run true sess 'sleep 0.2' 1 swait sfree write /workspace/f x read /workspace/f free caller
	[ "$status" -eq 0 ]
	has_line 'caller=unchanged'
}

@test "sandbox api: freeing a sandbox ends its sessions' programs; the session objects stay usable" {
	sbt new net 0 sess 'sleep 987.657' 0 sleep 200 free swait stry sfree
	[ "$status" -eq 0 ]
	has_line 'swait=137'
	has_line 'stry=137 done=1'
	run pgrep -f "sleep 987.657"
	[ "$status" -eq 1 ]
	assert_sandboxes_gone
}

@test "sandbox api: 20 threads, each with its own sandbox, run at once" {
	sbt threads 20 'echo $$ > pid; exit 7'
	[ "$status" -eq 0 ]
	has_line 'threads ok=40'
	assert_sandboxes_gone
}

@test "sandbox api: SIGKILL of a run's supervisor: its program dies, the keeper removes the run's cgroup, the sandbox goes on" {
	mkfifo "$CV_TMP/in"
	"$SBT" ctx "$CV_ROOT" new net 0 sess 'sleep 987.656' 0 ready swait run 'echo after' <"$CV_TMP/in" >"$CV_TMP/out" 2>&1 &
	local pid=$! i p="" sup
	cv_track_pid "$pid"
	exec 7>"$CV_TMP/in"
	for i in $(seq 300); do
		grep -qx ready "$CV_TMP/out" && p="$(pgrep -f '^sleep 987.656')" && break
		sleep 0.1
	done
	[ -n "$p" ]
	# the run's cgroup is do-SUPERVISOR-...: the keeper's process of the run
	sup="$(grep -o '/do-[0-9]*-' "/proc/$p/cgroup" | head -1 | tr -dc 0-9)"
	[ -n "$sup" ]
	[ -n "$(run_cgroups "$sup")" ]
	cv_track_pid "$sup"
	kill -9 "$sup"
	for i in $(seq 50); do pgrep -f '^sleep 987.656' >/dev/null || break; sleep 0.1; done
	run ! pgrep -f '^sleep 987.656'
	wait_run_cgroups_gone "$sup"
	exec 7>&-
	wait "$pid"
	run cat "$CV_TMP/out"
	has_line 'out=after\n'
	assert_sandboxes_gone
}

@test "sandbox api: a new keeper collects what runs killed with an earlier one left" {
	local own pid dir
	own="$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)"
	[[ -n "$own" && -d "/sys/fs/cgroup/memory$own" ]] || skip "needs a v1 memory hierarchy"
	# the empty cgroup of a run whose supervisor is gone
	true &
	pid=$!
	wait $pid
	dir="/sys/fs/cgroup/memory$own/do-$pid-1"
	mkdir "$dir"
	cv_track_cgroup "$dir"
	sbt new net 0 run 'true'
	[ "$status" -eq 0 ]
	[ ! -d "$dir" ]
	assert_sandboxes_gone
}

@test "sandbox api: SIGKILL of the caller leaves nothing behind: no keeper, no run, no mount point, no slirp4netns" {
	mkfifo "$CV_TMP/in"
	# with the network on where it can be: the keeper's kept one must go too
	local -a net=(net 0)
	if command -v slirp4netns >/dev/null && [ -x "$CVISOR_SLIRP_HOOK" ] && [ -c /dev/net/tun ]; then
		net=()
	fi
	local slirps
	slirps=$(pgrep -x slirp4netns | sort | tr '\n' ' ')
	"$SBT" ctx "$CV_ROOT" new "${net[@]}" sess 'sleep 987.655' 0 sleep 200 ready <"$CV_TMP/in" >"$CV_TMP/out" 2>&1 &
	local pid=$! keeper i
	cv_track_pid "$pid"
	exec 7>"$CV_TMP/in"
	for i in $(seq 300); do
		grep -qx ready "$CV_TMP/out" && break
		sleep 0.1
	done
	grep -qx ready "$CV_TMP/out"
	keeper=$(pgrep -f -- "--root=$CV_ROOT .*sandbox-keeper" | head -1)
	[ -n "$keeper" ]
	[ -d "/run/cvisor-keepers/keeper-$keeper" ]
	pgrep -f "sleep 987.655"
	kill -9 "$pid"
	exec 7>&-
	for i in $(seq 100); do
		kill -0 "$keeper" 2>/dev/null || break
		sleep 0.1
	done
	run kill -0 "$keeper"
	[ "$status" -ne 0 ]
	run pgrep -f "sleep 987.655"
	[ "$status" -eq 1 ]
	[ ! -e "/run/cvisor-keepers/keeper-$keeper" ]
	assert_sandboxes_gone
	for i in $(seq 50); do
		[ "$(pgrep -x slirp4netns | sort | tr '\n' ' ')" = "$slirps" ] && break
		sleep 0.1
	done
	[ "$(pgrep -x slirp4netns | sort | tr '\n' ' ')" = "$slirps" ]
}

@test "sandbox api: bad settings fail the next run with a message naming the key" {
	sbt new net 0 limits 1000 0 0 run true opt rootfs / opt nosuch 1 opt cpu_seconds 0
	[ "$status" -eq 0 ]
	[[ "$output" == *'error=--memory: '* ]]
	has_line 'rc=-22 error=sandbox: rootfs: a library sandbox runs on the host'"'"'s root as the caller'
	has_line 'rc=-22 error=sandbox: `nosuch`: not a policy key (see cvisor-do(1))'
	has_line 'rc=-22 error=--cpu-seconds: must be between 1 and 4294967296, got "0"'
}

# ---- as an unprivileged user: the keeper mounts in a user namespace ----

# sbt_nobody STEPS...: the test program as nobody, on a state root of its own.
sbt_nobody() {
	run timeout 300 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH="$PATH" HOME="$NR/home" CVISOR_HELPER="$CVISOR" CVISOR_SLIRP_HOOK="$CVISOR_SLIRP_HOOK" \
		"$SBT" ctx "$NR/root" "$@"
}

@test "sandbox api as nobody: runs persist in the sandbox's workspace, never on the host, never in another sandbox" {
	requires_unprivileged_userns
	sbt_nobody new net 0 run "id -u; echo a > f; pwd" run "cat f" \
		write /workspace/w data read /workspace/w new net 0 run "cat /workspace/f /workspace/w"
	[ "$status" -eq 0 ]
	has_line 'out=65534\n/workspace\n'
	has_line 'out=a\n'
	has_line 'data=data'
	has_line "err=cat: /workspace/f: No such file or directory\ncat: /workspace/w: No such file or directory\n"
	run pgrep -f -- "--root=$NR/root .*sandbox-keeper"
	[ "$status" -eq 1 ]
	[ -z "$(ls -A "$NR/root-keepers" 2>/dev/null)" ]
}

# An unprivileged caller's sandbox keeps its network too: the namespace
# belongs to a user namespace the caller owns, which its slirp4netns (no
# capabilities) may enter, and the keeper mounts that namespace's sysfs.
@test "sandbox api as nobody: network on: the runs of a sandbox share one network namespace, with tap0" {
	requires_unprivileged_userns
	requires_outbound
	sbt_nobody new run 'readlink /proc/self/ns/net; ls /sys/class/net' run 'readlink /proc/self/ns/net; ls /sys/class/net'
	[ "$status" -eq 0 ]
	echo "$output"
	local a b
	a=$(printf '%s\n' "$output" | sed -n 's/^out=\(net:\[[0-9]*\]\)\\nlo\\ntap0\\n$/\1/p' | sed -n 1p)
	b=$(printf '%s\n' "$output" | sed -n 's/^out=\(net:\[[0-9]*\]\)\\nlo\\ntap0\\n$/\1/p' | sed -n 2p)
	[ -n "$a" ]
	[ "$a" = "$b" ]
	[ "$a" != "$(readlink /proc/self/ns/net)" ]
	run pgrep -f -- "--root=$NR/root .*sandbox-keeper"
	[ "$status" -eq 1 ]
}

@test "sandbox api as nobody: the host's files stay read-only and masked; limits it cannot enforce are reported" {
	requires_unprivileged_userns
	sbt_nobody new net 0 limits $((64 << 20)) 0 0 run 'echo x > /etc/cvisor-nobody; cat /etc/shadow; exit 0' report \
		opt open_files 16 run 'echo sixteen'
	[ "$status" -eq 0 ]
	# the lowest open_files the policy takes leaves the runtime its fds
	has_line 'out=sixteen\n'

	[[ "$output" == *'/etc/cvisor-nobody: Permission denied'* ]]
	[[ "$output" != *'root:'* ]]
	[ ! -e /etc/cvisor-nobody ]
	[[ "$output" == *'"not_enforced": ['*'"memory"'* ]]
}

@test "sandbox api as nobody: a PTY session and a kill" {
	requires_unprivileged_userns
	sbt_nobody new net 0 sess - 1 sleep 300 sin 'tty; exit 4
' swait sout sess 'sleep 987.658' 0 sleep 300 skill swait
	[ "$status" -eq 0 ]
	has_line 'swait=4'
	has_line 'swait=137'
	[[ "$output" == *'/dev/pts/0'* ]]
	run pgrep -f "sleep 987.658"
	[ "$status" -eq 1 ]
}
