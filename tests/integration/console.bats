#!/usr/bin/env bats
# process.terminal: the pty allocated inside the container (its own devpts),
# its master over --console-socket, /dev/console, consoleSize, and `run`
# relaying the caller's terminal.

load helpers

setup() {
	cv_setup
	requires_root
	make_bundle
	cd "$CV_BUNDLE"
	RECVTTY="$CVISOR_BUILDDIR/tests/integration/recvtty"
	[ -x "$RECVTTY" ] || skip "recvtty not built (make check builds it)"
}

teardown() {
	cv_teardown
}

# Starts recvtty on $CV_TMP/tty.sock writing to $CV_TMP/tty.out; RPID is its pid.
start_recvtty() {
	"$RECVTTY" "$@" "$CV_TMP/tty.sock" >"$CV_TMP/tty.out" 2>"$CV_TMP/tty.err" 3>&- &
	RPID=$!
	cv_track_pid "$RPID"
	for _ in $(seq 100); do [ -S "$CV_TMP/tty.sock" ] && return 0; sleep 0.02; done
	false
}

# Waits (at most 20 s) for recvtty to end: the pty closed or the fd arrived.
wait_recvtty() {
	for _ in $(seq 200); do kill -0 "$RPID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$RPID" 2>/dev/null; then
		echo "recvtty $RPID still runs after 20 s"
		false
	fi
	wait "$RPID"
}

