#!/usr/bin/env bats
# Kubernetes' path to the runtime under test: containerd's CRI plugin with
# the `cvisor` runtime handler, driven through the Container Runtime
# Interface as the kubelet drives it, by cri/cri-client.py (a small gRPC
# client on Debian's python3-grpcio; stubs generated from cri/cri.proto at
# setup). One pod goes through its whole life, one step a test, in order:
# RunPodSandbox, a container sharing the pod's namespaces, ExecSync,
# ContainerStatus and its log, UpdateContainerResources, StopContainer and
# RemoveContainer, StopPodSandbox and RemovePodSandbox, then nothing is left.
#
# The handler is contrib/containerd/cvisor.toml as shipped (BinaryName and
# Root pointed at the build) and pods ask for the handler that
# contrib/containerd/runtimeclass.yaml names: the files an admin installs.
# All else is private to this file: a containerd with its own root, state,
# socket and config, started in setup_file and stopped by pid in
# teardown_file; the images, built here (a static pause program, the busybox
# rootfs) and imported with `ctr -n k8s.io images import`; the pod network,
# a CNI bridge of its own (bridge, host-local with its own data dir; the CRI
# adds loopback); the pod's cgroups, under our own memory cgroup.
# RUNTIME_UNDER_TEST=/usr/sbin/runc checks the harness itself.

bats_require_minimum_version 1.5.0
load engine-helpers

PAUSE_IMG=localhost/cvisor-pause:test
BB_IMG=localhost/cvisor-bb:test
CNI_BIN=${CNI_BIN:-/usr/lib/cni}
CONTRIB=$BATS_TEST_DIRNAME/../../contrib/containerd
# The pod network's address range; the bridge has no address on the host, so
# concurrent runs of this file do not collide.
POD_SUBNET_PREFIX=10.254.77.

# cri ARGS...: one CRI call on our containerd (cri-client.py's commands).
cri() {
    timeout -k 5 "$ENGINE_TIMEOUT" "$CRI_PY" "$BATS_TEST_DIRNAME/cri/cri-client.py" \
        --gen "$CT_DIR/cri-gen" --address "$CT_DIR/containerd.sock" "$@"
}

# cri_ok ARGS...: `run cri ARGS...` (output shown), which must succeed.
cri_ok() {
    run --separate-stderr cri "$@"
    show
    [ "$status" -eq 0 ]
}

show() {
    echo "status: $status"
    echo "stdout: ${output:-}"
    echo "stderr: ${stderr:-}"
}

# cri_python: a python3 that has Debian's grpc and grpc_tools (Debian's
# own first: the python3 on PATH may be another installation).
cri_python() {
    local p
    for p in /usr/bin/python3 python3; do
        command -v "$p" >/dev/null && "$p" -c 'import grpc, grpc_tools' 2>/dev/null \
            && { command -v "$p"; return 0; }
    done
    return 1
}

# saved NAME: a value an earlier test of this file saved (the pod's and the
# container's ids and pids); fails the test when that step did not happen.
saved() {
    [ -s "$CT_DIR/$1" ] || { echo "no $1: an earlier test of this file failed" >&2; return 1; }
    cat "$CT_DIR/$1"
}

# info FILE FILTER: jq FILTER on the verbose "info" document of a saved
# inspect/inspectp result.
info() {
    jq -r '.info.info' "$1" | jq -r "$2"
}

# memcg PATH FILE: a file of the cgroup PATH in the memory hierarchy (cgroup
# v1 and hybrid hosts, as eh_own_memory_cgroup).
memcg() {
    echo "/sys/fs/cgroup/memory$1/$2"
}

# cgroup_of PID: the process's memory cgroup.
cgroup_of() {
    sed -n 's/^[0-9]*:memory://p' "/proc/$1/cgroup"
}

cri_runtime() {
    "$RUNTIME_UNDER_TEST" --root "$CT_DIR/runtime-root/k8s.io" "$@"
}

