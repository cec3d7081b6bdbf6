#!/bin/bash
# bench.sh: start-up time, CPU time and peak RSS of cvisor against crun, runc,
# podman's default runtime and bubblewrap, one mode per path users take.
#
# Modes (see tests/bench/README.md for the figures measured with each)
#   run         `RUNTIME run` of a bundle whose process is /bin/true, with the
#               plain `cvisor spec` config and with an engine-style config
#               (below); the floor is `unshare -mpuin --fork /bin/true`.
#   concurrent  200 containers (--containers), 16 at a time (--parallel), by
#               `xargs -P`: the wall time of the whole batch per runtime.
#   exec        `RUNTIME exec --process FILE ID` of /bin/true into a running
#               container (the way engines call exec); the floor is
#               `nsenter -a` into cvisor's container.
#   podman      `podman run --rm IMAGE /bin/true` with --runtime cvisor, crun
#               (and runc when asked), end to end.
#   do          `cvisor do /bin/true`, without and with limits (--do-flags),
#               against bubblewrap with the same isolation and seccomp filter
#               but no limits, and lean-do.c, that isolation in straight
#               system calls (what cvisor do's generality costs), also with
#               the cgroups of the limits (lean-limits); the floor
#               is `unshare -Urmpuin --fork /bin/true` (the namespaces alone,
#               no mount, no filter).
#   library     libcvisor's cvisor_run against `cvisor do` and bubblewrap
#               (runs sandbox-bench.sh; needs a build directory).
#   --phases    (run and do modes) instead of timing, traces each runtime
#               with strace and prints when, after its start, it made its
#               cgroup, its namespaces, pivot_root, seccomp, exec'd the
#               process, the process exited, and it ended.
#
# Method (the same for every runtime, so the figures compare like for like)
#   - ONE private mount namespace for the whole bench: the script re-executes
#     itself under `unshare -m --propagation private` and every runtime,
#     timer and engine runs inside it. On a hybrid cgroup host (v1
#     controllers, cgroup2 at /sys/fs/cgroup/unified) it unmounts
#     /sys/fs/cgroup/unified there once, because crun 1.8.1 refuses the
#     hybrid layout; every runtime then sees the same v1-only layout. (Not in
#     `do` and `library`, where no crun runs: cvisor do sees the host's
#     layout there, as users have it.)
#   - The same config.json for every runtime. Two configs:
#       plain   `cvisor spec` (`runc spec` when cvisor has no spec), process
#               /bin/true, no terminal;
#       engine  what podman 4.3.1 sends on this host (captured from `podman
#               create`): its mounts (/sys/fs/cgroup cgroup mount, /dev/shm,
#               /dev/mqueue, /etc/hosts, /etc/hostname, /run/.containerenv),
#               masked and read-only paths, podman's default capabilities,
#               rlimits, sysctl, pids limit and its default seccomp profile
#               (tests/integration/data/seccomp/podman-default.json).
#     Both get ociVersion 1.0.2 (crun 1.8.1 refuses newer) and a cgroupsPath
#     under the caller's own memory cgroup, one per runtime (per container in
#     `concurrent`), so every runtime does the same cgroup work.
#   - Rounds are interleaved: cvisor, crun, runc, floor, cvisor, crun, ... so
#     drift of the machine hits every runtime alike. Untimed warm-up runs
#     per runtime come first (two; one batch in concurrent, one in podman).
#   - The timer (timer.c, compiled into the work directory) sits directly in
#     front of the runtime: CLOCK_MONOTONIC just before fork and just after
#     wait4; it also records user and system CPU time (rusage of the runtime
#     and every descendant waited for), reported as means (see mean()).
#   - Peak RSS: GNU time (`/usr/bin/time -f %M`, kB) over --rss-runs extra
#     interleaved runs; the median is printed.
#   - Statistics: median, p10 and p90 (nearest rank) in ms; ratios of every
#     other runtime's median to cvisor's: above 1, cvisor is faster.
#   - Before measuring, each runtime runs a probe that must print a known
#     line; a runtime that is not installed or whose probe fails is skipped
#     with the reason shown.
#
# Hygiene: unique container ids (cvbench-PID-...), a private --root per
#   runtime and private podman storage in the work directory; an EXIT trap
#   deletes leftover containers, the cgroups named after our ids (and crun's
#   litter under the hidden cgroup2 mount point) and the work directory.
#
# This is a measurement tool, not a test: it asserts nothing about speed.
#
# Exit status: 0 done, 1 error, 2 usage, 77 nothing to measure in this mode
#   here (e.g. `cvisor do` unavailable, podman not installed).
set -u -o pipefail

usage() {
    cat <<'EOF'
usage: bench.sh [OPTIONS]
  --mode MODE            run (default), concurrent, exec, podman, do, library
  -n, --rounds N         interleaved rounds (default: 40; concurrent 3;
                         podman 10)
  --runtimes LIST        comma-separated; default per mode:
                           run, exec:   cvisor,crun,runc,floor
                           concurrent:  cvisor,crun,runc
                           podman:      cvisor,crun (runc also accepted)
                           do:          cvisor-do,cvisor-do-limits,bwrap,lean,
                                        lean-limits,floor
                                        (lean: lean-do.c, the same isolation
                                        in straight system calls, static;
                                        lean-limits: with the cgroups of
                                        --do-flags' --memory and --processes)
  --config plain|engine|both
                         which config.json (default: both in run, engine
                         in concurrent and exec)
  --containers N         containers per batch in concurrent (default 200)
  --parallel N           containers at a time in concurrent (default 16)
  --do-flags FLAGS       cvisor do's limits for cvisor-do-limits (words;
                         default "--memory 512MB --processes 512")
  --phases               run and do modes: trace where the time goes
                         (strace landmarks) instead of timing
  --bundle-args ARGS     the process: a JSON array ('["/bin/echo","hi"]') or
                         words ('/bin/echo hi'); default /bin/true
  --rss-runs N           runs per runtime for peak RSS (default 5,
                         concurrent 1; 0 skips)
  --seccomp-cache warm|off
                         cvisor caches compiled seccomp filters (in the work
                         directory here, so each bench starts cold and the
                         warm-up fills it): warm (default) or off, which
                         compiles the filter on every run as crun and runc do
  --warmup N             untimed runs (batches) per runtime first (default 2;
                         concurrent and podman 1)
  --cvisor PATH          cvisor binary (default $CVISOR, ./src/cvisor, or
                         cvisor on PATH)
  --busybox PATH         static busybox for the rootfs (default /bin/busybox)
  --keep                 keep the work directory (samples, logs, traces)
  -h, --help             this text
EOF
}

