#!/usr/bin/env bats
# containerd (through ctr and containerd-shim-runc-v2) driving the runtime
# under test (cvisor by default; RUNTIME_UNDER_TEST=/usr/sbin/runc checks the
# harness itself).
#
# A private containerd runs for this file: own root, state, socket and config
# in a temporary directory, started in setup_file and stopped by pid in
# teardown_file. `ctr run` ignores BinaryName in config.toml, so every run
# passes --runc-binary and a private --runc-root; containers nest under our
# own memory cgroup (--cgroup). The image is the busybox rootfs, exported with
# `podman save` when podman is installed, else written by hand as an OCI
# image layout (CT_IMAGE_VIA=hand forces that).

bats_require_minimum_version 1.5.0
load engine-helpers

IMG=localhost/cvisor-bb:latest

# ct_raw: ctr on our private containerd; ct: the same under a time limit.
ct_raw() {
    ${CT_WRAP:-} ctr --address "$CT_DIR/containerd.sock" --namespace cvisor-test "$@"
}

ct() {
    CT_WRAP="timeout -k 5 $ENGINE_TIMEOUT" ct_raw "$@"
}

# ct_run ID [ctr run flags...] -- CMD...: run flags every container needs.
ct_run() {
    local id=$1; shift
    local -a flags=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
    shift
    ${CT_RUN:-ct} run --runc-binary "$RUNTIME_UNDER_TEST" --runc-root "$CT_DIR/runtime-root" \
        --cgroup "$CT_CG/$id" "${flags[@]}" "$IMG" "$id" "$@"
}

show() {
    echo "status: $status"
    echo "stdout: ${output:-}"
    echo "stderr: ${stderr:-}"
}

# ct_wait_status ID STATUS: wait up to 10 s for the task to reach STATUS.
ct_wait_status() {
    local i
    for i in $(seq 100); do
        [ "$(ct task ls | awk -v id="$1" '$1 == id {print $3}')" = "$2" ] && return 0
        sleep 0.1
    done
    echo "task $1 did not reach $2: $(ct task ls)"
    return 1
}

setup_file() {
    if ! command -v containerd >/dev/null || ! command -v ctr >/dev/null \
        || ! command -v containerd-shim-runc-v2 >/dev/null; then
        eh_skip_file "containerd, ctr or containerd-shim-runc-v2 not installed (apt-get install containerd)"
        return 0
    fi
    eh_require_runtime || return 0
    CT_DIR=$(mktemp -d /tmp/cvisor-ctrd.XXXXXX)
    CT_CG=$(eh_own_memory_cgroup)/cvisor-containerd-$$
    export CT_DIR CT_CG

    # CRI is off (no CNI here, and ctr does not use it); the v1 runtime plugin
    # stays on or the tasks service does not load.
    eh_containerd_config "$CT_DIR" 'disabled_plugins = ["io.containerd.grpc.v1.cri"]' \
        >"$CT_DIR/config.toml"
    eh_containerd_start "$CT_DIR" >&2 || return 1

    eh_make_rootfs "$CT_DIR/rootfs"
    if command -v podman >/dev/null && [ "${CT_IMAGE_VIA:-podman}" = podman ]; then
        local -a pm=(podman --root "$CT_DIR/podman" --runroot "$CT_DIR/podman-run"
                     --tmpdir "$CT_DIR/podman-tmp" --cgroup-manager=cgroupfs --events-backend=file)
        tar -C "$CT_DIR/rootfs" -c . | "${pm[@]}" import -q - "$IMG" >/dev/null
        "${pm[@]}" save -q --format oci-archive -o "$CT_DIR/image.tar" "$IMG"
        "${pm[@]}" system reset -f >/dev/null 2>&1
    else
        eh_oci_image "$CT_DIR/rootfs" "$IMG" "$CT_DIR/image.tar" /bin/sh
    fi
    ct images import --base-name localhost/cvisor-bb "$CT_DIR/image.tar" >"$CT_DIR/import.log" 2>&1 \
        || { cat "$CT_DIR/import.log" >&2; return 1; }
    ct images ls -q | grep -qx "$IMG" || { echo "image $IMG missing after import: $(ct images ls -q)" >&2; return 1; }
}

# Remove every task and container of the namespace (a failed test's leftovers).
ct_remove_all() {
    local id
    for id in $(ct task ls -q 2>/dev/null); do
        ct task kill -s KILL "$id" >/dev/null 2>&1
        ct_wait_status "$id" STOPPED >/dev/null 2>&1
        ct task delete -f "$id" >/dev/null 2>&1
    done
    for id in $(ct containers ls -q 2>/dev/null); do
        ct containers delete "$id" >/dev/null 2>&1
    done
}

setup() {
    eh_skip_if_needed
}

teardown() {
    [ -n "${CT_DIR:-}" ] || return 0
    ct_remove_all
}

teardown_file() {
    [ -n "${CT_DIR:-}" ] || return 0
    ct_remove_all
    # Container processes a hung runtime left behind (shims are handled below).
    eh_kill_cgroup_procs "$CT_CG"
    ct_remove_all
    ct images rm "$IMG" >/dev/null 2>&1
    eh_containerd_stop "$CT_DIR"
    eh_remove_cgroups "$CT_CG"
    rm -rf "$CT_DIR"
}

@test "ctr run --rm: stdout and exit code" {
    run --separate-stderr ct_run cvt-rm --rm -- sh -c 'echo hello; exit 3'
    show
    [ "$status" -eq 3 ]
    [ "$output" = hello ]
    run ct containers ls -q
    [ -z "$output" ]
}

