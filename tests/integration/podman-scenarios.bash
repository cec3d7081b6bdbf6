# The podman scenarios, run by podman.bats as root and by
# podman-rootless.bats as an unprivileged user (podman's rootless mode: it
# runs conmon and the runtime as root of the user's own user namespace).
# Each scenario is a function pm_t_NAME called by one @test of each file.
#
# Everything is private to the file running them: podman --root/--runroot/
# --tmpdir and the runtime's own --root live in PM_DIR, networking is off.
# As root, containers nest under our own memory cgroup (--cgroup-parent);
# rootless, they have no cgroup (none is delegated to the test user here),
# and the scenarios that need one are skipped. pm_teardown_file removes
# containers, storage, cgroups, the test user's processes and PM_DIR.
#
# Set before pm_setup_file: TU_USER etc. (user-helpers.bash, tu_make_user)
# for the rootless mode.

load engine-helpers
load user-helpers

IMG=localhost/cvisor-bb

# pm_raw: podman with our private paths (as the test user when rootless);
# pm: the same under a time limit.
pm_raw() {
    local cmd=(podman --root "$PM_DIR/root" --runroot "$PM_DIR/runroot" --tmpdir "$PM_DIR/tmp"
        --runtime "$RUNTIME_UNDER_TEST" --runtime-flag "root=$PM_DIR/runtime-root"
        --cgroup-manager=cgroupfs --events-backend=file --storage-driver=overlay "$@")
    if [ -n "${TU_USER:-}" ]; then
        as_user ${PM_WRAP:-} "${cmd[@]}"
    else
        ${PM_WRAP:-} "${cmd[@]}"
    fi
}

pm() {
    PM_WRAP="timeout -k 5 $ENGINE_TIMEOUT" pm_raw "$@"
}

# Flags every container needs on this host: our cgroup (as root), no
# network, rlimits within the hard limits (CAP_SYS_RESOURCE is missing here).
PM_RUN_FLAGS() {
    [ -n "${TU_USER:-}" ] || printf '%s\n' --cgroup-parent "$PM_CG"
    printf '%s\n' --network none --ulimit nofile=20000:20000 --ulimit nproc=32768:32768
}

pm_run() {
    local -a f
    mapfile -t f < <(PM_RUN_FLAGS)
    pm run "${f[@]}" "$@"
}

# Shown by bats only when a test fails.
show() {
    echo "status: $status"
    echo "stdout: ${output:-}"
    echo "stderr: ${stderr:-}"
}

# pm_own PATH: rootless, PATH (made by root) becomes the test user's, as a
# directory of the user's own would be.
pm_own() {
    [ -z "${TU_USER:-}" ] || chown "$TU_USER:$TU_USER" "$1"
}

# pm_on_pty ARGS...: `run` podman ARGS on a pty (script(1), see eh_pty),
# which must succeed; pm_raw and as_user are exported for script's shell.
pm_on_pty() {
    local cmd
    cmd=$(printf '%q ' pm_raw "$@")
    export -f pm_raw as_user
    run eh_pty "$cmd"
    show
    [ "$status" -eq 0 ]
}

# A scenario that reads or changes the container's cgroup.
pm_requires_cgroup() {
    [ -z "${TU_USER:-}" ] ||
        skip "rootless: no cgroup is delegated to the test user on this host, so podman gives the container none"
}

pm_setup_file() {
    command -v podman >/dev/null || { eh_skip_file "podman not installed (apt-get install podman)"; return 0; }
    eh_require_runtime || return 0
    if [ -n "${TU_USER:-}" ]; then
        PM_DIR="$TU_DIR/podman"
        mkdir -m 755 "$PM_DIR"
        pm_own "$PM_DIR"
    else
        PM_DIR=$(mktemp -d /tmp/cvisor-podman.XXXXXX)
    fi
    PM_CG=$(eh_own_memory_cgroup)/cvisor-podman-$$
    export PM_DIR PM_CG
    eh_make_rootfs "$PM_DIR/rootfs"
    tar -C "$PM_DIR/rootfs" -c . | pm import -q - "$IMG" >/dev/null
}

pm_teardown() {
    [ -n "${PM_DIR:-}" ] || return 0
    pm rm -af -t 0 >/dev/null 2>&1 || true
}

