#!/usr/bin/env bats
# `cvisor do` attacked as a hostile program attacks it (issue 17): one test
# per reproducer, for a root caller and for an unprivileged one (nobody).
# Each runs the attack inside, then checks from the host what it left.
# Grouped by the item of the issue; each group says what it guards.

load helpers
load sandbox-helpers

setup() {
	sb_setup
	# outside /tmp, which the sandbox replaces: the program sees it
	ATK="$(mktemp -d /var/tmp/cvisor-atk.XXXXXX)"
	chmod 755 "$ATK"
	: >"$CV_TMP/.netns"
}

teardown() {
	local m
	# every mount below $ATK, innermost first: the test's, and any a
	# broken sandbox let propagate to the host
	while read -r m; do
		umount "$m" || umount -l "$m"
	done < <(awk -v a="$ATK" '$5 == a || index($5, a "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r)
	# network namespaces made by a test
	while read -r m; do
		[ -n "$m" ] && ip netns delete "$m" 2>/dev/null
	done <"$CV_TMP/.netns"
	sb_teardown
	rm -rf "$ATK"
}

# The caller of the test: root, or nobody (a user namespace of its own).
# Makes its home and workspace under $ATK, owned by it.
atk_caller() {
	requires setpriv
	WHO=$1
	mkdir -p "$ATK/home" "$ATK/ws"
	if [ "$WHO" = nobody ]; then
		requires_unprivileged_userns
		chown nobody:nogroup "$ATK/home" "$ATK/ws"
	fi
}

# `cvisor ARGS...` as $WHO, with HOME=$ATK/home; leading NAME=value
# arguments are added to its environment. Root runs it with group 0 among
# its supplementary groups, as a login shell of root has it.
atk() {
	local envs=()
	while [[ "$1" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do
		envs+=("$1")
		shift
	done
	if [ "$WHO" = root ]; then
		setpriv --groups 0 env "${envs[@]}" HOME="$ATK/home" "$CVISOR" --root "$CV_ROOT" "$@"
	else
		local NR_HOME="$ATK/home"
		local -a NR_ENV=("${envs[@]}")
		as_nobody "$@"
	fi
}

# CMD... on the host as $WHO (what the caller itself makes).
as_who() {
	if [ "$WHO" = root ]; then
		"$@"
	else
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	fi
}

# A unix socket server at PATH with MODE, run as $WHO, answering REPLY to
# every connection (a fake daemon).
start_unix_server() {
	local path=$1 mode=$2 reply=$3 code
	code='
import os, socket, sys
path, mode, reply = sys.argv[1], int(sys.argv[2], 8), sys.argv[3].encode()
s = socket.socket(socket.AF_UNIX)
s.bind(path)
os.chmod(path, mode)
s.listen(8)
while True:
    c, _ = s.accept()
    c.recv(4096)
    c.sendall(reply)
    c.close()
'
	# exec'd in the background subshell: $! is the server itself, which
	# teardown kills by pid (a function call would leave it orphaned)
	(
		set -- /usr/bin/python3 -c "$code" "$path" "$mode" "$reply"
		if [ "$WHO" != root ]; then
			set -- setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
		fi
		exec "$@"
	) 3>&- &
	cv_track_pid $!
	for _ in $(seq 100); do
		[ -S "$path" ] && return 0
		sleep 0.05
	done
	return 1
}

# The client the program runs: connects to a unix socket, sends an HTTP
# request, prints the answer (or the error).
write_client() {
	cat >"$ATK/connect.py" <<-'EOF'
	import socket, sys
	try:
	    s = socket.socket(socket.AF_UNIX)
	    s.connect(sys.argv[1])
	    s.sendall(b"GET /containers/json HTTP/1.0\r\n\r\n")
	    print(s.recv(4096).decode())
	except OSError as e:
	    print("refused:", e)
	EOF
}

# ---- 1. The program never holds host root ----
# A root caller's sandbox has a user namespace too: the program keeps its
# policy user inside (the caller's uid, 0), but is an unprivileged host
# identity outside. Writable areas are idmapped to it, nosuid and nodev, and
# the seccomp profile refuses set-id modes.

@test "attack 1 (root caller): root-only files, groups, sockets and kernel files are out of reach" {
	requires_root
	[ -x /usr/bin/python3 ] || skip "requires /usr/bin/python3"
	atk_caller root
	write_client
	mkdir -m 755 "$ATK/secret"
	echo ROOT-ONLY >"$ATK/secret/shadow-"
	chmod 600 "$ATK/secret/shadow-"
	echo ROOT-GROUP >"$ATK/secret/group-only"
	chgrp 0 "$ATK/secret/group-only"
	chmod 640 "$ATK/secret/group-only"
	start_unix_server "$ATK/secret/root.sock" 600 ROOT-SOCKET
	# the host's network: its unix sockets are the point here, see 6
	run atk do --network host -- sh -c "cat $ATK/secret/shadow- 2>&1; cat $ATK/secret/group-only 2>&1;
		/usr/bin/python3 $ATK/connect.py $ATK/secret/root.sock; echo inside=\$(id -u);
		echo host=\$(awk '{ print \$2 }' /proc/self/uid_map); grep '^Groups:' /proc/self/status;
		cat /sys/kernel/vmcoreinfo 2>&1"
	[ "$status" -eq 0 ]
	[[ "$output" != *ROOT-ONLY* ]]
	[[ "$output" != *ROOT-GROUP* ]]
	[[ "$output" != *ROOT-SOCKET* ]]
	[[ "$output" == *"inside=0"* ]] # its policy user: the caller's uid
	[[ "$output" != *"host=0"* ]]
	[[ "$output" == *"host="[1-9]* ]]
	# no supplementary group of the caller's (root's group 0) either
	[ "$(grep '^Groups:' <<<"$output" | tr -d '[:space:]')" = Groups: ]
	# the physical address of the kernel's vmcoreinfo note
	[[ ! "$output" =~ 0x[0-9a-f]{16} ]]
	# another policy user: itself inside, the same unprivileged identity
	# outside; in the workspace, what it makes is the workspace owner's
	run atk do --user 1234:1234 --workspace "$ATK/ws" -- sh -c 'id -u; awk "{ print \$2 }" /proc/self/uid_map; touch u'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1234 ]
	[ "${lines[1]}" != 0 ]
	[ "$(stat -c %u:%g "$ATK/ws/u")" = 0:0 ]
}

# The workspace takes the run's files back to the host: none may carry a
# set-id bit (run by anyone who can reach the workspace, it would run as its
# owner: root for a root caller).
attack_setid_files() {
	run atk do --workspace "$ATK/ws" -- sh -c '
		cp /usr/bin/id x; chmod 6755 x 2>&1; echo chmod=$?
		chmod u+s x 2>&1; echo chmod-u+s=$?
		/usr/bin/python3 -c "import os; os.close(os.open(\"y\", os.O_CREAT | os.O_WRONLY, 0o4755))" 2>&1; echo open=$?
		mkdir -m 2755 d 2>&1; echo mkdir=$?
		cat /sys/kernel/vmcoreinfo 2>&1
		grep " $PWD " /proc/self/mountinfo | cut -d" " -f6'
	[ "$status" -eq 0 ]
	[[ "$output" == *"chmod=1"* ]]
	[[ "$output" == *"chmod-u+s=1"* ]]
	[[ "$output" == *"open=1"* ]]
	[[ "$output" == *"mkdir=1"* ]]
	[[ ! "$output" =~ 0x[0-9a-f]{16} ]]
	[[ ",${lines[-1]}," == *",nosuid,"* ]]
	[[ ",${lines[-1]}," == *",nodev,"* ]]
	# on the host: whatever the run made carries no set-id bit
	local f
	for f in x y d; do
		[ ! -e "$ATK/ws/$f" ] || [ $((0$(stat -c %a "$ATK/ws/$f") & 06000)) -eq 0 ]
	done
	[ -e "$ATK/ws/x" ] # the copy itself was allowed
}

@test "attack 1 (root caller): no set-id file reaches the host through the workspace" {
	requires_root
	[ -x /usr/bin/python3 ] || skip "requires /usr/bin/python3"
	atk_caller root
	attack_setid_files
	# the workspace's owner owns what the run made: root here
	[ "$(stat -c %u "$ATK/ws/x")" = 0 ]
}

@test "attack 1 (unprivileged caller): no set-id file reaches the host through the workspace" {
	requires_root
	[ -x /usr/bin/python3 ] || skip "requires /usr/bin/python3"
	atk_caller nobody
	attack_setid_files
	[ "$(stat -c %U "$ATK/ws/x")" = nobody ]
}

# ---- 3. Denied paths stay denied whatever is renamed around them ----
# Every directory between a writable area and a denied path is a mount
# point inside: renaming or removing it fails (EBUSY), within a run and so
# across runs.

# Item 2's audit: what the supervisor touches after the run (the bundles
# beside the state root, its lock file; a later command's state) must not be
# the program's to plant. A state root in a writable area is refused, before
# anything is made.
@test "attack 2 (root caller): a state root inside the workspace or a writable path is refused, nothing made" {
	requires_root
	local ws="$ATK/ws"
	mkdir -p "$ws" "$ATK/w"
	run "$CVISOR" --root "$ws/state" do --workspace "$ws" -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"--root \`$ws/state\`: "*"inside \`$ws\`"* ]]
	[ ! -e "$ws/state" ]
	[ ! -e "$ws/state-sandbox" ]
	# deeper, below a writable path, not made yet
	run "$CVISOR" --root "$ATK/w/a/b/state" do --workspace "$ws" --writable "$ATK/w" -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"inside \`$ATK/w\`"* ]]
	[ ! -e "$ATK/w/a" ]
	# beside them it runs
	run "$CVISOR" --root "$ATK/state" do --workspace "$ws" --writable "$ATK/w" -- true
	[ "$status" -eq 0 ]
	"$CVISOR" --root "$ATK/state" gc >/dev/null 2>&1 || true
}