@test "ctr run --rm: namespaces, hostname and environment of the default spec" {
    run --separate-stderr ct_run cvt-env --rm --env FOO=bar -- \
        sh -c 'echo "$FOO $$ $(hostname) $(cat /proc/1/comm)"'
    show
    [ "$status" -eq 0 ]
    # sh is pid 1 of a fresh pid namespace.
    [ "$output" = "bar 1 $(hostname) sh" ]
}

@test "ctr run -d, task exec, task kill, task delete" {
    run --separate-stderr ct_run cvt-d -d -- sh -c "trap 'exit 7' TERM; sleep 1000 & wait"
    show
    [ "$status" -eq 0 ]
    ct_wait_status cvt-d RUNNING

    run --separate-stderr ct task exec --exec-id e1 cvt-d sh -c 'echo in-exec; exit 4'
    show
    [ "$status" -eq 4 ]
    [ "$output" = in-exec ]

    run --separate-stderr ct task exec --exec-id e2 cvt-d cat /proc/1/comm
    show
    [ "$status" -eq 0 ]
    [ "$output" = sh ]

    # task ps asks the runtime (`ps --format json`) for the container's pids.
    run --separate-stderr ct task ps cvt-d
    show
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | tail -n +2 | wc -l)" -ge 2 ]

    run --separate-stderr ct task kill cvt-d
    show
    [ "$status" -eq 0 ]
    ct_wait_status cvt-d STOPPED

    # ctr reports the task's exit code: the trap's 7 shows SIGTERM reached pid 1.
    run --separate-stderr ct task delete cvt-d
    show
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"exit code 7"* ]]
    run ct task ls -q
    [ -z "$output" ]
    run --separate-stderr ct containers delete cvt-d
    show
    [ "$status" -eq 0 ]
}

@test "ctr task pause and resume" {
    run --separate-stderr ct_run cvt-p -d -- sleep 1000
    show
    [ "$status" -eq 0 ]
    ct_wait_status cvt-p RUNNING
    run --separate-stderr ct task pause cvt-p
    show
    [ "$status" -eq 0 ]
    ct_wait_status cvt-p PAUSED
    run --separate-stderr ct task resume cvt-p
    show
    [ "$status" -eq 0 ]
    ct_wait_status cvt-p RUNNING
    run --separate-stderr ct task exec --exec-id e1 cvt-p echo alive
    show
    [ "$output" = alive ]
}

@test "ctr run -t: the process gets a pty" {
    local cmd
    cmd=$(printf '%q ' ct_run cvt-t --rm -t -- sh -c 'tty && echo tty-ok')
    export -f ct_raw ct_run
    export IMG CT_RUN=ct_raw
    run eh_pty "$cmd"
    show
    [ "$status" -eq 0 ]
    [[ "$output" == *"/dev/pts/0"* ]]
    [[ "$output" == *"tty-ok"* ]]
}

@test "ctr run --memory-limit: limit set on the container cgroup" {
    run --separate-stderr ct_run cvt-m -d --memory-limit 67108864 -- sleep 1000
    show
    [ "$status" -eq 0 ]
    ct_wait_status cvt-m RUNNING
    # ctr's default spec gives the container no cgroup mount: read it from the host.
    run cat "/sys/fs/cgroup/memory/${CT_CG#/}/cvt-m/memory.limit_in_bytes"
    show
    [ "$output" = 67108864 ]
}

@test "ctr run --read-only with a read-only bind --mount" {
    mkdir -p "$CT_DIR/vol"
    echo from-host >"$CT_DIR/vol/file"
    # the pause at the end: containerd's shim can lose what a process
    # writes just before it exits (its copy of the output races the exit,
    # containerd's own race, seen here under load)
    run --separate-stderr ct_run cvt-ro --rm --read-only \
        --mount "type=bind,src=$CT_DIR/vol,dst=/data,options=rbind:ro" -- \
        sh -c 'cat /data/file; touch /newfile || echo root-ro; touch /data/new || echo data-ro; sleep 0.2'
    show
    [ "$status" -eq 0 ]
    [ "$output" = "from-host
root-ro
data-ro" ]
    [[ "$stderr" == *"Read-only file system"* ]]
    [ ! -e "$CT_DIR/vol/new" ]
}

@test "ctr run --cap-drop: the capability is gone" {
    # Control: the default set has CAP_CHOWN.
    run --separate-stderr ct_run cvt-cap0 --rm -- sh -c 'touch /tmp/f && chown 1000 /tmp/f && echo chowned'
    show
    [ "$output" = chowned ]
    run --separate-stderr ct_run cvt-cap --rm --cap-drop CAP_CHOWN -- \
        sh -c 'touch /tmp/f && chown 1000 /tmp/f && echo chowned'
    show
    [ "$status" -ne 0 ]
    [[ "$stderr" == *"Operation not permitted"* ]]
}

@test "ctr run --with-ns network:PATH joins an existing network namespace" {
    touch "$CT_DIR/netns"
    unshare --net="$CT_DIR/netns" true
    local ino
    ino=$(stat -L -c %i "$CT_DIR/netns")
    run --separate-stderr ct_run cvt-ns --rm --with-ns "network:$CT_DIR/netns" -- readlink /proc/self/ns/net
    show
    umount "$CT_DIR/netns"
    [ "$status" -eq 0 ]
    [ "$output" = "net:[$ino]" ]
}
