#!/usr/bin/env bats
# podman driving the runtime under test as an unprivileged user (podman's
# rootless mode: conmon and the runtime run as root of the user's own user
# namespace, made with newuidmap/newgidmap from the user's /etc/subuid
# range). The same scenarios as podman.bats (podman-scenarios.bash); those
# that need a cgroup are skipped there, none being delegated to the user.

bats_require_minimum_version 1.5.0
load podman-scenarios

setup_file() {
    tu_make_user 500000 || return 0
    pm_setup_file
}

setup() {
    [ -z "${TU_SKIP:-}" ] || skip "$TU_SKIP"
    eh_skip_if_needed
}

teardown() {
    pm_teardown
}

teardown_file() {
    pm_teardown_file
    tu_remove_user
}

@test "podman run --rm: stdout and exit code" {
    pm_t_run_rm
}

@test "podman run --rm: environment, working directory and hostname" {
    pm_t_env_cwd_hostname
}

@test "podman run -d, exec, stop (SIGTERM reaches pid 1), rm" {
    pm_t_detach_exec_stop_rm
}

@test "podman run -i: stdin reaches the container" {
    pm_t_stdin
}

@test "podman kill --signal: the signal reaches pid 1" {
    pm_t_kill_signal
}

@test "podman run --security-opt no-new-privileges" {
    pm_t_no_new_privileges
}

@test "podman run -it: the process gets a pty" {
    pm_t_run_tty
}

@test "podman exec -it: the exec'd process gets a pty" {
    pm_t_exec_tty
}

@test "podman run --user: uid, gid and name lookup" {
    pm_t_user
}

@test "podman run --cap-drop: capabilities are really dropped" {
    pm_t_cap_drop
}

@test "podman run --read-only: root is read-only, /tmp stays writable" {
    pm_t_read_only
}

@test "podman run --tmpfs: tmpfs mounted with its options" {
    pm_t_tmpfs
}

@test "podman run -v: read-only and read-write bind mounts" {
    pm_t_volumes
}

@test "podman run: default seccomp profile is applied" {
    pm_t_seccomp_default
}

@test "podman run: under the default seccomp profile unshare, keyctl and the rest answer as under runc" {
    pm_t_seccomp_as_runc
}

@test "podman run --cpus: CFS quota and period set on the container cgroup" {
    pm_t_cpus
}

@test "podman run --pid/--ipc container:NAME joins another container's namespaces" {
    pm_t_join_namespaces
}

@test "podman run --network slirp4netns: the runtime joins podman's network namespace" {
    pm_t_slirp4netns
}

@test "podman run --memory: memory limit set on the container cgroup" {
    pm_t_memory
}

@test "podman run --pids-limit: pids limit set on the container cgroup" {
    pm_t_pids_limit
}

@test "podman pause and unpause" {
    pm_t_pause
}

@test "podman stats --no-stream reports memory use" {
    pm_t_stats
}

@test "podman update --memory changes the running container's limit" {
    pm_t_update
}