attack_deny_rename() {
	local ws="$ATK/ws"
	as_who mkdir -p "$ws/.git/hooks" "$ws/config" "$ws/src/gen/out"
	as_who sh -c "echo SECRET-ENV >'$ws/config/.env'"
	# deny_write: the repository's hooks stay the caller's
	run atk do --workspace "$ws" --deny-write "$ws/.git/hooks" -- sh -c '
		mv .git/hooks .git/h2; echo rc1=$?
		mv .git .git-old && mkdir -p .git/hooks && echo evil >.git/hooks/pre-commit; echo rc2=$?'
	[ "$status" -eq 0 ]
	[[ "$output" == *"rc1=1"* ]]
	[[ "$output" == *"rc2=1"* ]]
	[ ! -e "$ws/.git/hooks/pre-commit" ]
	[ -d "$ws/.git/hooks" ]
	[ ! -e "$ws/.git-old" ]
	[ ! -e "$ws/.git/h2" ]
	# deeper: every directory between the workspace and the path
	run atk do --workspace "$ws" --deny-write "$ws/src/gen/out" -- sh -c '
		mv src s2; echo rc1=$?; mv src/gen src/g2; echo rc2=$?; rmdir src/gen/out; echo rc3=$?'
	[[ "$output" == *"rc1=1"* ]]
	[[ "$output" == *"rc2=1"* ]]
	[[ "$output" == *"rc3=1"* ]]
	[ -d "$ws/src/gen/out" ]
	# deny_read across runs: run 1 moves the directory, run 2 reads the file
	run atk do --workspace "$ws" --deny-read "$ws/config/.env" -- sh -c 'mv config moved; echo rc=$?'
	[[ "$output" == *"rc=1"* ]]
	run atk do --workspace "$ws" --deny-read "$ws/config/.env" -- sh -c 'cat moved/.env config/.env 2>&1'
	[[ "$output" != *SECRET-ENV* ]]
	[ "$(cat "$ws/config/.env")" = SECRET-ENV ]
	[ ! -e "$ws/moved" ]
	# a denied path that does not exist when the run starts is said
	run atk do --workspace "$ws" --deny-read "$ws/nope/.env" --deny-write "$ws/nope2" -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *"deny_read: \`$ws/nope/.env\` does not exist"* ]]
	[[ "$output" == *"deny_write: \`$ws/nope2\` does not exist"* ]]
}