# wait_gone PID: wait up to 5 s for PID to exit.
wait_gone() {
    local i
    for i in $(seq 50); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    echo "process $1 still runs: $(cat "/proc/$1/cmdline" | tr '\0' ' ')"
    return 1
}

# The CRI plugin's settings for this host, then the handler exactly as
# contrib/containerd/cvisor.toml has it, pointed at the build under test.
# restrict_oom_score_adj: the CRI gives the pause container oom_score_adj
# -998, which needs CAP_SYS_RESOURCE (not in this host's bounding set).
cri_config() {
    eh_containerd_config "$CT_DIR"
    cat <<EOF
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMG"
  restrict_oom_score_adj = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN"
    conf_dir = "$CT_DIR/cni"
EOF
    local contrib=$CONTRIB/cvisor.toml
    grep -q '^ *BinaryName = ' "$contrib" && grep -q '^ *Root = ' "$contrib" || {
        echo "$contrib: no BinaryName or Root line to point at the build" >&2
        return 1
    }
    sed -e "s|^\( *BinaryName = \).*|\1\"$RUNTIME_UNDER_TEST\"|" \
        -e "s|^\( *Root = \).*|\1\"$CT_DIR/runtime-root\"|" "$contrib"
}

setup_file() {
    local t p
    for t in containerd ctr containerd-shim-runc-v2; do
        command -v "$t" >/dev/null || {
            eh_skip_file "$t not installed (apt-get install containerd)"
            return 0
        }
    done
    for p in bridge host-local loopback; do
        [ -x "$CNI_BIN/$p" ] || {
            eh_skip_file "CNI plugin $CNI_BIN/$p not installed (apt-get install containernetworking-plugins)"
            return 0
        }
    done
    command -v ip >/dev/null || { eh_skip_file "ip not installed (apt-get install iproute2)"; return 0; }
    CRI_PY=$(cri_python) || {
        eh_skip_file "no python3 with grpc and grpc_tools (apt-get install python3-grpcio python3-grpc-tools)"
        return 0
    }
    eh_require_runtime || return 0
    # The handler pods ask for is the one the shipped RuntimeClass names.
    CRI_HANDLER=$(sed -n 's/^handler: *//p' "$CONTRIB/runtimeclass.yaml")
    [ -n "$CRI_HANDLER" ] || { echo "$CONTRIB/runtimeclass.yaml: no handler" >&2; return 1; }

    CT_DIR=$(mktemp -d /tmp/cvisor-cri.XXXXXX)
    CRI_CG=$(eh_own_memory_cgroup)/cvisor-cri-$$
    CRI_NET=cvisor-cri-$$
    CRI_BRIDGE=cvcri$$
    export CT_DIR CRI_CG CRI_NET CRI_BRIDGE CRI_PY CRI_HANDLER
    # libcni keeps its results cache in /var/lib/cni whatever the config says.
    [ -e /var/lib/cni ] || touch "$CT_DIR/made-var-lib-cni"

    mkdir -p "$CT_DIR/cni" "$CT_DIR/logs" "$CT_DIR/pause-rootfs"
    cri_config >"$CT_DIR/config.toml" || return 1
    # The pod network; the CRI adds the pod's lo itself, with the loopback
    # plugin.
    jq -n --arg name "$CRI_NET" --arg br "$CRI_BRIDGE" --arg subnet "${POD_SUBNET_PREFIX}0/24" \
          --arg ipam "$CT_DIR/cni-ipam" '{
        cniVersion: "0.4.0", name: $name,
        plugins: [{type: "bridge", bridge: $br, isGateway: false, ipMasq: false,
                   ipam: {type: "host-local", subnet: $subnet, dataDir: $ipam}}]}' \
        >"$CT_DIR/cni/10-cvisor-cri.conflist"

    local why
    if ! why=$(eh_containerd_start "$CT_DIR"); then
        eh_skip_file "containerd cannot start here: $why"
        return 0
    fi
    # containerd runs: a CRI plugin that did not load is our config's fault.
    ctr --address "$CT_DIR/containerd.sock" plugins ls | grep -q 'io.containerd.grpc.v1 *cri .* ok *$' || {
        echo "the CRI plugin did not load:" >&2
        grep 'io.containerd.grpc.v1.cri' "$CT_DIR/containerd.log" >&2
        return 1
    }

    # The pause image: one static binary. Built here, not by make: the
    # build's flags may carry sanitizers, which cannot link static.
    ${CC:-cc} -static -Os -Wall -Wextra -Werror -o "$CT_DIR/pause-rootfs/pause" \
        "$BATS_TEST_DIRNAME/pause.c" || return 1
    eh_oci_image "$CT_DIR/pause-rootfs" "$PAUSE_IMG" "$CT_DIR/pause.tar" /pause || return 1
    eh_make_rootfs "$CT_DIR/bb-rootfs" || return 1
    eh_oci_image "$CT_DIR/bb-rootfs" "$BB_IMG" "$CT_DIR/bb.tar" /bin/sh || return 1
    for t in pause bb; do
        ctr --address "$CT_DIR/containerd.sock" -n k8s.io images import "$CT_DIR/$t.tar" \
            >"$CT_DIR/import.log" 2>&1 || { cat "$CT_DIR/import.log" >&2; return 1; }
    done
    cri gen || return 1

    # The pod, as the kubelet would ask for it: network and IPC of the pod,
    # a pid namespace per container (the kubelet's default).
    jq -n --arg logs "$CT_DIR/logs" --arg cg "$CRI_CG" '{
        metadata: {name: "cri-pod", uid: "cvisor-cri-uid", namespace: "cvisor-test", attempt: 0},
        hostname: "cvisor-pod",
        log_directory: $logs,
        linux: {cgroup_parent: $cg,
                security_context: {namespace_options: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}}' \
        >"$CT_DIR/pod.json"
    # sh answers SIGTERM (StopContainer's signal) with a line and status 7.
    jq -n --arg img "$BB_IMG" '{
        metadata: {name: "work", attempt: 0},
        image: {image: $img},
        command: ["sh", "-c", "trap \"echo got-term; exit 7\" TERM; echo started; echo to-stderr >&2; sleep 1000 & wait"],
        envs: [{key: "GREETING", value: "hello-cri"}],
        log_path: "work/0.log",
        linux: {resources: {memory_limit_in_bytes: 67108864, cpu_shares: 256},
                security_context: {namespace_options: {network: "POD", pid: "CONTAINER", ipc: "POD"}}}}' \
        >"$CT_DIR/container.json"
}