pm_teardown_file() {
    [ -n "${PM_DIR:-}" ] || return 0
    pm rm -af -t 0 >/dev/null 2>&1
    # conmon and container processes a hung runtime left behind.
    eh_kill_cgroup_procs "$PM_CG"
    pm rm -af -t 0 >/dev/null 2>&1
    pm system reset -f >/dev/null 2>&1
    # Anything podman left mounted below our directory, deepest first.
    grep -F " $PM_DIR/" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m"; done
    eh_remove_cgroups "$PM_CG"
    rm -rf "$PM_DIR"
}

# podman run --rm: stdout and exit code
pm_t_run_rm() {
    run --separate-stderr pm_run --rm "$IMG" sh -c 'echo hello; exit 3'
    show
    [ "$status" -eq 3 ]
    [ "$output" = hello ]
    run pm ps -aq
    [ -z "$output" ]
}

# podman run --rm: environment, working directory and hostname
pm_t_env_cwd_hostname() {
    run --separate-stderr pm_run --rm -e FOO=bar -w /tmp --hostname cvt-host "$IMG" \
        sh -c 'echo "$FOO $(pwd) $(hostname)"'
    show
    [ "$status" -eq 0 ]
    [ "$output" = "bar /tmp cvt-host" ]
}

# podman run -d, exec, stop (SIGTERM reaches pid 1), rm
pm_t_detach_exec_stop_rm() {
    run --separate-stderr pm_run -d --name cvt-d "$IMG" \
        sh -c "trap 'exit 0' TERM; sleep 1000 & wait"
    show
    [ "$status" -eq 0 ]
    run pm inspect -f '{{.State.Status}}' cvt-d
    show
    [ "$output" = running ]

    run --separate-stderr pm exec cvt-d sh -c 'echo in-exec; exit 4'
    show
    [ "$status" -eq 4 ]
    [ "$output" = in-exec ]

    # The exec'd process sees the container's pid namespace: pid 1 is our sh.
    run --separate-stderr pm exec cvt-d cat /proc/1/comm
    show
    [ "$status" -eq 0 ]
    [ "$output" = sh ]

    run --separate-stderr pm stop -t 20 cvt-d
    show
    [ "$status" -eq 0 ]
    # Exit code 0 means the trap ran: SIGTERM was delivered, not SIGKILL (137).
    run pm inspect -f '{{.State.Status}} {{.State.ExitCode}}' cvt-d
    show
    [ "$output" = "exited 0" ]

    run --separate-stderr pm rm cvt-d
    show
    [ "$status" -eq 0 ]
    run pm ps -aq
    [ -z "$output" ]
}

pm_two_lines_to_wc() {
    printf 'line1\nline2\n' | pm_run -i --rm "$IMG" wc -l
}

# podman run -i: stdin reaches the container
pm_t_stdin() {
    run --separate-stderr pm_two_lines_to_wc
    show
    [ "$status" -eq 0 ]
    [ "$output" = 2 ]
}

# podman kill --signal: the signal reaches pid 1
pm_t_kill_signal() {
    run --separate-stderr pm_run -d --name cvt-k "$IMG" \
        sh -c "trap 'exit 42' HUP; sleep 1000 & wait"
    show
    [ "$status" -eq 0 ]
    run --separate-stderr pm kill --signal HUP cvt-k
    show
    [ "$status" -eq 0 ]
    run --separate-stderr pm wait cvt-k
    show
    [ "$output" = 42 ]
}

# podman run --security-opt no-new-privileges
pm_t_no_new_privileges() {
    run --separate-stderr pm_run --rm --security-opt no-new-privileges "$IMG" grep NoNewPrivs /proc/self/status
    show
    [ "$status" -eq 0 ]
    [[ "$output" == *"1" ]]
}

# podman run -it: the process gets a pty
pm_t_run_tty() {
    local -a f
    mapfile -t f < <(PM_RUN_FLAGS)
    pm_on_pty run "${f[@]}" --rm -it "$IMG" sh -c 'tty; stty size; echo tty-ok'
    [[ "$output" == *"/dev/pts/0"* ]]
    [[ "$output" == *"tty-ok"* ]]
}

# podman exec -it: the exec'd process gets a pty
pm_t_exec_tty() {
    run --separate-stderr pm_run -d --name cvt-x "$IMG" sleep 1000
    show
    [ "$status" -eq 0 ]
    pm_on_pty exec -it cvt-x sh -c 'tty && echo exec-tty-ok'
    [[ "$output" == *"/dev/pts/"* ]]
    [[ "$output" == *"exec-tty-ok"* ]]
}