die() { echo "bench: $*" >&2; exit 1; }

MODE=run
ROUNDS=
RUNTIMES=
CONFIG=
CONTAINERS=200
PARALLEL=16
DO_FLAGS="--memory 512MB --processes 512"
PHASES=0
ARGS_SPEC=/bin/true
RSS_RUNS=
CVISOR_BIN=${CVISOR:-}
BUSYBOX=/bin/busybox
KEEP=0
WARMUP=
SECCOMP_CACHE=warm

# An option's value must be present: one clear line instead of bash's own.
need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "bench: option \`$1\` needs a value" >&2; exit 2; }; }

ORIG_ARGS=("$@")
while [ $# -gt 0 ]; do
    case $1 in -n|--rounds|--runtimes|--bundle-args|--mode|--rss-runs|--cvisor|--busybox|--do-flags|--config|--containers|--parallel|--warmup|--seccomp-cache) need "$@" ;; esac
    case $1 in
        --mode) MODE=$2; shift 2 ;;
        -n|--rounds) ROUNDS=$2; shift 2 ;;
        --runtimes) RUNTIMES=$2; shift 2 ;;
        --config) CONFIG=$2; shift 2 ;;
        --containers) CONTAINERS=$2; shift 2 ;;
        --parallel) PARALLEL=$2; shift 2 ;;
        --do-flags) DO_FLAGS=$2; shift 2 ;;
        --phases) PHASES=1; shift ;;
        --bundle-args) ARGS_SPEC=$2; shift 2 ;;
        --rss-runs) RSS_RUNS=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        --seccomp-cache) SECCOMP_CACHE=$2; shift 2 ;;
        --cvisor) CVISOR_BIN=$2; shift 2 ;;
        --busybox) BUSYBOX=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "bench: unknown option \`$1\`" >&2; usage >&2; exit 2 ;;
    esac
done

posint() {   # posint NAME VALUE [zero-ok]
    local kind=positive
    [ -z "${3:-}" ] || kind=non-negative
    case $2 in
        ''|*[!0-9]*) ;;
        *) if [ "$2" -gt 0 ] || [ -n "${3:-}" ]; then return 0; fi ;;
    esac
    echo "bench: $1 must be a $kind integer, got \`$2\`" >&2
    exit 2
}
case $MODE in
    run|exec|do) : "${ROUNDS:=40}" "${RSS_RUNS:=5}" "${WARMUP:=2}" ;;
    concurrent) : "${ROUNDS:=3}" "${RSS_RUNS:=1}" "${WARMUP:=1}" ;;
    podman) : "${ROUNDS:=10}" "${RSS_RUNS:=0}" "${WARMUP:=1}" ;;
    library) : "${ROUNDS:=40}" "${RSS_RUNS:=0}" "${WARMUP:=0}" ;;
    *) echo "bench: --mode must be run, concurrent, exec, podman, do or library, got \`$MODE\`" >&2; exit 2 ;;
esac
posint --rounds "$ROUNDS"
posint --rss-runs "$RSS_RUNS" 0
posint --warmup "$WARMUP" 0
posint --containers "$CONTAINERS"
posint --parallel "$PARALLEL"
case $MODE in
    run|exec) : "${RUNTIMES:=cvisor,crun,runc,floor}" ;;
    concurrent) : "${RUNTIMES:=cvisor,crun,runc}" ;;
    podman) : "${RUNTIMES:=cvisor,crun}" ;;
    do) : "${RUNTIMES:=cvisor-do,cvisor-do-limits,bwrap,lean,lean-limits,floor}" ;;
esac
case $MODE in run) : "${CONFIG:=both}" ;; *) : "${CONFIG:=engine}" ;; esac
case $CONFIG in
    plain|engine) CONFIGS=("$CONFIG") ;;
    both) CONFIGS=(plain engine) ;;
    *) echo "bench: --config must be plain, engine or both, got \`$CONFIG\`" >&2; exit 2 ;;
esac
case $SECCOMP_CACHE in warm|off) ;; *) echo "bench: --seccomp-cache must be warm or off, got \`$SECCOMP_CACHE\`" >&2; exit 2 ;; esac
[ "$PHASES" = 0 ] || case $MODE in run|do) ;; *) echo "bench: --phases is for --mode run or do" >&2; exit 2 ;; esac
read -r -a DO_ARGV <<<"$DO_FLAGS"
# lean-limits: the limits of --do-flags that lean-do makes (the cgroups of
# --memory and --processes); LEAN_SKIP names one it does not make
LEAN_ARGV=() LEAN_SKIP=
for ((i = 0; i < ${#DO_ARGV[@]}; i++)); do
    case ${DO_ARGV[i]} in
        --memory=*|--processes=*) LEAN_ARGV+=("${DO_ARGV[i]%%=*}" "${DO_ARGV[i]#*=}") ;;
        --memory|--processes) LEAN_ARGV+=("${DO_ARGV[i]}" "${DO_ARGV[i + 1]}"); i=$((i + 1)) ;;
        *) LEAN_SKIP=${DO_ARGV[i]} ;;
    esac
done

[ "$(id -u)" = 0 ] || die "must run as root (runtimes need namespaces and cgroups)"
for tool in jq cc unshare xargs; do
    command -v "$tool" >/dev/null || die "\`$tool\` not found (apt-get install jq gcc util-linux findutils)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) not found (apt-get install time)"
[ "$PHASES" = 0 ] || command -v strace >/dev/null || die "--phases needs strace (apt-get install strace)"

if [ -z "$CVISOR_BIN" ]; then
    if [ -x ./src/cvisor ]; then CVISOR_BIN=$PWD/src/cvisor
    else CVISOR_BIN=$(command -v cvisor || true)
    fi