@test "attack 3 (root caller): deny_write and deny_read hold whatever the program renames" {
	requires_root
	atk_caller root
	attack_deny_rename
}

@test "attack 3 (unprivileged caller): deny_write and deny_read hold whatever the program renames" {
	requires_root
	atk_caller nobody
	attack_deny_rename
}

# ---- 4. A writable path never leads into a credential store ----
# Writable paths are resolved first; one that lies in, or holds, a path of
# the credential list is refused: the credential list always wins.

attack_planted_symlink() {
	local ws="$ATK/ws" home="$ATK/home"
	as_who mkdir -p "$home/.ssh"
	as_who sh -c "echo PRIVATE-KEY >'$home/.ssh/id_rsa'; echo ORIGINAL >'$home/.ssh/authorized_keys'"
	# run 1 plants a link to the caller's keys in its workspace
	run atk do --workspace "$ws" -- ln -s "$home/.ssh" sub
	[ "$status" -eq 0 ]
	[ -L "$ws/sub" ]
	# run 2 is given that link as its workspace, or as a writable directory
	run atk do --workspace "$ws/sub" -- sh -c 'cat id_rsa; echo evil >>authorized_keys'
	[ "$status" -ne 0 ]
	[[ "$output" == *"workspace: \`$ws/sub\` resolves to \`$home/.ssh\`"*"the credential list always wins"* ]]
	[[ "$output" != *PRIVATE-KEY* ]]
	run atk do --workspace "$ws" --writable "$ws/sub" -- sh -c 'cat sub/id_rsa; echo evil >>sub/authorized_keys'
	[ "$status" -ne 0 ]
	[[ "$output" == *"writable: \`$ws/sub\`"*"the credential list always wins"* ]]
	[[ "$output" != *PRIVATE-KEY* ]]
	[ "$(cat "$home/.ssh/authorized_keys")" = ORIGINAL ]
	# a writable directory holding a credential store, existing or not
	run atk do --workspace "$home" -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"holds \`$home/.ssh\`"*"the credential list always wins"* ]]
}

@test "attack 4 (root caller): a symlink planted by an earlier run cannot lead a workspace into the credential stores" {
	requires_root
	atk_caller root
	attack_planted_symlink
}

@test "attack 4 (unprivileged caller): a symlink planted by an earlier run cannot lead a workspace into the credential stores" {
	requires_root
	atk_caller nobody
	attack_planted_symlink
}

# ---- 5. Host mounts made during a run do not reach the sandbox ----
# The sandbox's mounts are private from the start: nothing propagates in,
# nor out (the runtime's copies of host mounts are detached from their
# peers before the sandbox mounts anything on them).

attack_mount_during_run() {
	local ws="$ATK/ws"
	mkdir -m 755 "$ATK/mnt"
	as_who mkdir -p "$ws/sub" "$ws/.git/hooks"
	# shared, as "/" is on systemd hosts: what is mounted below propagates
	# (teardown unmounts everything below $ATK)
	mount --bind "$ATK" "$ATK"
	mount --make-rshared "$ATK"
	atk do --workspace "$ws" --deny-write "$ws/.git/hooks" -- sh -c "touch ready; while [ ! -e go ]; do sleep 0.05; done
		ls $ATK/mnt sub; touch $ATK/mnt/w sub/w" >"$CV_TMP/out" 2>&1 3>&- &
	local do_pid=$!
	cv_track_pid $do_pid
	for _ in $(seq 100); do
		[ -e "$ws/ready" ] && break
		sleep 0.05
	done
	[ -e "$ws/ready" ]
	# nor the other way: the sandbox's own mounts (.git, .git/hooks) stay
	# out of the host's shared mount
	[ -z "$(grep -F "$ws/.git" /proc/self/mountinfo)" ]
	# on the host, during the run: writable mounts below the read-only root
	# and below the workspace
	mount -t tmpfs -o size=1m,mode=777 tmpfs "$ATK/mnt"
	mount -t tmpfs -o size=1m,mode=777 tmpfs "$ws/sub"
	echo HOST-MOUNT >"$ATK/mnt/marker"
	echo HOST-MOUNT >"$ws/sub/marker"
	touch "$ws/go"
	wait $do_pid || true
	cat "$CV_TMP/out" >&3
	[[ "$(cat "$CV_TMP/out")" != *marker* ]]
	[ ! -e "$ATK/mnt/w" ]
	[ ! -e "$ws/sub/w" ]
}

@test "attack 5 (root caller): a mount made on the host during a run does not appear inside" {
	requires_root
	atk_caller root
	attack_mount_during_run
}

@test "attack 5 (unprivileged caller): a mount made on the host during a run does not appear inside" {
	requires_root
	atk_caller nobody
	attack_mount_during_run
}

# ---- 6. Network none: no host unix socket is reachable ----
# socket(AF_UNIX) fails (EAFNOSUPPORT) unless the network is the host's;
# socketpair(2) of stream and seqpacket sockets still works.

