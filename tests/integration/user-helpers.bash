# A real unprivileged user for the rootless tests (rootless.bats,
# podman-rootless.bats), made in setup_file and removed in teardown_file.
#
#   tu_make_user SUB      as root: a user cvt<pid> with a group of its own,
#                         subordinate ids SUB..SUB+65535 in /etc/subuid and
#                         /etc/subgid (and no others), and a directory
#                         TU_DIR (0755) it owns, holding home/ and run/
#                         (0700). Sets and exports TU_USER TU_UID TU_GID
#                         TU_SUB TU_DIR. When it cannot (not root, no
#                         uidmap, no unprivileged user namespaces) it returns
#                         1 with the reason to skip with in TU_SKIP (bats 1.8
#                         cannot skip in setup_file: setup() does).
#   tu_remove_user        kills what runs as the user (by pid: only our tests
#                         ran anything as it), removes its ranges, the user
#                         and TU_DIR
#   as_user CMD...        CMD as the user, its own group only, in a clean
#                         environment: PATH (TU_PATH, default the usual one),
#                         HOME=TU_DIR/home, XDG_RUNTIME_DIR=TU_DIR/run

tu_make_user() {
	local sub=$1
	export TU_SKIP=
	[ "$(id -u)" -eq 0 ] || { export TU_SKIP="requires root (to make a test user)"; return 1; }
	local c
	for c in newuidmap newgidmap setpriv useradd usermod userdel; do
		command -v "$c" >/dev/null || { export TU_SKIP="requires $c (Debian packages uidmap, util-linux, passwd)"; return 1; }
	done
	export TU_USER="cvt$$" TU_SUB="$sub"
	# no automatic ranges (SUB_UID_COUNT): only the one given here
	useradd -M -d /nonexistent -s /usr/sbin/nologin -U -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 "$TU_USER" ||
		{ export TU_SKIP="useradd $TU_USER failed"; return 1; }
	usermod --add-subuids "$sub-$((sub + 65535))" --add-subgids "$sub-$((sub + 65535))" "$TU_USER" ||
		{ export TU_SKIP="usermod --add-subuids failed"; return 1; }
	TU_UID="$(id -u "$TU_USER")"
	TU_GID="$(id -g "$TU_USER")"
	TU_DIR="$(mktemp -d /tmp/cvisor-user.XXXXXX)"
	export TU_UID TU_GID TU_DIR
	chmod 755 "$TU_DIR"
	mkdir -m 700 "$TU_DIR/home" "$TU_DIR/run"
	chown "$TU_USER:$TU_USER" "$TU_DIR" "$TU_DIR/home" "$TU_DIR/run"
	as_user unshare -U true 2>/dev/null ||
		{ export TU_SKIP="this environment refuses a user namespace to an unprivileged user (unshare -U)"; return 1; }
	as_user test -x "$CVISOR" || { export TU_SKIP="$CVISOR is not executable by $TU_USER"; return 1; }
}

tu_remove_user() {
	[ -n "${TU_USER:-}" ] || return 0
	local f uid pids i
	if id "$TU_USER" >/dev/null 2>&1; then
		for i in $(seq 50); do
			pids=""
			for f in /proc/[0-9]*/status; do
				uid="$(awk '/^Uid:/ { print $2; exit }' "$f" 2>/dev/null)"
				[ "$uid" = "$TU_UID" ] && pids="$pids ${f//[^0-9]/}"
			done
			[ -n "$pids" ] || break
			# shellcheck disable=SC2086
			kill -KILL $pids 2>/dev/null
			sleep 0.1
		done
		usermod --del-subuids "$TU_SUB-$((TU_SUB + 65535))" --del-subgids "$TU_SUB-$((TU_SUB + 65535))" "$TU_USER" || true
		userdel "$TU_USER" || true
	fi
	[ -z "${TU_DIR:-}" ] || rm -rf "$TU_DIR"
}

as_user() {
	setpriv --reuid="$TU_USER" --regid="$TU_USER" --clear-groups \
		env -i PATH="${TU_PATH:-/usr/sbin:/usr/bin:/sbin:/bin}" HOME="$TU_DIR/home" XDG_RUNTIME_DIR="$TU_DIR/run" "$@"
}