fi
case $CVISOR_BIN in ''|/*) ;; *) CVISOR_BIN=$PWD/$CVISOR_BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)

# ---------------------------------------------------------------- namespace
# Everything below runs in one private mount namespace (see Method).
if [ -z "${CVBENCH_IN_NS:-}" ]; then
    CVBENCH_IN_NS=1 exec unshare -m --propagation private -- "$BASH" "$0" "${ORIG_ARGS[@]}"
fi
# Hidden only where crun runs: `do` and `library` keep the host's layout,
# which is what `cvisor do` sees when users run it.
HID_UNIFIED=0
if [ "$MODE" != do ] && [ "$MODE" != library ] &&
   [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = tmpfs ] &&
   [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
    umount /sys/fs/cgroup/unified || die "cannot unmount /sys/fs/cgroup/unified in the bench's mount namespace"
    HID_UNIFIED=1
fi

# ---------------------------------------------------------------- library
if [ "$MODE" = library ]; then
    # sandbox-bench.sh runs from the build directory that holds this cvisor.
    build=${CVISOR_BIN%/src/cvisor}
    if [ -z "$CVISOR_BIN" ] || [ "$build" = "$CVISOR_BIN" ] || [ ! -e "$build/.libs/libcvisor.so" ]; then
        echo "bench: mode library skipped: needs a build directory's src/cvisor and .libs/libcvisor.so (got \`${CVISOR_BIN:-none}\`)" >&2
        exit 77
    fi
    command -v bwrap >/dev/null || { echo "bench: mode library skipped: bwrap not found (apt-get install bubblewrap)" >&2; exit 77; }
    echo "bench: mode library, $ROUNDS rounds: cvisor_run(sb, \"true\") vs \`cvisor do\` vs bwrap (sandbox-bench.sh)"
    cd "$build" && exec "$HERE/sandbox-bench.sh" "$ROUNDS"
fi

# Process args as a JSON array.
if [ "${ARGS_SPEC#\[}" != "$ARGS_SPEC" ]; then
    ARGS_JSON=$(jq -ce 'if type == "array" and length > 0 and all(type == "string") then . else error("not a non-empty array of strings") end' <<<"$ARGS_SPEC" 2>&1) \
        || { echo "bench: --bundle-args: $ARGS_JSON" >&2; exit 2; }
else
    read -r -a words <<<"$ARGS_SPEC"
    [ ${#words[@]} -gt 0 ] || { echo "bench: --bundle-args is empty" >&2; exit 2; }
    # Through jq -R, one word a line: `jq --args` would take words like -c as its own options.
    ARGS_JSON=$(printf '%s\n' "${words[@]}" | jq -cRs 'split("\n") | .[:-1]')
fi
mapfile -t ARGV < <(jq -r '.[]' <<<"$ARGS_JSON")
PROBE_JSON='["/bin/sh","-c","echo cvbench-probe-ok"]'
PROBE_ARGV=(/bin/sh -c 'echo cvbench-probe-ok')

W=$(mktemp -d /tmp/cvbench.XXXXXX) || die "mktemp failed"
RUN=$W/run # a tmpfs, below
IDPFX=cvbench-$$
OWN_MEMCG=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
[ -n "$OWN_MEMCG" ] || OWN_MEMCG=$(sed -n 's/^0:://p' /proc/self/cgroup)
OWN_MEMCG=${OWN_MEMCG%/}
PODMAN_G=()
FILTER_PID=

cleanup() {
    local rt id
    # do_seccomp_filter's sandbox, should the bench end while it runs
    if [ -n "$FILTER_PID" ]; then kill "$FILTER_PID" 2>/dev/null; wait "$FILTER_PID" 2>/dev/null; fi
    for rt in cvisor crun runc; do
        [ -d "$RUN/root-$rt" ] || continue
        for id in $(ls "$RUN/root-$rt" 2>/dev/null); do
            case $id in "$IDPFX"-*) ;; *) continue ;; esac
            case $rt in cvisor) "$CVISOR_BIN" --root "$RUN/root-$rt" delete -f "$id" ;;
                        *) "$rt" --root "$RUN/root-$rt" delete -f "$id" ;; esac >/dev/null 2>&1
        done
    done
    if [ ${#PODMAN_G[@]} -gt 0 ]; then
        podman "${PODMAN_G[@]}" rm -af -t 0 >/dev/null 2>&1
        podman "${PODMAN_G[@]}" system reset -f >/dev/null 2>&1
    fi
    # Anything mounted below the work directory (podman's storage, our shm).
    grep -F " $W/" /proc/self/mountinfo | awk '{print $5}' | sort -r |
        while read -r m; do umount -l "$m"; done
    # Cgroups named after our ids (podman's conmon makes one below), deepest
    # first; under the hidden cgroup2 mount point crun's litter: plain
    # directories and files in the tmpfs.
    find /sys/fs/cgroup -depth -mindepth 2 -maxdepth 12 -type d -path "*/$IDPFX-*" \
        -exec rmdir {} + 2>/dev/null
    if [ "$HID_UNIFIED" = 1 ] && [ -d "/sys/fs/cgroup/unified$OWN_MEMCG" ]; then
        find "/sys/fs/cgroup/unified$OWN_MEMCG" -mindepth 1 -maxdepth 1 -name "$IDPFX-*" \
            -exec rm -rf {} + 2>/dev/null
        # empty parents, never the mount point itself: the tmpfs is shared
        # with the host, and an rmdir of a mount point in another namespace
        # detaches the mount there (Linux 3.18 and later)
        local d=/sys/fs/cgroup/unified$OWN_MEMCG
        while [ "${d#/sys/fs/cgroup/unified/}" != "$d" ] && rmdir "$d" 2>/dev/null; do d=${d%/*}; done
    fi
    if [ "$KEEP" = 1 ]; then echo "bench: work directory kept: $W" >&2
    else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The runtimes' state (--root, podman's --runroot) on a tmpfs, as /run is on
# the hosts engines run on: on a disk, every state file costs a runtime
# journal writes that no such host pays (0.8 ms of a `run` for cvisor here).
mkdir "$RUN" && mount -t tmpfs -o mode=0700 cvbench-run "$RUN" || die "cannot mount a tmpfs on $RUN"

# cvisor's cache of compiled seccomp filters: private to this bench (it
# starts empty; the probe and warm-up fill it), or off.
if [ "$SECCOMP_CACHE" = warm ]; then export CVISOR_SECCOMP_CACHE=$W/seccomp-cache
else export CVISOR_SECCOMP_CACHE=; fi

TIMER=$W/bench-timer
cc -O2 -Wall -Wextra -Werror -o "$TIMER" "$HERE/timer.c" || die "cannot compile $HERE/timer.c"

# ---------------------------------------------------------------- configs
# The rootfs, shared read-only by every bundle: busybox and its applets, and
# the files the engine config bind-mounts over.
make_rootfs() {
    local r=$W/rootfs a
    [ -x "$BUSYBOX" ] || die "busybox not found at $BUSYBOX (apt-get install busybox-static)"
    mkdir -p "$r"/{bin,proc,dev,sys,tmp,etc,run} || die "cannot make $r"
    cp "$BUSYBOX" "$r/bin/busybox" || die "cannot copy $BUSYBOX"
    # the applet links in one process: one `ln` each takes seconds under load
    "$BUSYBOX" --list | R=$r/bin perl -ne 'chomp; next if $_ eq "busybox" || $_ eq "";
        symlink("busybox", "$ENV{R}/$_") or die "symlink $ENV{R}/$_: $!\n"' || die "cannot link busybox's applets"
    : >"$r/etc/hosts"; : >"$r/etc/hostname"; : >"$r/run/.containerenv"
    printf 'root:x:0:0:root:/root:/bin/sh\n' >"$r/etc/passwd"
}

# The two templates, with "@ARGS@" and "@CG@" left for bundle(): filled by
# string substitution so that `concurrent` writes hundreds without a jq each.
make_templates() {
    local d=$W/spec
    mkdir -p "$d" || return 1
    SPEC_FROM=cvisor
    if ! { [ -x "$CVISOR_BIN" ] && (cd "$d" && "$CVISOR_BIN" spec) >/dev/null 2>&1 \
            && jq -e '.process and .root' "$d/config.json" >/dev/null 2>&1; }; then
        rm -f "$d/config.json"
        SPEC_FROM=runc
        (cd "$d" && runc spec) >/dev/null 2>&1 || die "neither \`cvisor spec\` nor \`runc spec\` produced a config.json"
    fi
    jq --arg root "$W/rootfs" \
        '.process.args = "@ARGS@" | .process.terminal = false | .ociVersion = "1.0.2"
         | .root.path = $root | .linux.cgroupsPath = "@CG@"' \
        "$d/config.json" >"$W/tpl-plain.json" || return 1

    # podman 4.3.1's config on this host, its per-container files here.
    local e=$W/engine nofile nproc
    mkdir -p "$e/shm" || return 1
    mount -t tmpfs -o nosuid,nodev,noexec,size=65536k shm "$e/shm" || return 1
    printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$e/hosts"
    echo cvbench >"$e/hostname"
    printf 'engine="podman-4.3.1"\n' >"$e/containerenv"
    # podman asks for nofile 1048576 and nproc 4194304; this host's hard
    # limits are lower (no CAP_SYS_RESOURCE): the lower of the two.
    nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] || [ "$nofile" -gt 1048576 ] && nofile=1048576
    nproc=$(ulimit -Hu); [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ] && nproc=32768
    jq -n --arg root "$W/rootfs" --arg e "$e" --argjson nofile "$nofile" --argjson nproc "$nproc" \
        --slurpfile sec "$HERE/../integration/data/seccomp/podman-default.json" '
        ["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FOWNER","CAP_FSETID","CAP_KILL","CAP_NET_BIND_SERVICE",
         "CAP_SETFCAP","CAP_SETGID","CAP_SETPCAP","CAP_SETUID","CAP_SYS_CHROOT"] as $caps
        | def bind($src; $dst; $extra): {destination: $dst, type: "bind", source: $src,
                                         options: (["bind","rprivate"] + $extra)};
        {
          ociVersion: "1.0.2",
          process: {
            user: {uid: 0, gid: 0, umask: 18}, args: "@ARGS@", terminal: false,
            env: ["TERM=xterm", "container=podman",
                  "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME=cvbench"],
            cwd: "/",
            capabilities: {bounding: $caps, effective: $caps, permitted: $caps},
            rlimits: [{type: "RLIMIT_NOFILE", hard: $nofile, soft: $nofile},
                      {type: "RLIMIT_NPROC", hard: $nproc, soft: $nproc}]
          },
          root: {path: $root},
          hostname: "cvbench",
          mounts: [
            {destination: "/proc", type: "proc", source: "proc", options: ["nosuid","noexec","nodev"]},
            {destination: "/dev", type: "tmpfs", source: "tmpfs",
             options: ["nosuid","noexec","strictatime","mode=755","size=65536k"]},
            {destination: "/sys", type: "sysfs", source: "sysfs", options: ["nosuid","noexec","nodev","ro"]},
            {destination: "/dev/pts", type: "devpts", source: "devpts",
             options: ["nosuid","noexec","newinstance","ptmxmode=0666","mode=0620","gid=5"]},
            {destination: "/dev/mqueue", type: "mqueue", source: "mqueue", options: ["nosuid","noexec","nodev"]},
            bind("\($e)/hosts"; "/etc/hosts"; []),
            bind("\($e)/shm"; "/dev/shm"; ["nosuid","noexec","nodev"]),
            bind("\($e)/containerenv"; "/run/.containerenv"; []),
            bind("\($e)/hostname"; "/etc/hostname"; []),
            {destination: "/sys/fs/cgroup", type: "cgroup", source: "cgroup",
             options: ["rprivate","nosuid","noexec","nodev","relatime","ro"]}
          ],
          linux: {
            sysctl: {"net.ipv4.ping_group_range": "0 0"},
            resources: {devices: [{allow: false, access: "rwm"}], pids: {limit: 2048}},
            cgroupsPath: "@CG@",
            namespaces: [{type: "pid"}, {type: "network"}, {type: "ipc"}, {type: "uts"}, {type: "mount"}],
            seccomp: $sec[0],
            maskedPaths: ["/proc/acpi","/proc/kcore","/proc/keys","/proc/latency_stats","/proc/timer_list",
                          "/proc/timer_stats","/proc/sched_debug","/proc/scsi","/sys/firmware",
                          "/sys/fs/selinux","/sys/dev/block"],
            readonlyPaths: ["/proc/asound","/proc/bus","/proc/fs","/proc/irq","/proc/sys","/proc/sysrq-trigger"]
          }
        }' >"$W/tpl-engine.json" || return 1
    TPL_plain=$(<"$W/tpl-plain.json")
    TPL_engine=$(<"$W/tpl-engine.json")
}

# bundle CONFIG DIR CGROUP-LEAF ARGS-JSON: DIR/config.json from the template,
# cgroupsPath /<our memory cgroup>/CGROUP-LEAF.
bundle() {
    local var=TPL_$1 t cg="\"$OWN_MEMCG/$3\""
    t=${!var}
    # quoted replacements: bash 5.2 would expand & in them
    t=${t/'"@ARGS@"'/"$4"}
    t=${t/'"@CG@"'/"$cg"}
    mkdir -p "$2" && printf '%s\n' "$t" >"$2/config.json"
}

# ---------------------------------------------------------------- runtimes
rt_binary_ok() {
    case $1 in
        cvisor|cvisor-do|cvisor-do-limits) [ -n "$CVISOR_BIN" ] && [ -x "$CVISOR_BIN" ] ;;
        crun|runc|bwrap|podman) command -v "$1" >/dev/null ;;
        lean|lean-limits) [ "$MODE" = do ] ;;
        floor) command -v unshare >/dev/null && { [ "$MODE" != exec ] || command -v nsenter >/dev/null; } ;;
        *) return 1 ;;
    esac
}
rt_bin() { case $1 in cvisor) echo "$CVISOR_BIN" ;; *) command -v "$1" ;; esac; }

# KEYS: what is measured ("CONFIG/RUNTIME", or a runtime's name alone);
# K_RT, K_CFG: its runtime and config; K_DIR: its bundle (or batch) dir.
KEYS=()
declare -A K_RT K_CFG K_DIR K_PID
ROUND=0

# cmd KEY ID [probe]: sets CMD, the command that does one measured thing.
cmd() {
    local k=$1 id=$2 probe=${3:-} rt=${K_RT[$1]} bin
    local -a argv=("${ARGV[@]}")
    [ -z "$probe" ] || argv=("${PROBE_ARGV[@]}")
    FD9=/dev/null
    case $MODE/$rt in
        */floor)
            case $MODE in
                exec) CMD=(nsenter -t "${K_PID[$k]}" -a "${argv[@]}") ;;
                # do's namespaces, the user namespace with them
                do) CMD=(unshare -Urmpuin --fork "${argv[@]}") ;;
                *) CMD=(unshare -mpuin --fork "${argv[@]}") ;;
            esac ;;
        run/*)
            bin=$(rt_bin "$rt")
            CMD=("$bin" --root "$RUN/root-$rt" run --bundle "${K_DIR[$k]}${probe:+-probe}" "$id") ;;
        concurrent/*)
            bin=$(rt_bin "$rt")
            if [ -n "$probe" ]; then
                CMD=("$bin" --root "$RUN/root-$rt" run --bundle "${K_DIR[$k]}-probe" "$id")
            else
                CMD=(xargs -P "$PARALLEL" -I@ -a "$W/batch-index" "$bin" --root "$RUN/root-$rt" run
                     --bundle "${K_DIR[$k]}/@" "$id-@")
            fi ;;
        exec/*)
            bin=$(rt_bin "$rt")
            CMD=("$bin" --root "$RUN/root-$rt" exec --process "$W/process-${K_CFG[$k]}${probe:+-probe}.json"
                 "$IDPFX-${K_CFG[$k]}-$rt-sleeper") ;;
        podman/*)
            bin=$(rt_bin "$rt")
            CMD=(podman "${PODMAN_G[@]}" --runtime "$bin" --runtime-flag "root=$RUN/root-$rt"
                 run --rm --pull=never --network none --cgroup-parent "$OWN_MEMCG/$IDPFX-podman"
                 --ulimit "nofile=$PODMAN_NOFILE:$PODMAN_NOFILE" --ulimit "nproc=$PODMAN_NPROC:$PODMAN_NPROC"
                 localhost/cvbench-bb "${argv[@]}") ;;
        do/cvisor-do) CMD=("$CVISOR_BIN" --root "$RUN/root-cvisor" do -- "${argv[@]}") ;;
        do/cvisor-do-limits) CMD=("$CVISOR_BIN" --root "$RUN/root-cvisor" do "${DO_ARGV[@]}" -- "${argv[@]}") ;;
        do/bwrap)
            # cvisor do's isolation: user, pid, net, ipc, uts and mount
            # namespaces, read-only root, private /tmp, /run, /proc, /dev, no
            # capabilities, the credential stores of root hidden, and the
            # very seccomp filter cvisor do loads (do_seccomp_filter; on fd
            # 9, see one()). Not in it: cvisor do's environment filter, its
            # private workspace and its masks of /proc and /sys, so the
            # ratio is a lower bound for cvisor.
            FD9=$W/do-seccomp.bpf
            CMD=(bwrap --unshare-user --unshare-pid --unshare-net --unshare-ipc --unshare-uts
                 --ro-bind / / --tmpfs /tmp --tmpfs /run --proc /proc --dev /dev --tmpfs /root
                 --ro-bind /dev/null /etc/shadow --ro-bind /dev/null /etc/gshadow --tmpfs /etc/ssh
                 --cap-drop ALL --seccomp 9 "${argv[@]}") ;;
        do/lean)
            FD9=$W/do-seccomp.bpf
            CMD=("$W/lean-do" "${argv[@]}") ;;
        do/lean-limits)
            FD9=$W/do-seccomp.bpf
            CMD=("$W/lean-do" "${LEAN_ARGV[@]}" "${argv[@]}") ;;
        *) die "runtime \`$rt\` has no $MODE mode" ;;
    esac
}

# one KEY SAMPLEFILE WRAPPER...: one measured thing, wrapper in front; a
# failure stops the bench with the runtime's own words.
one() {
    local k=$1 file=$2 id; shift 2
    ROUND=$((ROUND + 1))
    id=$IDPFX-${k//\//-}-$ROUND
    cmd "$k" "$id"
    # fd 9: bwrap's seccomp filter, read anew by each run; /dev/null for
    # every other command, so that all inherit the same fds
    if ! "$@" "${CMD[@]}" </dev/null >"$W/run.log" 2>&1 9<"$FD9"; then
        echo "bench: $k: \`${CMD[*]}\` failed:" >&2
        sed 's/^/    /' "$W/run.log" | tail -15 >&2
        exit 1
    fi
    [ "$MODE" != concurrent ] || litter_sweep
}

# crun writes cgroup.procs into the tmpfs under the hidden cgroup2 mount
# point: sweep it between batches, so hundreds do not pile up.
litter_sweep() {
    [ "$HID_UNIFIED" = 1 ] && [ -d "/sys/fs/cgroup/unified$OWN_MEMCG" ] || return 0
    find "/sys/fs/cgroup/unified$OWN_MEMCG" -mindepth 1 -maxdepth 1 -name "$IDPFX-*" -exec rm -rf {} +
}

probe() {
    local k=$1 out
    cmd "$k" "$IDPFX-probe-${k//\//-}" probe
    out=$("${CMD[@]}" </dev/null 2>&1 9<"$FD9")
    if [ "$out" != cvbench-probe-ok ]; then
        echo "\$ ${CMD[*]}"
        echo "${out:-(no output)}" | tail -5 | sed 's/^/    /'
        return 1
    fi
}

# ---------------------------------------------------------------- set-up
IFS=, read -r -a WANT <<<"$RUNTIMES"
case $MODE in run|concurrent|exec|podman) make_rootfs ;; esac
case $MODE in run|concurrent|exec) make_templates || die "cannot write the config templates" ;; esac

if [ "$MODE" = podman ]; then
    if ! command -v podman >/dev/null; then
        echo "bench: mode podman skipped: podman not installed (apt-get install podman)" >&2
        exit 77
    fi
    PODMAN_G=(--root "$W/podman/root" --runroot "$RUN/podman-runroot" --tmpdir "$W/podman/tmp"
              --cgroup-manager=cgroupfs --events-backend=file --storage-driver=overlay)
    PODMAN_NOFILE=$(ulimit -Hn); [ "$PODMAN_NOFILE" = unlimited ] || [ "$PODMAN_NOFILE" -gt 1048576 ] && PODMAN_NOFILE=1048576
    # conmon lowers nproc to 32768
    PODMAN_NPROC=$(ulimit -Hu); [ "$PODMAN_NPROC" = unlimited ] || [ "$PODMAN_NPROC" -gt 32768 ] && PODMAN_NPROC=32768
    mkdir -p "$W/podman" && tar -C "$W/rootfs" -c . | podman "${PODMAN_G[@]}" import -q - localhost/cvbench-bb >"$W/import.log" 2>&1 \
        || { cat "$W/import.log" >&2; die "podman import of the busybox rootfs failed"; }
fi

# cvisor do's seccomp filter as it is loaded, for bwrap --seccomp: taken
# from a sandboxed program (seccomp-dump.c, PTRACE_SECCOMP_GET_FILTER).
do_seccomp_filter() {
    local pid init='' prog='' i ok=0
    cc -O2 -Wall -Wextra -Werror -o "$W/seccomp-dump" "$HERE/seccomp-dump.c" || return 1
    [ ! -s "$W/do-seccomp.bpf" ] || return 0
    "$CVISOR_BIN" --root "$RUN/root-cvisor" do -- sleep 60 </dev/null >/dev/null 2>&1 &
    pid=$! FILTER_PID=$!
    for ((i = 0; i < 200; i++)); do
        init=$(pgrep -P "$pid" -x cvisor-init || true)
        [ -z "$init" ] || prog=$(pgrep -P "$init" -x sleep || true)
        [ -z "$prog" ] || break
        sleep 0.05
    done
    [ -n "$prog" ] && "$W/seccomp-dump" "$prog" "$W/do-seccomp.bpf" >/dev/null && ok=1
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    FILTER_PID=
    [ "$ok" = 1 ]
}

add_key() {   # add_key KEY RUNTIME CONFIG
    if [ "$MODE/$2" = do/lean-limits ] && { [ -n "$LEAN_SKIP" ] || [ ${#LEAN_ARGV[@]} -eq 0 ]; }; then
        echo "bench: $1: skipped: lean-do makes the cgroups of --memory and --processes only, --do-flags is \`$DO_FLAGS\`" >&2
        return 1
    fi
    rt_binary_ok "$2" || { echo "bench: $1: skipped: \`$2\` is not installed or not a runtime of mode $MODE" >&2; return 1; }
    K_RT[$1]=$2; K_CFG[$1]=$3; K_DIR[$1]=$W/b-${1//\//-}
    case $MODE/$2 in
        do/bwrap)
            do_seccomp_filter || { echo "bench: $1: skipped: cannot take cvisor do's seccomp filter" >&2; return 1; } ;;
        do/lean|do/lean-limits)
            do_seccomp_filter || { echo "bench: $1: skipped: cannot take cvisor do's seccomp filter" >&2; return 1; }
            cc -O2 -Wall -Wextra -Werror -static -o "$W/lean-do" "$HERE/lean-do.c" ||
                { echo "bench: $1: skipped: cannot build lean-do.c statically" >&2; return 1; } ;;
        run/floor|do/*|podman/*|exec/floor) ;;
        run/*|exec/*)
            bundle "$3" "${K_DIR[$1]}" "$IDPFX-${1//\//-}" "$ARGS_JSON" &&
            bundle "$3" "${K_DIR[$1]}-probe" "$IDPFX-${1//\//-}-probe" "$PROBE_JSON" || die "cannot write the bundle of $1" ;;
        concurrent/*)
            local i
            for ((i = 1; i <= CONTAINERS; i++)); do
                bundle "$3" "${K_DIR[$1]}/$i" "$IDPFX-${1//\//-}-$i" "$ARGS_JSON" || die "cannot write the bundles of $1"
            done
            bundle "$3" "${K_DIR[$1]}-probe" "$IDPFX-${1//\//-}-probe" "$PROBE_JSON" || die "cannot write the bundle of $1" ;;
    esac
    if [ "$MODE/$2" = exec/floor ]; then
        # nsenter into cvisor's container (the first config's)
        K_PID[$1]=${K_PID[${CONFIGS[0]}/cvisor]:-}
        [ -n "${K_PID[$1]}" ] || { echo "bench: $1: skipped: needs cvisor's running container to enter" >&2; return 1; }
    elif [ "$MODE" = exec ]; then
        # the running container the execs go into, and the process they run
        local bin pid
        bin=$(rt_bin "$2")
        bundle "$3" "${K_DIR[$1]}-sleeper" "$IDPFX-${1//\//-}-sleeper" '["/bin/sleep","1000000"]' || return 1
        jq --argjson a "$ARGS_JSON" '.process | .args = $a' "${K_DIR[$1]}/config.json" >"$W/process-$3.json" &&
        jq --argjson a "$PROBE_JSON" '.process | .args = $a' "${K_DIR[$1]}/config.json" >"$W/process-$3-probe.json" || return 1
        if ! "$bin" --root "$RUN/root-$2" run -d --bundle "${K_DIR[$1]}-sleeper" "$IDPFX-$3-$2-sleeper" \
                </dev/null >"$W/sleeper.log" 2>&1; then
            echo "bench: $1: skipped: its container for exec does not start:" >&2
            sed 's/^/    /' "$W/sleeper.log" | tail -5 >&2
            return 1
        fi
        pid=$("$bin" --root "$RUN/root-$2" state "$IDPFX-$3-$2-sleeper" | jq -r .pid)
        K_PID[$1]=$pid
    fi
    if ! probe "$1" >"$W/probe.log" 2>&1; then
        echo "bench: $1: skipped: its probe did not print \`cvbench-probe-ok\`:" >&2
        sed 's/^/    /' "$W/probe.log" >&2
        return 1
    fi
    KEYS+=("$1")
}

if [ "$MODE" = concurrent ]; then seq 1 "$CONTAINERS" >"$W/batch-index"; fi
for rt in "${WANT[@]}"; do
    case $MODE/$rt in
        run/floor)
            add_key floor floor - ;;
        exec/floor) ;;   # after cvisor's container exists
        run/*|concurrent/*|exec/*)
            for cfg in "${CONFIGS[@]}"; do add_key "$cfg/$rt" "$rt" "$cfg"; done ;;
        *) add_key "$rt" "$rt" - ;;
    esac
done
[ "$MODE" = exec ] && [[ ",$RUNTIMES," = *,floor,* ]] && add_key floor floor -

if [ "$MODE" = do ] && [[ " ${KEYS[*]} " != *" cvisor-do"* ]]; then
    echo "bench: mode do skipped: \`cvisor do\` is not available (cvisor binary: ${CVISOR_BIN:-none found; use --cvisor PATH})" >&2
    exit 77
fi
[ ${#KEYS[@]} -gt 0 ] || { echo "bench: mode $MODE: nothing left to measure" >&2; exit 77; }

what=$ARGS_JSON
[ "$MODE" != concurrent ] || what="$ARGS_JSON x $CONTAINERS containers, $PARALLEL at a time"
echo "bench: mode $MODE$([ "$PHASES" = 1 ] && echo " --phases"), $what, $ROUNDS rounds: ${KEYS[*]}"
case $MODE in run|concurrent|exec) echo "bench: configs: plain = \`$SPEC_FROM spec\`, engine = podman 4.3.1's (see bench.sh)" ;; esac
[ "$MODE" != do ] || echo "bench: cvisor-do-limits: cvisor do $DO_FLAGS"
echo "bench: cvisor's seccomp filter cache: $SECCOMP_CACHE$([ "$MODE" != podman ] || echo " (podman may not pass it on: then /run/cvisor/seccomp-cache)")"
echo "bench: $(uname -r), $(nproc) CPUs, cvisor: ${CVISOR_BIN:-none}; one private mount namespace$([ "$HID_UNIFIED" = 1 ] && echo ", /sys/fs/cgroup/unified hidden")"
echo "bench: work directory $W, container ids and cgroups $IDPFX-*"
# Other load on the machine widens p10..p90 and moves medians: say how much there was.
echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- report
# stats FILE COLUMN: median p10 p90 of a numeric column (nearest rank).
stats() {
    awk -v c="$2" '{print $c}' "$1" | sort -n | awk '
        { v[NR] = $1 }
        function rank(p,  k) { k = int(p * NR + 0.999999); if (k < 1) k = 1; return v[k] }
        END {
            if (NR == 0) { print "- - -"; exit }
            med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            print med, rank(0.10), rank(0.90)
        }'
}

# mean FILE COLUMN. CPU times are means, not medians: the kernel samples
# them per tick, so one short run reads 0 or a whole tick, and only the mean
# of many converges on the true figure.
mean() { awk -v c="$2" '{ s += $c } END { print NR ? s / NR : 0 }' "$1"; }

# table TITLE KEY...: one line per key; ratios of the others to each cvisor key.
declare -A MED USR SYS
table() {
    local title=$1 k med p10 p90 usr sys rss n; shift
    printf '\n%s\n' "$title"
    printf '%-22s %9s %9s %9s %5s %9s %9s %10s\n' "" median p10 p90 runs "user" "sys" "peak RSS"
    printf '%-22s %9s %9s %9s %5s %9s %9s %10s\n' "" "(ms)" "(ms)" "(ms)" "" "(ms,mean)" "(ms,mean)" "(kB)"
    for k in "$@"; do
        read -r med p10 p90 < <(stats "$W/t-${k//\//-}" 1)
        usr=$(mean "$W/t-${k//\//-}" 4)
        sys=$(mean "$W/t-${k//\//-}" 5)
        MED[$k]=$med; USR[$k]=$usr; SYS[$k]=$sys
        rss=-
        [ ! -s "$W/m-${k//\//-}" ] || read -r rss _ < <(stats "$W/m-${k//\//-}" 1)
        n=$(wc -l <"$W/t-${k//\//-}")
        awk -v k="$k" -v a="$med" -v b="$p10" -v c="$p90" -v n="$n" -v u="$usr" -v s="$sys" -v m="$rss" \
            'BEGIN { printf "%-22s %9.2f %9.2f %9.2f %5d %9.2f %9.2f %10s\n", k, a/1e6, b/1e6, c/1e6, n, u/1e3, s/1e3, m }'
    done
    local base
    for base in "$@"; do
        case ${K_RT[$base]} in cvisor|cvisor-do|cvisor-do-limits) ;; *) continue ;; esac
        for k in "$@"; do
            case ${K_RT[$k]} in cvisor|cvisor-do|cvisor-do-limits) continue ;; esac
            awk -v n="${k##*/}/${base##*/}" -v a="${MED[$k]}" -v b="${MED[$base]}" \
                -v ua="${USR[$k]}" -v ub="${USR[$base]}" -v sa="${SYS[$k]}" -v sb="${SYS[$base]}" '
                function r(x, y) { return y > 0 ? sprintf("%.2f", x / y) : "-" }
                BEGIN { printf "ratio %-26s %6s   (user %s, sys %s)\n", n, r(a, b), r(ua, ub), r(sa, sb) }'
        done
    done
}