attack_unix_socket() {
	local home="$ATK/home"
	write_client
	as_who mkdir -p "$home/.docker/run"
	# writable by everyone: only the network policy may keep it out
	start_unix_server "$home/.docker/run/docker.sock" 666 $'HTTP/1.0 200 OK\r\n\r\n[]'
	run atk do -- /usr/bin/python3 "$ATK/connect.py" "$home/.docker/run/docker.sock"
	[ "$status" -eq 0 ]
	[[ "$output" != *"200 OK"* ]]
	[[ "$output" == *"refused: [Errno 97] Address family not supported by protocol"* ]]
	run atk do --network outbound -- true
	if [ "$status" -eq 0 ]; then
		run atk do --network outbound -- /usr/bin/python3 "$ATK/connect.py" "$home/.docker/run/docker.sock"
		[[ "$output" != *"200 OK"* ]]
	fi
	# what stays: socket pairs between the program's processes, TCP on
	# the sandbox's own loopback
	run atk do -- /usr/bin/python3 -c '
import socket
a, b = socket.socketpair()
a.sendall(b"pair-ok")
print(b.recv(16).decode())
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
a.sendall(b"seqpacket-ok")
print(b.recv(16).decode())
try:
    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
except OSError as e:
    print("dgram:", e.errno)
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
c = socket.create_connection(s.getsockname())
s.accept()[0].sendall(b"tcp-ok")
print(c.recv(16).decode())'
	[ "$status" -eq 0 ]
	grep -qx pair-ok <<<"$output"
	grep -qx seqpacket-ok <<<"$output"
	grep -qx "dgram: 97" <<<"$output"
	grep -qx tcp-ok <<<"$output"
	# the host's network keeps the host's sockets (documented)
	run atk do --network host -- /usr/bin/python3 "$ATK/connect.py" "$home/.docker/run/docker.sock"
	[[ "$output" == *"200 OK"* ]]
}

@test "attack 6 (root caller): network none reaches no host unix socket" {
	requires_root
	[ -x /usr/bin/python3 ] || skip "requires /usr/bin/python3"
	atk_caller root
	attack_unix_socket
}

@test "attack 6 (unprivileged caller): network none reaches no host unix socket" {
	requires_root
	[ -x /usr/bin/python3 ] || skip "requires /usr/bin/python3"
	atk_caller nobody
	attack_unix_socket
}

# ---- 8. Storage is bounded ----
# /tmp and the private workspace are tmpfs of --tmp-size each (default: the
# memory limit, else 1 GiB or half the RAM if less); /run, /dev and /dev/shm
# 64 MiB each.

# The sizes in KiB of /tmp, the workspace, /run and /dev/shm, one a line.
SIZES='df -k /tmp . /run /dev/shm | tail -n +2 | awk "{ print \$2 }"'

attack_storage() {
	local sizes
	run atk do --tmp-size 8MB -- sh -c "head -c 16777216 /dev/zero >/tmp/f; echo rc=\$?;
		head -c 16777216 /dev/zero >f; echo rc=\$?; $SIZES"
	[ "$status" -eq 0 ]
	[[ "$output" == *"No space left on device"* ]]
	[ "$(grep -c '^rc=1$' <<<"$output")" = 2 ]
	sizes="$(grep -E '^[0-9]+$' <<<"$output" | tr '\n' ' ')"
	[ "$sizes" = "8192 8192 65536 65536 " ]
	# by default: bounded
	local ram_k
	ram_k=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	local want=$((ram_k / 2 < 1048576 ? ram_k / 2 : 1048576))
	run atk do -- sh -c "$SIZES"
	[ "$status" -eq 0 ]
	sizes=($(grep -E '^[0-9]+$' <<<"$output"))
	[ "${sizes[0]}" -le "$want" ]
	[ "${sizes[0]}" -ge $((want - 4)) ]
	[ "${sizes[1]}" = "${sizes[0]}" ]
	[ "${sizes[2]}" = 65536 ]
	run atk do --tmp-size 0 -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"--tmp-size"* ]]
}

@test "attack 8 (root caller): /tmp and the private workspace are bounded, by default by the memory limit" {
	requires_root
	atk_caller root
	attack_storage
	run atk do --memory 64MB -- sh -c "$SIZES"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 65536 ]
	[ "${lines[1]}" = 65536 ]
	# the report says what the run stored (a page rounds each file up)
	run atk do --report "$ATK/report.json" -- sh -c 'head -c 3000000 /dev/zero >/tmp/f; head -c 1000000 /dev/zero >f'
	[ "$status" -eq 0 ]
	[ "$(jq '.storage_bytes.tmp >= 3000000 and .storage_bytes.tmp < 3100000' "$ATK/report.json")" = true ]
	[ "$(jq '.storage_bytes.workspace >= 1000000 and .storage_bytes.workspace < 1100000' "$ATK/report.json")" = true ]
	# a host workspace is not the sandbox's storage
	mkdir "$ATK/hostws"
	run atk do --workspace "$ATK/hostws" --report "$ATK/report.json" -- true
	[ "$status" -eq 0 ]
	[ "$(jq -c .storage_bytes "$ATK/report.json")" = '{"tmp":0,"workspace":null}' ]
}

@test "attack 8 (unprivileged caller): /tmp and the private workspace are bounded" {
	requires_root
	atk_caller nobody
	attack_storage
}

# ---- 11. Smaller leaks ----

# The locale variables of POSIX and glibc, no other LC_ name; --help, the
# man page and the code name the same list.
attack_env_allowlist() {
	run atk LC_ALL=C LC_TIME=C.UTF-8 LC_IDENTIFICATION=C LC_FAKE=x LC_SECRET_TOKEN=hunter2 do -- env
	[ "$status" -eq 0 ]
	[[ "$output" == *"LC_ALL=C"* ]]
	[[ "$output" == *"LC_TIME=C.UTF-8"* ]]
	[[ "$output" == *"LC_IDENTIFICATION=C"* ]]
	[[ "$output" != *LC_FAKE* ]]
	[[ "$output" != *hunter2* ]]
	local help man name
	help="$("$CVISOR" do --help | tr -s ' \n' ' ' | sed -n 's/.*environment variables (\([^)]*\)).*/\1/p')"
	man="$(sed -n '/^\.SS Environment passed by default/{n;p;}' "$CVISOR_SRCDIR/man/cvisor-do.1")"
	[ -n "$help" ]
	[ "$(tr ' ' '\n' <<<"$help" | sort)" = "$(tr ' ' '\n' <<<"${man%.}" | sort)" ]
	# each of them passes (PATH and HOME are the caller's own here)
	local envs=()
	for name in $help; do
		[ "$name" = PATH ] || [ "$name" = HOME ] || envs+=("$name=v-$name")
	done
	run atk "${envs[@]}" do -- env
	[ "$status" -eq 0 ]
	for name in "${envs[@]}"; do
		grep -qx "$name" <<<"$output"
	done
	[ "${#envs[@]}" = 22 ]
}

