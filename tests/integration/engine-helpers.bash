# Shared helpers for the real-engine tests (podman.bats, containerd.bats).
#
# Which runtime the engines drive:
#   RUNTIME_UNDER_TEST  path of the OCI runtime binary (default: $CVISOR)
#   CVISOR              cvisor binary (default: src/cvisor of the build tree,
#                       found from $PWD or next to the sources, else PATH)
# Point RUNTIME_UNDER_TEST at /usr/sbin/runc to validate the harness itself.

eh_find_cvisor() {
    if [ -n "${CVISOR:-}" ]; then echo "$CVISOR"; return; fi
    local c
    for c in "$PWD/src/cvisor" "$BATS_TEST_DIRNAME/../../src/cvisor"; do
        if [ -x "$c" ]; then (cd "$(dirname "$c")" && echo "$PWD/cvisor"); return; fi
    done
    command -v cvisor || true
}

CVISOR=$(eh_find_cvisor)
RUNTIME_UNDER_TEST=${RUNTIME_UNDER_TEST:-$CVISOR}
# Upper bound for one engine command, so a hung runtime fails the test
# instead of hanging the suite.
ENGINE_TIMEOUT=${ENGINE_TIMEOUT:-60}
export CVISOR RUNTIME_UNDER_TEST ENGINE_TIMEOUT

# bats 1.8 cannot `skip` from setup_file: setup_file records the reason with
# eh_skip_file and returns; setup() of every test calls eh_skip_if_needed.
eh_skip_file() {
    export ENGINE_SKIP="$*"
}

eh_skip_if_needed() {
    [ -z "${ENGINE_SKIP:-}" ] || skip "$ENGINE_SKIP"
}

# eh_require_runtime || return 0: in setup_file, unless the runtime exists.
eh_require_runtime() {
    if [ -z "$RUNTIME_UNDER_TEST" ] || [ ! -x "$RUNTIME_UNDER_TEST" ]; then
        eh_skip_file "runtime under test not found (set CVISOR or RUNTIME_UNDER_TEST; got \`${RUNTIME_UNDER_TEST:-}\`)"
        return 1
    fi
}

# The caller's own memory cgroup: containers must nest below it on this host.
eh_own_memory_cgroup() {
    sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup
}

# eh_make_rootfs DIR: a complete busybox root filesystem (static binary and
# applet links, passwd/group with root, nobody and a uid 1000 user).
eh_make_rootfs() {
    local dir=$1 busybox=${BUSYBOX:-/bin/busybox} a
    [ -x "$busybox" ] || { echo "busybox not found at $busybox (apt-get install busybox-static)" >&2; return 1; }
    mkdir -p "$dir"/{bin,dev,etc,proc,sys,tmp,root,home/user,var/tmp} || return 1
    chmod 1777 "$dir/tmp" "$dir/var/tmp"
    cp "$busybox" "$dir/bin/busybox" || return 1
    for a in $("$busybox" --list); do
        [ "$a" = busybox ] || ln -sf busybox "$dir/bin/$a"
    done
    cat >"$dir/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/home/user:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
    cat >"$dir/etc/group" <<'EOF'
root:x:0:
user:x:1000:
nogroup:x:65534:
EOF
}

# eh_remove_cgroups RELPATH: remove RELPATH and everything below it in every
# mounted cgroup hierarchy (v1 controllers and the v2 mount), deepest first.
# Only empty cgroups can be removed, so stop their processes first.
eh_remove_cgroups() {
    local rel=$1 base d
    [ -n "$rel" ] && [ "$rel" != / ] || return 0
    for base in /sys/fs/cgroup/*/ /sys/fs/cgroup/; do
        d=${base%/}/${rel#/}
        [ -d "$d" ] || continue
        find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
    done
    return 0
}

# eh_kill_cgroup_procs RELPATH: SIGKILL every process in RELPATH and below in
# the memory hierarchy (only ever called on cgroups this file created), then
# wait up to 5 s for them to go.
eh_kill_cgroup_procs() {
    local d=/sys/fs/cgroup/memory/${1#/} pid i left
    [ -n "$1" ] && [ -d "$d" ] || return 0
    for i in $(seq 50); do
        left=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null)
        [ -n "$left" ] || return 0
        for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
        sleep 0.1
    done
    return 0
}

# eh_pty COMMAND-STRING: run COMMAND-STRING (bash) on a new pty through
# script(1) and print what it wrote there. script's stdin is a pipe that
# stays open until the command is done: at EOF on stdin script ends the
# session early and the container's output can be lost.
eh_pty() {
    local feeder rc
    exec {feeder}< <(sleep "$ENGINE_TIMEOUT" 3>&-)
    local feeder_pid=$!
    SHELL=/bin/bash timeout -k 5 "$ENGINE_TIMEOUT" script -qec "$1" /dev/null <&"$feeder"
    rc=$?
    kill "$feeder_pid" 2>/dev/null
    exec {feeder}<&-
    return $rc
}

# eh_kill_pidfile FILE: stop the process whose pid FILE holds, and wait for it.
eh_kill_pidfile() {
    local f=$1 pid i
    [ -s "$f" ] || return 0
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || return 0
    for i in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    return 0
}