report() {
    local cfg k ks
    case $MODE in
        run|concurrent|exec)
            for cfg in "${CONFIGS[@]}"; do
                ks=()
                for k in "${KEYS[@]}"; do
                    [ "${K_CFG[$k]}" = "$cfg" ] || [ "${K_CFG[$k]}" = - ] && ks+=("$k")
                done
                [ ${#ks[@]} -eq 0 ] || table "config $cfg$([ "$MODE" != concurrent ] ||
                    echo ", wall time of $CONTAINERS containers $PARALLEL at a time (peak RSS: the largest runtime process)"):" "${ks[@]}"
            done ;;
        podman) table "podman run --rm (user/sys: podman and what it waits for; peak RSS not measured: podman's own, not the runtime's):" "${KEYS[@]}" ;;
        *) table "$MODE:" "${KEYS[@]}" ;;
    esac
}

# ---------------------------------------------------------------- phases
# Landmarks in a trace of one run (strace -f -ttt -y of the calls below
# only, so the tracing itself costs less), each the time in ms since the
# runtime's execve:
#   reexec     the first execve after the runtime's own (cvisor's exe-guard,
#              runc's `runc init`, ...), if any before the process's
#   cgroup     first mkdir under /sys/fs/cgroup
#   namespaces first clone/clone3/unshare with a CLONE_NEW* flag
#   pivot_root first pivot_root
#   seccomp    the last filter loaded (seccomp or prctl) before the exec
#   exec       the execve of the process (ARGV[0]) that succeeded
#   exited     that process's exit
#   cleanup    first cgroup removal under /sys/fs/cgroup after it
#   end        the runtime's own exit
PHASE_CALLS=execve,execveat,clone,clone3,unshare,pivot_root,mkdir,mkdirat,rmdir,unlinkat,seccomp,prctl,exit_group
landmarks() {   # landmarks TRACE: one line "name ms" per landmark found
    awk -v prog="${ARGV[0]}" '
        function t() { return ($2 - t0) * 1000 }
        # a path under /sys/fs/cgroup: absolute, or relative to a directory fd there (strace -y)
        function in_cgroupfs() { return $0 ~ /\(([0-9]+<\/sys\/fs\/cgroup\/|(AT_FDCWD[^,]*, )?"\/sys\/fs\/cgroup\/)/ }
        NR == 1 { t0 = $2; main = $1; next }
        !re && !ex && /execve(at)?\(/ && !index($0, "execve(\"" prog "\"") && !/= -1/ { re = t() }
        !cg && /mkdir(at)?\(/ && in_cgroupfs() { cg = t() }
        !ns && /(clone3?|unshare)\(.*CLONE_NEW/ { ns = t() }
        !pr && /pivot_root\(/ { pr = t() }
        !ex && /seccomp\(SECCOMP_SET_MODE_FILTER|prctl\(PR_SET_SECCOMP/ && !/= -1/ { sc = t() }
        index($0, "execve(\"" prog "\"") && !/= -1/ { ex = t(); expid = $1 }
        ex && !xt && $1 == expid && /exit_group\(|\+\+\+ exited/ { xt = t() }
        xt && !cl && (/rmdir\(/ || /unlinkat\(.*AT_REMOVEDIR/) && in_cgroupfs() { cl = t() }
        $1 == main && /\+\+\+ (exited|killed)/ { end = t() }
        END {
            if (re) print "reexec", re; if (cg) print "cgroup", cg; if (ns) print "namespaces", ns; if (pr) print "pivot_root", pr
            if (sc) print "seccomp", sc; if (ex) print "exec", ex; if (xt) print "exited", xt
            if (cl) print "cleanup", cl; if (end) print "end", end
        }' "$1"
}

phases() {
    local r k i n=0
    for ((r = 1; r <= ROUNDS; r++)); do
        for k in "${KEYS[@]}"; do
            [ "${K_RT[$k]}" != floor ] || continue
            n=$((n + 1))
            one "$k" /dev/null strace -f -ttt -y --seccomp-bpf -e trace="$PHASE_CALLS" -o "$W/trace-${k//\//-}-$r"
            landmarks "$W/trace-${k//\//-}-$r" >>"$W/l-${k//\//-}"
        done
    done
    echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "phases (strace landmarks, median ms since the runtime's execve over $ROUNDS traced runs; the tracing"
    echo "slows every traced call, so totals exceed the untraced times; phase = landmark minus the one above):"
    for k in "${KEYS[@]}"; do
        [ "${K_RT[$k]}" != floor ] || continue
        printf '\n%s\n' "$k"
        printf '  %-12s %8s %8s %6s\n' landmark "at (ms)" "phase" runs
        for i in reexec cgroup namespaces pivot_root seccomp exec exited cleanup end; do
            awk -v l="$i" '$1 == l { print $2 }' "$W/l-${k//\//-}" | sort -n |
                awk -v l="$i" '{ v[NR] = $1 } END { if (NR) print l, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, NR }'
        done | sort -k2,2n | awk '{ printf "  %-12s %8.2f %8.2f %6d\n", $1, $2, $2 - prev, $3; prev = $2 }'
    done
}

# ---------------------------------------------------------------- measure
for k in "${KEYS[@]}"; do
    for ((r = 1; r <= WARMUP; r++)); do one "$k" /dev/null "$TIMER" "$W/warmup"; done
done

if [ "$PHASES" = 1 ]; then phases; exit 0; fi

for ((r = 1; r <= ROUNDS; r++)); do
    for k in "${KEYS[@]}"; do one "$k" "$W/t-${k//\//-}" "$TIMER" "$W/t-${k//\//-}"; done
done
for ((r = 1; r <= RSS_RUNS; r++)); do
    for k in "${KEYS[@]}"; do one "$k" "$W/m-${k//\//-}" /usr/bin/time -a -o "$W/m-${k//\//-}" -f %M; done
done
echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
report