# podman run --user: uid, gid and name lookup
pm_t_user() {
    run --separate-stderr pm_run --rm --user 1000:1000 "$IMG" sh -c 'echo $(id -u) $(id -g)'
    show
    [ "$status" -eq 0 ]
    [ "$output" = "1000 1000" ]

    run --separate-stderr pm_run --rm --user nobody "$IMG" id -u
    show
    [ "$status" -eq 0 ]
    [ "$output" = 65534 ]
}

# podman run --cap-drop: capabilities are really dropped
pm_t_cap_drop() {
    run --separate-stderr pm_run --rm --cap-drop all "$IMG" grep CapEff /proc/self/status
    show
    [ "$status" -eq 0 ]
    [[ "$output" == *"0000000000000000" ]]

    # Default set includes CAP_CHOWN; dropping it makes chown fail.
    run --separate-stderr pm_run --rm "$IMG" sh -c 'touch /tmp/f && chown 1000 /tmp/f && echo chowned'
    show
    [ "$output" = chowned ]
    run --separate-stderr pm_run --rm --cap-drop chown "$IMG" sh -c 'touch /tmp/f && chown 1000 /tmp/f'
    show
    [ "$status" -ne 0 ]
    [[ "$stderr" == *"Operation not permitted"* ]]
}

# podman run --read-only: root is read-only, /tmp stays writable
pm_t_read_only() {
    run --separate-stderr pm_run --rm --read-only "$IMG" touch /newfile
    show
    [ "$status" -ne 0 ]
    [[ "$stderr" == *"Read-only file system"* ]]

    run --separate-stderr pm_run --rm --read-only "$IMG" sh -c 'touch /tmp/ok && echo ok'
    show
    [ "$status" -eq 0 ]
    [ "$output" = ok ]
}

# podman run --tmpfs: tmpfs mounted with its options
pm_t_tmpfs() {
    run --separate-stderr pm_run --rm --tmpfs /scratch:size=1m,mode=0750 "$IMG" \
        sh -c 'grep " /scratch " /proc/mounts; touch /scratch/x && echo writable'
    show
    [ "$status" -eq 0 ]
    [[ "$output" == "tmpfs /scratch tmpfs "*"size=1024k"* ]]
    [[ "$output" == *"mode=750"* ]]
    [[ "$output" == *writable ]]
}

# podman run -v: read-only and read-write bind mounts
pm_t_volumes() {
    mkdir -p "$PM_DIR/vol"
    pm_own "$PM_DIR/vol"
    echo from-host >"$PM_DIR/vol/file"

    run --separate-stderr pm_run --rm -v "$PM_DIR/vol:/data:ro" "$IMG" cat /data/file
    show
    [ "$status" -eq 0 ]
    [ "$output" = from-host ]

    run --separate-stderr pm_run --rm -v "$PM_DIR/vol:/data:ro" "$IMG" touch /data/new
    show
    [ "$status" -ne 0 ]
    [[ "$stderr" == *"Read-only file system"* ]]
    [ ! -e "$PM_DIR/vol/new" ]

    run --separate-stderr pm_run --rm -v "$PM_DIR/vol:/data" "$IMG" sh -c 'echo from-container >/data/new'
    show
    [ "$status" -eq 0 ]
    [ "$(cat "$PM_DIR/vol/new")" = from-container ]
}

# podman run: default seccomp profile is applied
pm_t_seccomp_default() {
    run --separate-stderr pm_run --rm "$IMG" grep -E '^Seccomp:' /proc/self/status
    show
    [ "$status" -eq 0 ]
    [[ "$output" == *"2" ]]
}

# podman run: under the default seccomp profile unshare, keyctl and the rest answer as under runc
pm_t_seccomp_as_runc() {
    [ -x /usr/sbin/runc ] || skip "runc not installed (apt-get install runc)"
    local probe="$PM_DIR/probe"
    [ -x "$probe" ] || gcc -static -O1 -o "$probe" "$BATS_TEST_DIRNAME/data/seccomp/probe.c" ||
        skip "cannot build the static seccomp probe (gcc, libc6-dev)"
    # podman 4.3's profile allows unshare and keyctl to root; personality(1)
    # and nr1000 are refused by it with ENOSYS, which shows the filter is on
    local -a args=(--rm -v "$probe:/probe:ro" "$IMG" /probe unshare-user unshare keyctl
        personality1 nr1000 kexec_load getppid)
    run --separate-stderr pm_run "${args[@]}"
    show
    [ "$status" -eq 0 ]
    local ours="$output"
    [[ "$ours" == *"personality1 38"* ]]
    [[ "$ours" == *"nr1000 38"* ]]
    [[ "$ours" == *"getppid 0"* ]]
    RUNTIME_UNDER_TEST=/usr/sbin/runc run --separate-stderr pm_run "${args[@]}"
    show
    [ "$status" -eq 0 ]
    [ "$output" = "$ours" ]
}