@test "attack 11 (root caller): only the real locale variables pass, as --help and the man page say" {
	requires_root
	atk_caller root
	attack_env_allowlist
}

@test "attack 11 (unprivileged caller): only the real locale variables pass, as --help and the man page say" {
	requires_root
	atk_caller nobody
	attack_env_allowlist
}

# What the host has below the directories the sandbox mounts its own over
# (/dev, /proc, /sys, /run, /tmp) is not in its mount table: the host's
# cgroup paths, network namespaces, its /dev and /tmp mounts.
attack_mountinfo() {
	local ns="cvisor-atk-$$-$BATS_TEST_NUMBER"
	if command -v ip >/dev/null && mkdir -p /run/netns; then
		echo "$ns" >>"$CV_TMP/.netns"
		ip netns add "$ns"
	fi
	run atk do --workspace "$ATK/ws" -- cat /proc/self/mountinfo
	[ "$status" -eq 0 ]
	echo "$output"
	# the host's devtmpfs only as the device nodes bound from it (a user
	# namespace may not make device nodes)
	[ -z "$(awk '/ - devtmpfs / && $4 !~ /^\/(null|zero|full|random|urandom|tty)$/' <<<"$output")" ]
	[[ "$output" != *" - cgroup"* ]]
	[[ "$output" != *" - nsfs "* ]]
	[[ "$output" != *"/run/netns"* ]]
	# one filesystem on each: the sandbox's own
	local d
	for d in /dev /proc /sys /run /tmp; do
		[ "$(awk -v d="$d" '$5 == d' <<<"$output" | wc -l)" = 1 ]
	done
}

@test "attack 11 (root caller): the mount table shows nothing of the host's /dev, /proc, /sys, /run and /tmp" {
	requires_root
	atk_caller root
	attack_mountinfo
}

# No test for an unprivileged caller: its runtime may not copy the host's
# root without what is mounted below it (only root may), and its program
# sees in its mount table only what the caller sees in its own.

# ---- the supervisor: what cvisor do itself does on the host ----

# in_pty SCRIPT [USER]: runs SCRIPT (a file) under script(1), whose pty is
# its stdin, stdout and stderr (as nobody with USER=nobody). script's own
# stdin is /dev/null: at its end it types one character into the pty, which
# shows in what a program reading the terminal echoes.
in_pty() {
	requires script
	chmod 755 "$1"
	if [ "${2:-}" = nobody ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH="$PATH" HOME="$NR/home" \
			timeout 60 script -qec "$1" /dev/null </dev/null
	else
		timeout 60 script -qec "$1" /dev/null </dev/null
	fi
}

# The report goes into the workspace, where the program ran: it may have
# planted anything at that name.
report_plants() {
	local cv="$1" ws="$2" victim="$3"
	echo victim >"$victim"
	# the man page's example: a relative --report in the workspace
	run bash -c 'cd "$1" && shift && exec timeout 20 "$@"' _ "$ws" $cv do --workspace "$ws" --report report.json -- \
		ln -s "$victim" report.json
	[ "$status" -eq 0 ]
	[ "$(cat "$victim")" = victim ]
	[ -f "$ws/report.json" ]
	[ ! -L "$ws/report.json" ]
	[ "$(jq -r .exit_code "$ws/report.json")" = 0 ]
	rm "$ws/report.json"
	# a FIFO: never opened (124 would be cvisor do waiting for a reader)
	run timeout 20 $cv do --workspace "$ws" --report "$ws/report.json" -- mkfifo report.json
	[ "$status" -eq 0 ]
	[ -f "$ws/report.json" ]
	[ "$(jq -r .exit_code "$ws/report.json")" = 0 ]
	# a directory: a clear error, and no temporary file left beside it
	run timeout 20 $cv do --workspace "$ws" --report "$ws/report.json" -- sh -c 'rm report.json; mkdir report.json'
	[ "$status" -eq 1 ]
	[[ "$output" == *"report \`$ws/report.json\`: "*"rename"*"Is a directory"* ]]
	[ "$(ls -A "$ws")" = report.json ]
}

@test "attacks (supervisor): --report replaces a symlink or FIFO the program planted at its name, never follows or opens it" {
	requires_root
	mkdir "$CV_TMP/ws"
	report_plants "$CVISOR --root $CV_ROOT" "$CV_TMP/ws" "$CV_TMP/victim"
	assert_clean
}

@test "attacks (supervisor): --report of a non-root caller: a planted symlink or FIFO is replaced" {
	requires_root
	requires_unprivileged_userns
	touch "$NR/victim"
	chown nobody "$NR/victim" # the caller's own file, which it could write
	report_plants "setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH=$PATH HOME=$NR/home $CVISOR --root $NR/root" \
		"$NR/ws" "$NR/victim"
}

@test "attacks (supervisor): the timeout fires on time while the reader of the output stalls" {
	requires_root
	mkdir "$CV_TMP/ws"
	# the reader sleeps 8 s; the program, killed at 2 s, would touch
	# `late` at 4 s if it still ran (its writes wait for the reader)
	run bash -c '"$1" --root "$2" do --workspace "$3" --timeout 2 --max-output-bytes 16M --report "$4" -- \
		sh -c "(sleep 4; touch late) & head -c 8000000 /dev/zero; wait" | (sleep 8; cat >/dev/null)
		echo "status=${PIPESTATUS[0]}"' _ "$CVISOR" "$CV_ROOT" "$CV_TMP/ws" "$CV_TMP/r.json"
	[ "$status" -eq 0 ]
	[ "$output" = status=137 ]
	[ ! -e "$CV_TMP/ws/late" ]
	[ "$(jq -r .timed_out "$CV_TMP/r.json")" = true ]
	assert_clean
}

@test "attacks (supervisor): a terminal is the program's own pty: the output cap holds on fd 0, stty -echo does not reach the caller" {
	requires_root
	cat >"$CV_TMP/inner" <<-EOF
	#!/bin/sh
	stty rows 21 cols 55
	"$CVISOR" --root "$CV_ROOT" do --max-output-bytes 10 -- sh -c 'echo 0123456789abcdefghij >&0; stty -echo'
	echo "rc=\$?"
	echo "caller: \$(stty -a | tr ' ;' '\n\n' | grep -x -e echo -e -echo)"
	"$CVISOR" --root "$CV_ROOT" do -- sh -c 'tty; stty size; test -t 0 && test -t 1 && test -t 2 && echo all-tty'
	EOF
	run in_pty "$CV_TMP/inner"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *abcdefghij* ]]
	[[ "$output" == *012345* ]]
	[[ "$output" == *"rc=0"* ]]
	[[ "$output" == *"caller: echo"* ]]
	# the sandbox's own devpts, sized as the caller's terminal
	[[ "$output" == *"/dev/pts/0"* ]]
	[[ "$output" == *"21 55"* ]]
	[[ "$output" == *all-tty* ]]
	assert_clean
}