setup() {
    eh_skip_if_needed
}

teardown_file() {
    [ -n "${CT_DIR:-}" ] || return 0
    # A failed test's pod: the CRI stops and removes it with its containers.
    local id
    if [ -S "$CT_DIR/containerd.sock" ]; then
        for id in $(ENGINE_TIMEOUT=10 cri pods 2>/dev/null); do
            ENGINE_TIMEOUT=10 cri stopp "$id" >/dev/null 2>&1
            ENGINE_TIMEOUT=10 cri rmp "$id" >/dev/null 2>&1
        done
    fi
    # What a hung runtime or a lost containerd left running.
    eh_kill_cgroup_procs "$CRI_CG"
    eh_containerd_stop "$CT_DIR"
    # The pod's network namespace outlives containerd if it was not stopped.
    local ns
    ns=$(cat "$CT_DIR/pod.netns" 2>/dev/null)
    if [ -n "$ns" ] && [ -e "$ns" ]; then
        umount "$ns" 2>/dev/null
        rm -f "$ns"
    fi
    ip link delete "$CRI_BRIDGE" 2>/dev/null
    local pod
    pod=$(cat "$CT_DIR/pod.id" 2>/dev/null)
    [ -z "$pod" ] || rm -f /var/lib/cni/results/*-"$pod"-*
    [ ! -e "$CT_DIR/made-var-lib-cni" ] || rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null
    eh_remove_cgroups "$CRI_CG"
    rm -rf "$CT_DIR"
}

# pause_stops_on SIGNAL: pause, once its handlers are in place, exits 0 on
# SIGNAL.
pause_stops_on() {
    "$CT_DIR/pause-rootfs/pause" 3>&- &
    local pid=$! i caught rc=0
    # SigCgt: SIGINT (bit 1) and SIGTERM (bit 14) caught.
    for i in $(seq 50); do
        caught=$(awk '/^SigCgt:/ {print $2}' "/proc/$pid/status")
        (( (0x$caught & 0x4002) == 0x4002 )) && break
        sleep 0.1
    done
    kill "-$1" "$pid"
    wait "$pid" || rc=$?
    echo "pause after SIG$1: status $rc"
    [ "$rc" -eq 0 ]
}

@test "pause exits 0 on SIGTERM and on SIGINT" {
    pause_stops_on TERM
    pause_stops_on INT
}

@test "RunPodSandbox with the RuntimeClass's handler: the pause container runs under the runtime" {
    cri_ok runp --runtime "$CRI_HANDLER" "$CT_DIR/pod.json"
    local pod=$output
    echo "$pod" >"$CT_DIR/pod.id"

    cri_ok inspectp "$pod"
    echo "$output" >"$CT_DIR/pod.status"
    [ "$(jq -r .status.state "$CT_DIR/pod.status")" = SANDBOX_READY ]
    [ "$(jq -r .status.runtime_handler "$CT_DIR/pod.status")" = "$CRI_HANDLER" ]
    [[ "$(jq -r .status.network.ip "$CT_DIR/pod.status")" == "$POD_SUBNET_PREFIX"* ]]
    # The handler's options reached the shim.
    [ "$(info "$CT_DIR/pod.status" .runtimeOptions.binary_name)" = "$RUNTIME_UNDER_TEST" ]
    info "$CT_DIR/pod.status" '.runtimeSpec.linux.namespaces[] | select(.type == "network") | .path' \
        >"$CT_DIR/pod.netns"
    [ -e "$(cat "$CT_DIR/pod.netns")" ]

    local pid
    pid=$(info "$CT_DIR/pod.status" .pid)
    echo "$pid" >"$CT_DIR/pod.pid"
    [ "$(cat "/proc/$pid/comm")" = pause ]
    # It runs in the network namespace the CRI made (and CNI set up).
    [ "$(stat -L -c %i "/proc/$pid/ns/net")" = "$(stat -L -c %i "$(cat "$CT_DIR/pod.netns")")" ]
    # The runtime under test made it: its own state has the pod's pid.
    run --separate-stderr cri_runtime state "$pod"
    show
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | jq -r .status)" = running ]
    [ "$(echo "$output" | jq -r .pid)" = "$pid" ]
    # Its cgroup is the one the CRI asked for, under the pod's parent, with
    # the sandbox's cpu shares (2) the CRI puts in the spec.
    [ "$(info "$CT_DIR/pod.status" .runtimeSpec.linux.cgroupsPath)" = "$CRI_CG/$pod" ]
    [ "$(cgroup_of "$pid")" = "$CRI_CG/$pod" ]
    grep -qx "$pid" "$(memcg "$CRI_CG/$pod" cgroup.procs)"
    [ "$(cat "/sys/fs/cgroup/cpu$CRI_CG/$pod/cpu.shares")" = 2 ]
}

@test "CreateContainer, StartContainer: the container joins the pod's network, IPC and UTS namespaces" {
    local pod ppid
    pod=$(saved pod.id)
    ppid=$(saved pod.pid)
    cri_ok create "$pod" "$CT_DIR/container.json" "$CT_DIR/pod.json"
    local ctr=$output
    echo "$ctr" >"$CT_DIR/ctr.id"
    cri_ok start "$ctr"

    cri_ok inspect "$ctr"
    echo "$output" >"$CT_DIR/ctr.status"
    [ "$(jq -r .status.state "$CT_DIR/ctr.status")" = CONTAINER_RUNNING ]
    local pid
    pid=$(info "$CT_DIR/ctr.status" .pid)
    echo "$pid" >"$CT_DIR/ctr.pid"
    # The CRI names the pause process's namespaces by path ...
    run info "$CT_DIR/ctr.status" '[.runtimeSpec.linux.namespaces[] | select(.path) | "\(.type) \(.path)"] | sort[]'
    show
    [ "$output" = "ipc /proc/$ppid/ns/ipc
network /proc/$ppid/ns/net
uts /proc/$ppid/ns/uts" ]
    # ... and the runtime joined them: same inodes; the pid namespace is
    # the container's own.
    local ns
    for ns in net ipc uts; do
        [ "$(stat -L -c %i "/proc/$pid/ns/$ns")" = "$(stat -L -c %i "/proc/$ppid/ns/$ns")" ]
    done
    [ "$(stat -L -c %i "/proc/$pid/ns/pid")" != "$(stat -L -c %i "/proc/$ppid/ns/pid")" ]

    run --separate-stderr cri_runtime state "$ctr"
    show
    [ "$(echo "$output" | jq -r .status)" = running ]
    [ "$(echo "$output" | jq -r .pid)" = "$pid" ]
    [ "$(cgroup_of "$pid")" = "$CRI_CG/$ctr" ]
    [ "$(cat "$(memcg "$CRI_CG/$ctr" memory.limit_in_bytes)")" = 67108864 ]
    [ "$(cat "/sys/fs/cgroup/cpu$CRI_CG/$ctr/cpu.shares")" = 256 ]
}

@test "ExecSync: output, stderr and exit code, in the pod's namespaces" {
    local ctr ppid
    ctr=$(saved ctr.id)
    ppid=$(saved pod.pid)
    run --separate-stderr cri exec "$ctr" sh -c 'echo "$GREETING $(hostname)"; echo oops >&2; exit 3'
    show
    [ "$status" -eq 3 ]
    [ "$output" = "hello-cri cvisor-pod" ]
    [ "$stderr" = oops ]

    cri_ok exec "$ctr" readlink /proc/self/ns/net
    [ "$output" = "$(readlink "/proc/$ppid/ns/net")" ]

    local ip
    ip=$(jq -r .status.network.ip "$CT_DIR/pod.status")
    cri_ok exec "$ctr" ip -4 -o addr show eth0
    [[ "$output" == *" inet $ip/24 "* ]]
}

@test "ContainerStatus and the container log" {
    local ctr
    ctr=$(saved ctr.id)
    cri_ok inspect "$ctr"
    [ "$(echo "$output" | jq -r .status.state)" = CONTAINER_RUNNING ]
    [ "$(echo "$output" | jq -r .status.metadata.name)" = work ]
    [ "$(echo "$output" | jq -r .status.image.image)" = "$BB_IMG" ]
    [ "$(echo "$output" | jq -r .status.started_at)" -gt 0 ]
    [ "$(echo "$output" | jq -r .status.finished_at)" = 0 ]
    [ "$(echo "$output" | jq -r .status.log_path)" = "$CT_DIR/logs/work/0.log" ]

    # The CRI log format: TIME STREAM F(ull line) TEXT.
    cat "$CT_DIR/logs/work/0.log"
    grep -qE '^[^ ]+ stdout F started$' "$CT_DIR/logs/work/0.log"
    grep -qE '^[^ ]+ stderr F to-stderr$' "$CT_DIR/logs/work/0.log"
}

@test "UpdateContainerResources changes the container's cgroup" {
    local ctr
    ctr=$(saved ctr.id)
    echo '{"memory_limit_in_bytes": 100663296, "cpu_period": 100000, "cpu_quota": 50000, "cpu_shares": 512}' \
        >"$CT_DIR/resources.json"
    cri_ok update "$ctr" "$CT_DIR/resources.json"
    [ "$(cat "$(memcg "$CRI_CG/$ctr" memory.limit_in_bytes)")" = 100663296 ]
    [ "$(cat "/sys/fs/cgroup/cpu$CRI_CG/$ctr/cpu.cfs_period_us")" = 100000 ]
    [ "$(cat "/sys/fs/cgroup/cpu$CRI_CG/$ctr/cpu.cfs_quota_us")" = 50000 ]
    [ "$(cat "/sys/fs/cgroup/cpu$CRI_CG/$ctr/cpu.shares")" = 512 ]
    cri_ok exec "$ctr" echo alive
    [ "$output" = alive ]
}

@test "StopContainer, RemoveContainer: the stop signal's exit code, then the container is gone" {
    local ctr pid
    ctr=$(saved ctr.id)
    pid=$(saved ctr.pid)
    cri_ok stop --timeout 10 "$ctr"
    wait_gone "$pid"

    cri_ok inspect "$ctr"
    [ "$(echo "$output" | jq -r .status.state)" = CONTAINER_EXITED ]
    [ "$(echo "$output" | jq -r .status.exit_code)" = 7 ]
    [ "$(echo "$output" | jq -r .status.finished_at)" -gt 0 ]
    cat "$CT_DIR/logs/work/0.log"
    grep -qE '^[^ ]+ stdout F got-term$' "$CT_DIR/logs/work/0.log"

    cri_ok rm "$ctr"
    run --separate-stderr cri inspect "$ctr"
    show
    [ "$status" -eq 125 ]
    [[ "$stderr" == *NOT_FOUND* ]]
    run --separate-stderr cri_runtime state "$ctr"
    show
    [ "$status" -ne 0 ]
    [[ "$stderr" == *"does not exist"* ]]
    [ ! -e "$(memcg "$CRI_CG/$ctr")" ]
}

@test "StopPodSandbox, RemovePodSandbox: no process, cgroup, mount, network namespace or state is left" {
    local pod pid netns
    pod=$(saved pod.id)
    pid=$(saved pod.pid)
    netns=$(saved pod.netns)
    cri_ok stopp "$pod"
    wait_gone "$pid"
    cri_ok inspectp "$pod"
    [ "$(echo "$output" | jq -r .status.state)" = SANDBOX_NOTREADY ]
    [ ! -e "$netns" ]

    cri_ok rmp "$pod"
    cri_ok pods
    [ -z "$output" ]
    cri_ok ps
    [ -z "$output" ]

    # Processes: none in the pods' cgroups; the pod's shim is gone.
    local i
    for i in $(seq 50); do
        pgrep -f -- "-address $CT_DIR/containerd.sock" >/dev/null || break
        sleep 0.1
    done
    run pgrep -af -- "-address $CT_DIR/containerd.sock"
    show
    [ -z "$output" ]
    if [ -d "$(memcg "$CRI_CG")" ]; then
        run find "$(memcg "$CRI_CG")" -name cgroup.procs -exec cat {} +
        show
        [ -z "$output" ]
    fi
    # cgroups: neither the pod's nor the container's, in any hierarchy.
    local ctr d
    ctr=$(saved ctr.id)
    for d in /sys/fs/cgroup/*/; do
        [ ! -e "$d${CRI_CG#/}/$pod" ]
        [ ! -e "$d${CRI_CG#/}/$ctr" ]
    done
    # Mounts: nothing under our directory (rootfs, shm, the sandbox files).
    run grep -F " $CT_DIR/" /proc/self/mountinfo
    show
    [ -z "$output" ]
    # State: the runtime's, containerd's task bundles and the CRI's own, and
    # the network's (libcni's results cache, host-local's lease).
    run ls -A "$CT_DIR/runtime-root/k8s.io"
    show
    [ -z "$output" ]
    run find "$CT_DIR/state" "$CT_DIR/root/io.containerd.grpc.v1.cri" -name "$pod*" -o -name "$ctr*"
    show
    [ -z "$output" ]
    run ls -A /var/lib/cni/results
    show
    [[ "$output" != *"-$pod-"* ]]
    local ip
    ip=$(jq -r .status.network.ip "$CT_DIR/pod.status")
    [ -n "$ip" ]
    [ -d "$CT_DIR/cni-ipam/$CRI_NET" ]
    [ ! -e "$CT_DIR/cni-ipam/$CRI_NET/$ip" ]
}
