#!/usr/bin/env bats
# cvisor do against the program it runs: each test is a reproducer of
# issue 17 (or of the sandbox issue's "the program is never PID 1"), written
# to fail against the code before its fix.

load helpers
load sandbox-helpers

setup() {
	sb_setup
}

teardown() {
	sb_teardown
}

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

@test "attacks (supervisor): the init reaps the orphans re-parented to it" {
	requires_root
	"$CVISOR" --root "$CV_ROOT" do -- sh -c '(sleep 0.2 &); exec sleep 4741' &
	local pid=$! s="" init
	cv_track_pid $pid
	for _ in $(seq 100); do s="$(pgrep -f '^sleep 4741$')" && break; sleep 0.1; done
	[ -n "$s" ]
	init="$(ps -o ppid= -p "$s" | tr -d ' ')"
	[ "$(cat "/proc/$init/comm")" = cvisor-init ]
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