@test "attacks (supervisor): the pty follows the caller's window size (SIGWINCH)" {
	requires_root
	mkdir "$CV_TMP/ws"
	cat >"$CV_TMP/inner" <<-EOF
	#!/bin/sh
	stty rows 21 cols 55
	"$CVISOR" --root "$CV_ROOT" do --workspace "$CV_TMP/ws" -- sh -c 'stty size </dev/tty; touch ready
		n=0; while [ "\$(stty size </dev/tty)" = "21 55" ] && [ \$n -lt 200 ]; do sleep 0.1; n=\$((n+1)); done
		echo "now \$(stty size </dev/tty)"' &
	while [ ! -e "$CV_TMP/ws/ready" ]; do sleep 0.1; done
	stty rows 30 cols 90
	wait \$!
	EOF
	run in_pty "$CV_TMP/inner"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"21 55"* ]]
	[[ "$output" == *"now 30 90"* ]]
	assert_clean
}

@test "attacks (supervisor): a non-root caller's terminal is a pty too: cap on fd 0, the caller's settings kept" {
	requires_root
	requires_unprivileged_userns
	cat >"$NR/inner" <<-EOF
	#!/bin/sh
	"$CVISOR" --root "$NR/root" do --max-output-bytes 10 -- sh -c 'echo 0123456789abcdefghij >&0; stty -echo'
	echo "rc=\$?"
	echo "caller: \$(stty -a | tr ' ;' '\n\n' | grep -x -e echo -e -echo)"
	"$CVISOR" --root "$NR/root" do -- sh -c 'id -u; tty'
	EOF
	run in_pty "$NR/inner" nobody
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *abcdefghij* ]]
	[[ "$output" == *"rc=0"* ]]
	[[ "$output" == *"caller: echo"* ]]
	[[ "$output" == *65534* ]]
	[[ "$output" == *"/dev/pts/0"* ]]
}

