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
    local dir=$1 busybox=${BUSYBOX:-/bin/busybox}
    [ -x "$busybox" ] || { echo "busybox not found at $busybox (apt-get install busybox-static)" >&2; return 1; }
    # helpers.bash's busybox_rootfs makes the applet links in one process (a
    # process a link takes seconds on a loaded machine); the subshell keeps
    # the rest of helpers.bash out of the engine tests.
    (CV_BUSYBOX=$busybox && . "$BATS_TEST_DIRNAME/helpers.bash" && busybox_rootfs "$dir") || return 1
    mkdir -p "$dir"/{home/user,var/tmp} || return 1
    chmod 1777 "$dir/var/tmp"
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

# eh_oci_image ROOTFS NAME OUT.tar CMD...: ROOTFS as a one-layer OCI image
# layout archive whose index names it NAME (repository:tag) and whose config
# runs CMD by default, for `ctr images import`. Digests and sizes are
# computed here; the work directory sits next to OUT.tar.
eh_oci_image() {
    local rootfs=$1 name=$2 out=$3 d arch
    shift 3
    d=$(mktemp -d "$(dirname "$out")/oci.XXXXXX") || return 1
    mkdir -p "$d/blobs/sha256"
    case $(uname -m) in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) arch=$(uname -m) ;; esac

    tar -C "$rootfs" -cf "$d/layer.tar" . || return 1
    local layer_sum layer_size
    layer_sum=$(_eh_blob "$d" layer.tar) || return 1
    layer_size=${layer_sum#* }; layer_sum=${layer_sum% *}

    jq -cn --arg arch "$arch" --arg diff "sha256:$layer_sum" '{
        architecture: $arch, os: "linux",
        config: {Env: ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
                 Cmd: $ARGS.positional},
        rootfs: {type: "layers", diff_ids: [$diff]}}' --args "$@" >"$d/config.json" || return 1
    local cfg_sum cfg_size
    cfg_sum=$(_eh_blob "$d" config.json) || return 1
    cfg_size=${cfg_sum#* }; cfg_sum=${cfg_sum% *}

    jq -cn --arg c "sha256:$cfg_sum" --argjson cs "$cfg_size" \
           --arg l "sha256:$layer_sum" --argjson ls "$layer_size" '{
        schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
        layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]}' \
        >"$d/manifest.json" || return 1
    local man_sum man_size
    man_sum=$(_eh_blob "$d" manifest.json) || return 1
    man_size=${man_sum#* }; man_sum=${man_sum% *}

    jq -cn --arg m "sha256:$man_sum" --argjson ms "$man_size" --arg name "$name" '{
        schemaVersion: 2,
        manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $m, size: $ms,
                     annotations: {"io.containerd.image.name": $name,
                                   "org.opencontainers.image.ref.name": ($name | split(":")[1])}}]}' \
        >"$d/index.json" || return 1
    echo '{"imageLayoutVersion":"1.0.0"}' >"$d/oci-layout"
    tar -C "$d" -cf "$out" oci-layout index.json blobs && rm -rf "$d"
}

# _eh_blob DIR FILE: move DIR/FILE to DIR/blobs/sha256/<digest>; prints
# "<digest> <size>".
_eh_blob() {
    local sum size
    sum=$(sha256sum "$1/$2" | cut -d' ' -f1) || return 1
    size=$(stat -c %s "$1/$2") || return 1
    mv "$1/$2" "$1/blobs/sha256/$sum" || return 1
    echo "$sum $size"
}

# eh_remove_cgroups RELPATH: remove RELPATH and everything below it in every
# mounted cgroup hierarchy (v1 controllers and the v2 mount), deepest first.
# Only empty cgroups can be removed, so stop their processes first.
eh_remove_cgroups() {
    local rel=$1 base d
    [[ -n "$rel" && "$rel" != / ]] || return 0
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
    [[ -n "$1" && -d "$d" ]] || return 0
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

# A private containerd for a test file: everything under DIR (root, state,
# temp, the socket DIR/containerd.sock), stopped by pid.
#
# eh_containerd_config DIR [LINE...] > DIR/config.toml: the config every
# private containerd needs; each LINE is a top-level key (they must come
# before the tables). Append plugin tables after it.
eh_containerd_config() {
    local dir=$1 line
    shift
    echo "version = 2"
    for line in "$@"; do echo "$line"; done
    cat <<EOF
root = "$dir/root"
state = "$dir/state"
temp = "$dir/tmp"
[grpc]
  address = "$dir/containerd.sock"
[ttrpc]
  address = "$dir/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/opt"
EOF
}

# eh_containerd_start DIR: start containerd on DIR/config.toml (log in
# DIR/containerd.log, pid in DIR/containerd.pid) and wait up to 10 s for it
# to answer. On failure prints why (the log's last lines) and returns 1.
eh_containerd_start() {
    local dir=$1 i
    mkdir -p "$dir/tmp" || return 1
    # fd 3 closed: bats waits on it otherwise.
    containerd --config "$dir/config.toml" >"$dir/containerd.log" 2>&1 3>&- &
    echo $! >"$dir/containerd.pid"
    for i in $(seq 100); do
        ctr --address "$dir/containerd.sock" version >/dev/null 2>&1 && return 0
        kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null || break
        sleep 0.1
    done
    echo "containerd did not answer on $dir/containerd.sock: $(tail -n 3 "$dir/containerd.log")"
    return 1
}

# eh_containerd_stop DIR: stop the containerd of DIR, the shims it started
# that outlived it (they carry its socket path), and unmount what is still
# mounted under DIR.
eh_containerd_stop() {
    local dir=$1 p
    eh_kill_pidfile "$dir/containerd.pid"
    for p in $(pgrep -f -- "-address $dir/containerd.sock"); do
        kill -KILL "$p" 2>/dev/null
    done
    grep -F " $dir/" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m"; done
    return 0
}