@test "console socket: create + start, the container's stdio is a pty of its own devpts, /dev/console, consoleSize" {
	update_config '.process.terminal = true | .process.consoleSize = {"height": 33, "width": 77} | .process.args = ["sh", "-c", "test -t 0 && test -t 1 && test -t 2 && echo tty-ok; tty; stty size; echo con=$(stat -c %t:%T /dev/console) pty=$(stat -c %t:%T $(tty)); echo ptsdev=$(stat -c %d /dev/pts/ptmx) ttydev=$(stat -c %d $(tty))"]'
	start_recvtty
	cv_create "$CV_ID" --console-socket "$CV_TMP/tty.sock"
	run cvisor state "$CV_ID"
	[[ "$output" == *'"status": "created"'* ]]
	run cvisor start "$CV_ID"
	[ "$status" -eq 0 ]
	wait_recvtty
	tr -d '\r' <"$CV_TMP/tty.out" >"$CV_TMP/out"
	cat "$CV_TMP/out"
	grep -qx tty-ok "$CV_TMP/out"
	grep -qx '/dev/pts/0' "$CV_TMP/out"
	grep -qx '33 77' "$CV_TMP/out"
	# /dev/console is the same character device as the process's terminal
	line="$(grep '^con=' "$CV_TMP/out")"
	[[ "$line" =~ ^con=([0-9a-f]+:[0-9a-f]+)\ pty=([0-9a-f]+:[0-9a-f]+)$ ]]
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
	# and the terminal lives on the container's devpts instance
	line="$(grep '^ptsdev=' "$CV_TMP/out")"
	[[ "$line" =~ ^ptsdev=([0-9]+)\ ttydev=([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
	grep -q '/dev/ptmx' "$CV_TMP/tty.err"
}

@test "console socket: run -d sends the master and the program's output comes through it" {
	update_config '.process.terminal = true | .process.args = ["sh", "-c", "echo detached-$$; ls /proc/self/fd"]'
	start_recvtty
	cvisor run -d --console-socket "$CV_TMP/tty.sock" "$CV_ID"
	wait_recvtty
	tr -d '\r' <"$CV_TMP/tty.out" >"$CV_TMP/out"
	cat "$CV_TMP/out"
	grep -qx detached-1 "$CV_TMP/out"
	# stdio and ls's own directory fd: the slave is not left open elsewhere
	[ "$(sed -n 2p "$CV_TMP/out" | wc -w)" -le 4 ]
}

@test "console socket: without consoleSize the pty starts with the size of the caller's terminal" {
	requires script
	update_config '.process.terminal = true | .process.args = ["stty", "size"]'
	start_recvtty
	printf '#!/bin/sh\nstty rows 19 cols 61\nexec "$CVISOR" --root "$CV_ROOT" run -d --console-socket "$CV_TMP/tty.sock" "$CV_ID"\n' >"$CV_TMP/inner"
	chmod +x "$CV_TMP/inner"
	run timeout 30 script -qec "$CV_TMP/inner" /dev/null </dev/null
	[ "$status" -eq 0 ]
	wait_recvtty
	tr -d '\r' <"$CV_TMP/tty.out" >"$CV_TMP/out"
	cat "$CV_TMP/out"
	grep -qx '19 61' "$CV_TMP/out"
}

@test "console socket: with process.user the pty belongs to that uid, devpts' group kept" {
	update_config '.process.terminal = true | .process.user = {"uid": 1000, "gid": 1000} | .process.args = ["sh", "-c", "stat -c owner=%u:%g $(tty); echo reopened >$(tty) && echo wrote"]'
	start_recvtty
	cvisor run -d --console-socket "$CV_TMP/tty.sock" "$CV_ID"
	wait_recvtty
	tr -d '\r' <"$CV_TMP/tty.out" >"$CV_TMP/out"
	cat "$CV_TMP/out"
	grep -qx owner=1000:5 "$CV_TMP/out"
	grep -qx wrote "$CV_TMP/out"
}

@test "console socket refused without process.terminal; terminal with create needs a socket" {
	run cvisor create --console-socket "$CV_TMP/nosock" --bundle "$CV_BUNDLE" "$CV_ID" </dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot use console socket"* ]]
	update_config '.process.terminal = true'
	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID" </dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot allocate tty if cvisor will detach without setting console socket"* ]]
	[ ! -e "$CV_ROOT/$CV_ID" ]
}

@test "run with process.terminal relays the caller's terminal and returns the exit status" {
	requires script
	update_config '.process.terminal = true | .process.args = ["sh", "-c", "test -t 0 && echo tty-in; stty size; echo out-$((6*7)); exit 7"]'
	printf '#!/bin/sh\nstty rows 21 cols 55\nexec "$CVISOR" --root "$CV_ROOT" run --bundle "$CV_BUNDLE" "$CV_ID"\n' >"$CV_TMP/inner"
	chmod +x "$CV_TMP/inner"
	run timeout 30 script -qec "$CV_TMP/inner" /dev/null </dev/null
	echo "$output"
	[ "$status" -eq 7 ]
	[[ "$output" == *tty-in* ]]
	[[ "$output" == *"21 55"* ]]
	[[ "$output" == *out-42* ]]
	run cvisor list -q
	[ -z "$output" ]
}

@test "exec -t relays the caller's terminal: the program's first look sees its size" {
	requires script
	update_config '.process.args = ["sleep", "987"]'
	cvisor run -d "$CV_ID" </dev/null >/dev/null 2>&1
	printf '#!/bin/sh\nstty rows 23 cols 57\nexec "$CVISOR" --root "$CV_ROOT" exec -t "$CV_ID" stty size\n' >"$CV_TMP/inner"
	chmod +x "$CV_TMP/inner"
	run timeout 30 script -qec "$CV_TMP/inner" /dev/null </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"23 57"* ]]
}

@test "run with process.terminal and no terminal at all fails cleanly, as runc does" {
	update_config '.process.terminal = true | .process.args = ["echo", "must-not-run"]'
	run timeout 30 setsid -w "$CVISOR" --root "$CV_ROOT" run --bundle "$CV_BUNDLE" "$CV_ID" </dev/null
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
	[[ "$output" == *"/dev/tty"* ]]
	[[ "$output" != *must-not-run* ]]
	run cvisor list -q
	[ -z "$output" ]
}