@test "attacks (supervisor): a non-root run without limits prints no cgroup warning; an unenforceable limit, one clear warning" {
	requires_root
	requires_unprivileged_userns
	run as_nobody do -- echo ran
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	run as_nobody do --memory 64MB -- echo ran
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "cvisor: warning: sandbox: memory not enforced: no delegated cgroup ("* ]]
	[ "${lines[1]}" = ran ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "attacks (supervisor): --require-limits refuses a limit that cannot be enforced, and leaves nothing" {
	requires_root
	requires_unprivileged_userns
	run as_nobody do --require-limits --memory 64MB --workspace "$NR/ws" -- touch ran
	[ "$status" -eq 1 ]
	[[ "$output" == "cvisor: sandbox: memory cannot be enforced: no delegated cgroup ("*"); require_limits refuses to run without it" ]]
	[ ! -e "$NR/ws/ran" ]
	[ -z "$(ls -A "$NR" | grep -vx -e home -e ws)" ]
	# the policy key
	echo '{"require_limits": true, "processes": 16, "memory": "64MB"}' >"$NR/p.json"
	run as_nobody do --policy "$NR/p.json" -- touch ran
	[ "$status" -eq 1 ]
	[[ "$output" == *"sandbox: memory, processes cannot be enforced"*"without them" ]]
	[ -z "$(ls -A "$NR" | grep -vx -e home -e ws -e p.json)" ]
	# where they can be (root here), it runs, every limit enforced
	run cvisor do --require-limits --memory 64MB --processes 16 --report "$CV_TMP/r.json" -- echo ran
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	[ "$(jq -c .not_enforced "$CV_TMP/r.json")" = '[]' ]
	assert_clean
}

@test "attacks (supervisor): the caller's regular files are not the program's: no reading back, no truncating; order kept" {
	requires_root
	printf 'previous\n' >"$CV_TMP/out.txt"
	printf 'input\n' >"$CV_TMP/in.txt"
	# stdout and stderr one file: one pipe, the lines in order; a reopen
	# of the pipes may fail (a root caller's program is another host uid
	# than the pipes' owner), what counts is that the files are untouched
	cvisor do -- sh -c 'read -r l; echo "read=$l"; stat -L -c %F /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2
		true 2>/dev/null >/proc/self/fd/0; true 2>/dev/null >/proc/self/fd/1; echo err >&2; echo last' \
		<"$CV_TMP/in.txt" >>"$CV_TMP/out.txt" 2>&1
	[ "$(cat "$CV_TMP/in.txt")" = input ]
	[ "$(cat "$CV_TMP/out.txt")" = "$(printf 'previous\nread=input\nfifo\nfifo\nfifo\nerr\nlast')" ]
	assert_clean
}

@test "attacks (supervisor): the program is never PID 1: kill -9 \$\$ is 137 and the report tells the signal; other exits unchanged" {
	requires_root
	run cvisor do --report "$CV_TMP/r.json" -- sh -c 'echo "pid=$$ init=$(cat /proc/1/comm)"; kill -9 $$'
	[ "$status" -eq 137 ]
	[ "$output" = "pid=2 init=cvisor-init" ]
	[ "$(jq -c '[.exit_code, .signal]' "$CV_TMP/r.json")" = '[137,9]' ]
	run cvisor do --report "$CV_TMP/r.json" -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	[ "$(jq -c '[.exit_code, .signal]' "$CV_TMP/r.json")" = '[143,15]' ]
	run cvisor do --report "$CV_TMP/r.json" -- sh -c 'exit 143'
	[ "$status" -eq 143 ]
	[ "$(jq -c '[.exit_code, .signal]' "$CV_TMP/r.json")" = '[143,0]' ]
	run cvisor do -- sh -c 'exit 42'
	[ "$status" -eq 42 ]
	# the init runs cvisor's image inside: non-dumpable, out of the
	# program's reach
	run cvisor do -- sh -c 'cat /proc/1/environ; readlink -v /proc/1/exe; cat /proc/1/mem; ls -l /proc/1/fd/'
	[ "$status" -ne 0 ]
	[[ "$output" == *"/proc/1/environ: Permission denied"* ]]
	[[ "$output" == *"/proc/1/exe: Permission denied"* ]]
	[[ "$output" == *"/proc/1/mem: Permission denied"* ]]
	[[ "$output" != *"->"* ]]
	assert_clean
}

# With a cgroup the init holds a way out of it at the end: fds of the
# caller's cgroup files (cv_cgroup_leave_open), which would take the program
# out of its limits. Both forms of the init: with a memory limit its own
# program, with only a pids limit cvisor do's image.
@test "attacks (supervisor): the init's way out of the cgroup is out of the program's reach: /proc/1/fd, pidfd_getfd" {
	requires_root
	local limits
	for limits in "--memory 64MB --processes 64" "--processes 64"; do
		# shellcheck disable=SC2086
		run cvisor do $limits -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
try:
    print("list", os.listdir("/proc/1/fd"))
except OSError as e:
    print("list", e.strerror)
opened = 0
for fd in range(64):
    try:
        os.close(os.open("/proc/1/fd/%d" % fd, os.O_WRONLY))
        opened += 1
    except OSError:
        pass
print("opened", opened)
nr = {"x86_64": 438, "aarch64": 438}[os.uname().machine]
pidfd = os.pidfd_open(1)
got, errs = 0, set()
for fd in range(64):
    r = libc.syscall(nr, pidfd, fd, 0)
    if r >= 0:
        got += 1
        os.close(r)
    else:
        errs.add(os.strerror(ctypes.get_errno()))
print("getfd", got, sorted(errs))
print("cgroups", sorted(set(l.split(":", 2)[2].strip() for l in open("/proc/self/cgroup"))))
'
		echo "$limits: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"list Permission denied"* ]]
		[[ "$output" == *"opened 0"* ]]
		[[ "$output" == *"getfd 0 ['Operation not permitted']"* ]]
		# still in its own cgroups: each the root of its cgroup namespace
		[[ "$output" == *"cgroups ['/']"* ]]
	done
	assert_clean
}

@test "attacks (supervisor): the init reaps the orphans re-parented to it" {
	requires_root
	"$CVISOR" --root "$CV_ROOT" do -- sh -c '(sleep 0.2 &); exec sleep 4741' &
	local pid=$! s init
	cv_track_pid $pid
	init="$(init_of 'sleep 4741')"
	[ -n "$init" ]
	s="$(pgrep -f '^sleep 4741$')"
	# the orphan ends after 0.2 s; a zombie has no command line left
	for _ in $(seq 100); do pgrep -f '^sleep 0.2$' >/dev/null || break; sleep 0.1; done
	sleep 0.5
	[ -z "$(ps -o stat= --ppid "$init,$s" | grep Z)" ]
	kill -KILL "$s"
	local rc
	wait_ended $pid
	[ "$rc" -eq 137 ]
	assert_clean
}

@test "attacks (supervisor): the init shares cvisor do's memory (no copy), out of the program's reach: ptrace, process_vm_readv and writev, /proc/1/mem" {
	requires_root
	requires python3
	"$CVISOR" --root "$CV_ROOT" do -- sleep 4743 &
	local pid=$! init
	cv_track_pid $pid
	init="$(init_of 'sleep 4743')"
	[ -n "$init" ]
	run same_memory $pid $init
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	kill -TERM $pid
	local rc
	wait_ended $pid
	# Reaching the init's memory would be reaching cvisor do's, outside
	# the sandbox: every way in fails, before any address is looked at
	run cvisor do -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def report(what, r):
    print(what, "ok" if r >= 0 else os.strerror(ctypes.get_errno()))
report("attach", libc.ptrace(16, 1, None, None))
report("seize", libc.ptrace(0x4206, 1, None, None))
buf = ctypes.create_string_buffer(8)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
local, remote = iovec(ctypes.addressof(buf), 8), iovec(0x10000, 8)
report("readv", libc.process_vm_readv(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
report("writev", libc.process_vm_writev(1, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
for mode in (os.O_RDONLY, os.O_WRONLY):
    try:
        os.close(os.open("/proc/1/mem", mode))
        print("mem", mode, "ok")
    except OSError as e:
        print("mem", mode, e.strerror)
'
	[ "$status" -eq 0 ]
	[[ "$output" == *"attach Operation not permitted"* ]]
	[[ "$output" == *"seize Operation not permitted"* ]]
	[[ "$output" == *"readv Operation not permitted"* ]]
	[[ "$output" == *"writev Operation not permitted"* ]]
	[[ "$output" == *"mem 0 Permission denied"* ]]
	[[ "$output" == *"mem 1 Permission denied"* ]]
	[[ "$output" != *" ok"* ]]
	assert_clean
}

@test "attacks (supervisor): SIGTERM to cvisor do reaches the program, which decides" {
	requires_root
	mkdir "$CV_TMP/ws"
	"$CVISOR" --root "$CV_ROOT" do --workspace "$CV_TMP/ws" -- \
		sh -c 'trap "echo got-term; exit 3" TERM; touch ready; sleep 4742 & wait' >"$CV_TMP/out" 2>&1 &
	local pid=$!
	cv_track_pid $pid
	for _ in $(seq 100); do [ -e "$CV_TMP/ws/ready" ] && break; sleep 0.1; done
	[ -e "$CV_TMP/ws/ready" ]
	kill -TERM $pid
	local rc
	wait_ended $pid
	[ "$rc" -eq 3 ]
	[ "$(cat "$CV_TMP/out")" = got-term ]
	! pgrep -f '^sleep 4742' || false
	assert_clean
}

@test "attacks (supervisor): a non-root caller's program is not PID 1 either" {
	requires_root
	requires_unprivileged_userns
	run as_nobody do --report "$NR/ws/r.json" -- sh -c 'echo "pid=$$"; kill -9 $$'
	[ "$status" -eq 137 ]
	[ "$output" = pid=2 ]
	[ "$(jq -r .signal "$NR/ws/r.json")" = 9 ]
}

@test "attacks (supervisor): the init is an annotation: run of an ordinary bundle unchanged, with it an init" {
	requires_root
	make_bundle
	update_config '.process.args = ["sh", "-c", "echo pid=$$; kill -9 $$"]'
	run cvisor run --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 0 ] # PID 1 ignores it
	[ "$output" = pid=1 ]
	update_config '.annotations["org.cvisor.init"] = "true"'
	run cvisor run --bundle "$CV_BUNDLE" "$(cv_new_id)"
	[ "$status" -eq 137 ]
	[ "$output" = pid=2 ]
	update_config '.annotations["org.cvisor.init"] = "yes"'
	run cvisor run --bundle "$CV_BUNDLE" "$(cv_new_id)"
	[ "$status" -eq 1 ]
	[[ "$output" == *'annotations["org.cvisor.init"]: expected "true" or "false", got "yes"'* ]]
	run cvisor list -q
	[ -z "$output" ]
}

# CVE-2019-5736 in a sandbox: the program makes itself a process of the
# runtime's image (a `#!/proc/self/exe` script as the program: the kernel
# resolves the interpreter in the init's child, which runs that image) and
# that image, dumpable, opens its log at /proc/self/exe: a write handle on
# the runtime binary. The binary under test is a copy in $ATK with the
# given owner and mode. Writes what the attack got to $CV_TMP/guard.out,
# then the image the init runs, seen from the host.
guard_attack() {
	local owner=$1 mode=$2 s="" init pid rc secs
	# a new file: the last one may still be running (the watcher's gc)
	rm -f "$ATK/cvisor"
	cp "$CVISOR" "$ATK/cvisor"
	chown "$owner" "$ATK/cvisor"
	chmod "$mode" "$ATK/cvisor"
	GUARD_SUM=$(sha256sum <"$ATK/cvisor")
	printf '#!/proc/self/exe --log=/proc/self/exe\n' >"$ATK/evil"
	chmod 755 "$ATK/evil"
	CVISOR="$ATK/cvisor" atk do -- "$ATK/evil" >"$CV_TMP/guard.out" 2>&1 || true
	secs=4743.$RANDOM
	CVISOR="$ATK/cvisor" atk do -- sleep $secs </dev/null >/dev/null 2>&1 &
	pid=$!
	cv_track_pid $pid
	for _ in $(seq 100); do s="$(pgrep -f "^sleep $secs\$")" && break; sleep 0.1; done
	[ -n "$s" ]
	init="$(ps -o ppid= -p "$s" | tr -d ' ')"
	echo "init runs $(readlink "/proc/$init/exe")" >>"$CV_TMP/guard.out"
	# cvisor do itself ($pid is the subshell running atk)
	kill -TERM "$(ps -o ppid= -p "$init" | tr -d ' ')"
	wait_ended $pid
	cat "$CV_TMP/guard.out"
}

@test "attacks (supervisor): CVE-2019-5736: a root-owned binary without group or other write runs as it is, and the program cannot write it" {
	requires_root
	atk_caller root
	guard_attack root 0755
	local out
	out="$(cat "$CV_TMP/guard.out")"
	[[ "$out" == *"open log file \`/proc/self/exe\`: Permission denied"* ]]
	[[ "$out" == *"init runs $ATK/cvisor"* ]]
	[ "$(sha256sum <"$ATK/cvisor")" = "$GUARD_SUM" ]
	assert_clean
}

@test "attacks (supervisor): CVE-2019-5736: a binary group- or world-writable, or not root's, is re-executed from a read-only image" {
	requires_root
	local who owner_mode out
	for who in root nobody; do
		for owner_mode in root:0775 root:0757 nobody:0755; do
			atk_caller $who
			guard_attack "${owner_mode%:*}" "${owner_mode#*:}"
			echo "($who, $owner_mode)"
			out="$(cat "$CV_TMP/guard.out")"
			[[ "$out" == *"open log file \`/proc/self/exe\`: "* ]]
			[[ "$out" == *"init runs "* ]]
			[[ "$out" != *"init runs $ATK/cvisor"* ]]
			[ "$(sha256sum <"$ATK/cvisor")" = "$GUARD_SUM" ]
		done
	done
	assert_clean
}