# podman run --cpus: CFS quota and period set on the container cgroup
pm_t_cpus() {
    pm_requires_cgroup
    run --separate-stderr pm_run --rm --cpus 0.5 "$IMG" \
        cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us
    show
    [ "$status" -eq 0 ]
    [ "$output" = "50000
100000" ]
}

# podman run --pid/--ipc container:NAME joins another container's namespaces
pm_t_join_namespaces() {
    run --separate-stderr pm_run -d --name cvt-ns "$IMG" sleep 1000
    show
    [ "$status" -eq 0 ]
    run --separate-stderr pm_run --rm --pid container:cvt-ns --ipc container:cvt-ns "$IMG" \
        sh -c 'cat /proc/1/comm; readlink /proc/self/ns/ipc'
    show
    [ "$status" -eq 0 ]
    local pid
    pid=$(pm inspect -f '{{.State.Pid}}' cvt-ns)
    [ "$output" = "sleep
$(readlink "/proc/$pid/ns/ipc")" ]
}

# podman run --network slirp4netns: the runtime joins podman's network namespace
pm_t_slirp4netns() {
    command -v slirp4netns >/dev/null || skip "slirp4netns not installed"
    local -a f
    mapfile -t f < <(PM_RUN_FLAGS | sed 's/^none$/slirp4netns/')
    run --separate-stderr pm run "${f[@]}" --rm "$IMG" ip -o -4 addr show
    show
    [ "$status" -eq 0 ]
    [[ "$output" == *"tap0"*"inet 10.0.2."* ]]
}

# cgroup limits: these read the container's view of its own v1 cgroup files.

# podman run --memory: memory limit set on the container cgroup
pm_t_memory() {
    pm_requires_cgroup
    run --separate-stderr pm_run --rm --memory 64m "$IMG" cat /sys/fs/cgroup/memory/memory.limit_in_bytes
    show
    [ "$status" -eq 0 ]
    [ "$output" = 67108864 ]
}

# podman run --pids-limit: pids limit set on the container cgroup
pm_t_pids_limit() {
    pm_requires_cgroup
    run --separate-stderr pm_run --rm --pids-limit 42 "$IMG" cat /sys/fs/cgroup/pids/pids.max
    show
    [ "$status" -eq 0 ]
    [ "$output" = 42 ]
}

# podman pause and unpause
pm_t_pause() {
    pm_requires_cgroup
    run --separate-stderr pm_run -d --name cvt-p "$IMG" sleep 1000
    show
    [ "$status" -eq 0 ]
    run --separate-stderr pm pause cvt-p
    show
    [ "$status" -eq 0 ]
    run pm inspect -f '{{.State.Status}}' cvt-p
    show
    [ "$output" = paused ]
    run --separate-stderr pm unpause cvt-p
    show
    [ "$status" -eq 0 ]
    run pm inspect -f '{{.State.Status}}' cvt-p
    show
    [ "$output" = running ]
    run --separate-stderr pm exec cvt-p echo alive
    show
    [ "$output" = alive ]
}

# podman stats --no-stream reports memory use
pm_t_stats() {
    pm_requires_cgroup
    run --separate-stderr pm_run -d --name cvt-s "$IMG" sleep 1000
    show
    [ "$status" -eq 0 ]
    run --separate-stderr pm stats --no-stream --format '{{.Name}} {{.MemUsage}} {{.PIDs}}' cvt-s
    show
    [ "$status" -eq 0 ]
    [[ "$output" == "cvt-s "*B*" / "*" 1" ]]
}

# podman update --memory changes the running container's limit
pm_t_update() {
    pm_requires_cgroup
    run --separate-stderr pm_run -d --name cvt-u --memory 64m "$IMG" sleep 1000
    show
    [ "$status" -eq 0 ]
    run --separate-stderr pm update --memory 128m cvt-u
    show
    [ "$status" -eq 0 ]
    run --separate-stderr pm exec cvt-u cat /sys/fs/cgroup/memory/memory.limit_in_bytes
    show
    [ "$output" = 134217728 ]
}
