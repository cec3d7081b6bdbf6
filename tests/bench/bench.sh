#!/bin/bash
# bench.sh: start-up time and peak RSS of cvisor against crun and runc.
#
# What it measures
#   Mode `run` (default): `RUNTIME run` of one bundle, the same for every
#   runtime: a busybox rootfs with the default `cvisor spec` config (falling
#   back to `runc spec` while `cvisor spec` is unavailable), process.args set to
#   /bin/true (see --bundle-args), process.terminal false and ociVersion 1.0.2
#   (crun 1.8.1 refuses 1.3.0). Each runtime gets a copy of that config whose
#   cgroupsPath is /<our memory cgroup>/cvbench-PID-RUNTIME on hosts with a v1
#   memory controller, so every runtime nests its cgroups under ours and
#   does the same cgroup work (left empty on pure cgroup v2 hosts).
#   Mode `do`: `cvisor do CMD` against bubblewrap with equivalent isolation
#   (read-only bind of /, new mount/pid/net/ipc/uts namespaces, private /tmp,
#   /run, /proc and /dev, no capabilities). Not equal: cvisor do also
#   installs its seccomp deny-list, sets noNewPrivileges, masks credential
#   files and filters the environment; bwrap here does none of these, so the
#   ratio is a lower bound for cvisor do.
#
# Method
#   - Runs ALTERNATE: cvisor, crun, runc, cvisor, crun, runc, ... for N
#     rounds, so drift of the machine (frequency, page cache, other load) hits
#     every runtime alike. Two untimed warm-up runs per runtime come first.
#   - Each run is timed by bench-timer (timer.c, compiled into the work
#     directory at start): CLOCK_MONOTONIC read just before fork and just after
#     wait4 of the runtime process. The figure is the runtime's own fork,
#     execve, container set-up, the container's /bin/true and tear-down; none
#     of this script's overhead is in it.
#   - crun 1.8.1 refuses this host's hybrid cgroup layout, so each crun run
#     executes in `unshare -m --propagation private sh -c 'umount
#     /sys/fs/cgroup/unified; bench-timer ... crun run ID; rm -rf
#     /sys/fs/cgroup/unified/ID'`. The timer starts INSIDE that shell, after
#     the unshare and the umount, so only crun itself is measured; the rm
#     removes the cgroup.procs litter crun writes into the tmpfs under the
#     hidden mount point.
#   - Peak RSS: GNU time (`/usr/bin/time -f %M`, kB, max RSS of the runtime
#     process and the children it reaped) over --rss-runs alternating runs
#     (default 5); the median is printed.
#   - Statistics: median, p10 and p90 (nearest rank) in ms; ratios of every
#     other runtime's median to cvisor's (to the first runtime listed when
#     cvisor is not measured). A ratio above 1 means cvisor is faster.
#   - Before measuring, each runtime runs a probe container that must print a
#     known line, so a runtime that exits 0 without running anything is caught.
#     A runtime whose probe fails is dropped with its error shown.
#
# Hygiene: container ids are unique (cvbench-PID-RUNTIME-N), every runtime gets
#   a private --root in the work directory, and an EXIT trap deletes leftover
#   containers, cgroup directories named after our ids and the work directory.
#
# This is a measurement tool, not a test: it asserts nothing about speed.
#
# Exit status: 0 done, 1 error, 2 usage, 77 the requested mode is unavailable
#   (e.g. `cvisor do` not implemented yet).
set -u -o pipefail

usage() {
    cat <<'EOF'
usage: bench.sh [OPTIONS]
  -n, --rounds N         alternating rounds (default 40)
  --runtimes LIST        comma-separated, from cvisor,crun,runc,floor
                         (default cvisor,crun,runc; floor = `unshare -mpuin
                         --fork` of the same command, the bare lower bound);
                         in --mode do from cvisor-do,bwrap (the default)
  --bundle-args ARGS     container process args: a JSON array
                         ('["/bin/echo","hi"]') or words ('/bin/echo hi');
                         default /bin/true
  --mode run|do          `run` of a bundle (default), or `cvisor do` vs bwrap
  --do-flags FLAGS       cvisor do's flags before `--` in --mode do (words), e.g.
                         "--memory 512MB --processes 512": the sandbox then
                         also enforces cgroup limits, which bwrap cannot
  --seccomp FILE         put this OCI seccomp profile (a linux.seccomp object,
                         e.g. tests/integration/data/seccomp/podman-default.json)
                         into the bundle of every runtime
  --rss-runs N           runs per runtime for peak RSS (default 5; 0 skips)
  --cvisor PATH          cvisor binary (default $CVISOR, ./src/cvisor, or
                         cvisor on PATH)
  --busybox PATH         static busybox for the rootfs (default /bin/busybox)
  --keep                 keep the work directory (samples, logs)
  -h, --help             this text
EOF
}

die() { echo "bench: $*" >&2; exit 1; }

ROUNDS=40
RUNTIMES=cvisor,crun,runc
ARGS_SPEC=/bin/true
MODE=run
RSS_RUNS=5
CVISOR_BIN=${CVISOR:-}
BUSYBOX=/bin/busybox
KEEP=0
SECCOMP_FILE=
DO_FLAGS=
DO_ARGV=()

# An option's value must be present: one clear line instead of bash's own.
need() { [ $# -ge 2 ] && [ -n "$2" ] || { echo "bench: option \`$1\` needs a value" >&2; exit 2; }; }

while [ $# -gt 0 ]; do
    case $1 in -n|--rounds|--runtimes|--bundle-args|--mode|--rss-runs|--cvisor|--busybox|--seccomp|--do-flags) need "$@" ;; esac
    case $1 in
        -n|--rounds) ROUNDS=$2; shift 2 ;;
        --runtimes) RUNTIMES=$2; shift 2 ;;
        --bundle-args) ARGS_SPEC=$2; shift 2 ;;
        --mode) MODE=$2; shift 2 ;;
        --rss-runs) RSS_RUNS=$2; shift 2 ;;
        --cvisor) CVISOR_BIN=$2; shift 2 ;;
        --busybox) BUSYBOX=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --seccomp) SECCOMP_FILE=$2; shift 2 ;;
        --do-flags) read -r -a DO_ARGV <<<"$2"; DO_FLAGS=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "bench: unknown option \`$1\`" >&2; usage >&2; exit 2 ;;
    esac
done

case $ROUNDS in ''|*[!0-9]*|0) echo "bench: --rounds must be a positive integer, got \`$ROUNDS\`" >&2; exit 2 ;; esac
case $RSS_RUNS in ''|*[!0-9]*) echo "bench: --rss-runs must be a non-negative integer, got \`$RSS_RUNS\`" >&2; exit 2 ;; esac
case $MODE in run|do) ;; *) echo "bench: --mode must be run or do, got \`$MODE\`" >&2; exit 2 ;; esac
[ -z "$DO_FLAGS" ] || [ "$MODE" = do ] || { echo "bench: --do-flags needs --mode do" >&2; exit 2; }

[ "$(id -u)" = 0 ] || die "must run as root (runtimes need namespaces and cgroups)"
for tool in jq cc; do
    command -v "$tool" >/dev/null || die "\`$tool\` not found (install it: apt-get install jq gcc)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) not found (apt-get install time)"

if [ -z "$CVISOR_BIN" ]; then
    if [ -x ./src/cvisor ]; then CVISOR_BIN=$PWD/src/cvisor
    else CVISOR_BIN=$(command -v cvisor || true)
    fi
fi
case $CVISOR_BIN in ''|/*) ;; *) CVISOR_BIN=$PWD/$CVISOR_BIN ;; esac

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

HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /tmp/cvbench.XXXXXX) || die "mktemp failed"
IDPFX=cvbench-$$
B=$W/bundle

cleanup() {
    local rt id
    for rt in cvisor runc; do
        [ -d "$W/root-$rt" ] || continue
        for id in $(ls "$W/root-$rt" 2>/dev/null); do
            case $id in "$IDPFX"-*) ;; *) continue ;; esac
            if [ "$rt" = cvisor ]; then "$CVISOR_BIN" --root "$W/root-$rt" delete -f "$id"
            else runc --root "$W/root-$rt" delete -f "$id"; fi >/dev/null 2>&1
        done
    done
    if [ -d "$W/root-crun" ] && [ -n "$(ls "$W/root-crun" 2>/dev/null)" ]; then
        unshare -m --propagation private sh -c '
            umount /sys/fs/cgroup/unified 2>/dev/null
            for d in "$1"/*; do [ -d "$d" ] && crun --root "$1" delete -f "${d##*/}"; done
            rm -rf /sys/fs/cgroup/unified/"$2"-* "/sys/fs/cgroup/unified/$3"
            # empty parents, never the mount point itself: the tmpfs is
            # shared with the host, and an rmdir of a mount point in another
            # namespace detaches the mount there (Linux 3.18 and later)
            d=/sys/fs/cgroup/unified/$3; d=${d%/*}
            while [ "${d#/sys/fs/cgroup/unified/}" != "$d" ] && rmdir "$d"; do d=${d%/*}; done' \
            sh "$W/root-crun" "$IDPFX" "${CRUN_CGPATH:-none}" >/dev/null 2>&1
    fi
    # Cgroup directories named after our ids, deepest first (v1 controllers
    # nest them under our own cgroup or at the hierarchy root).
    find /sys/fs/cgroup -depth -mindepth 2 -maxdepth 6 -type d -name "$IDPFX-*" \
        -exec rmdir {} + 2>/dev/null
    if [ "$KEEP" = 1 ]; then echo "bench: work directory kept: $W" >&2
    else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

TIMER=$W/bench-timer
cc -O2 -Wall -Wextra -Werror -o "$TIMER" "$HERE/timer.c" || die "cannot compile $HERE/timer.c"

# ---------------------------------------------------------------- runtimes
# rt_exec RUNTIME ID WRAPPER... : run one container of RUNTIME with the given
# wrapper command (timer or GNU time) placed directly in front of the runtime.
rt_exec() {
    local rt=$1 id=$2; shift 2
    case $rt in
        cvisor) "$@" "$CVISOR_BIN" --root "$W/root-cvisor" run --bundle "$W/bundle-cvisor" "$id" ;;
        runc)   "$@" runc --root "$W/root-runc" run --bundle "$W/bundle-runc" "$id" ;;
        crun)
            # $1: where crun writes its cgroup.procs in the hidden tmpfs
            # (the cgroupsPath, or the id when that is empty); empty parent
            # directories it made are removed too.
            unshare -m --propagation private sh -c '
                umount /sys/fs/cgroup/unified || exit 125
                litter=/sys/fs/cgroup/unified/$1; shift
                "$@"; rc=$?
                rm -rf "$litter"
                # empty parents only, never the mount point (see cleanup)
                d=${litter%/*}
                while [ "${d#/sys/fs/cgroup/unified/}" != "$d" ] && rmdir "$d" 2>/dev/null; do d=${d%/*}; done
                exit $rc' sh "${CRUN_CGPATH:-$id}" "$@" crun --root "$W/root-crun" run --bundle "$W/bundle-crun" "$id" ;;
        floor)  "$@" unshare -mpuin --fork "${ARGV[@]}" ;;
        cvisor-do) "$@" "$CVISOR_BIN" --root "$W/root-cvisor" do "${DO_ARGV[@]}" -- "${ARGV[@]}" ;;
        bwrap)  "$@" bwrap --ro-bind / / --unshare-pid --unshare-net --unshare-ipc \
                    --unshare-uts --tmpfs /tmp --tmpfs /run --proc /proc --dev /dev \
                    --cap-drop ALL "${ARGV[@]}" ;;
        *) echo "bench: unknown runtime \`$rt\`" >&2; return 2 ;;
    esac
}

# Probe: the runtime must really run a container that prints a known line.
rt_probe() {
    local rt=$1 out
    case $rt in
        cvisor|crun|runc|floor)
            local cfg=$W/bundle-$rt/config.json
            [ "$rt" = floor ] || { jq '.process.args = ["/bin/sh","-c","echo cvbench-probe-ok"]' \
                "$cfg" >"$cfg.tmp" && mv "$cfg.tmp" "$cfg"; }
            local -a saved_argv=("${ARGV[@]}")
            ARGV=(/bin/sh -c 'echo cvbench-probe-ok')
            out=$(rt_exec "$rt" "$IDPFX-$rt-probe" 2>&1)
            ARGV=("${saved_argv[@]}")
            [ "$rt" = floor ] || bundle_for "$rt"
            ;;
        cvisor-do|bwrap)
            local -a saved_argv=("${ARGV[@]}")
            ARGV=(/bin/sh -c 'echo cvbench-probe-ok')
            out=$(rt_exec "$rt" probe 2>&1)
            ARGV=("${saved_argv[@]}")
            ;;
    esac
    if [ "$out" != cvbench-probe-ok ]; then
        echo "${out:-(no output, exit status 0)}" | head -5 | sed 's/^/    /'
        return 1
    fi
}

rt_binary_ok() {
    case $1 in
        cvisor|cvisor-do) [ -n "$CVISOR_BIN" ] && [ -x "$CVISOR_BIN" ] ;;
        crun) command -v crun >/dev/null ;;
        runc) command -v runc >/dev/null ;;
        bwrap) command -v bwrap >/dev/null ;;
        floor) command -v unshare >/dev/null ;;
        *) return 1 ;;
    esac
}

# ---------------------------------------------------------------- setup
if [ "$MODE" = do ]; then
    [ "$RUNTIMES" = cvisor,crun,runc ] && RUNTIMES=cvisor-do,bwrap
else
    [ -x "$BUSYBOX" ] || die "busybox not found at $BUSYBOX (apt-get install busybox-static)"
    mkdir -p "$B/rootfs/bin" "$B/rootfs/proc" "$B/rootfs/dev" "$B/rootfs/sys" "$B/rootfs/tmp" "$B/rootfs/etc"
    cp "$BUSYBOX" "$B/rootfs/bin/busybox"
    for a in $("$BUSYBOX" --list); do
        [ "$a" = busybox ] || ln -s busybox "$B/rootfs/bin/$a"
    done
    spec_from=cvisor
    if ! { [ -x "$CVISOR_BIN" ] && (cd "$B" && "$CVISOR_BIN" spec) >/dev/null 2>&1 \
            && jq -e '.process and .root' "$B/config.json" >/dev/null 2>&1; }; then
        rm -f "$B/config.json"
        spec_from=runc
        (cd "$B" && runc spec) || die "neither \`cvisor spec\` nor \`runc spec\` produced a config.json"
    fi
    # ociVersion 1.0.2 for all: crun 1.8.1 refuses newer ones ("unknown version
    # specified") and nothing in the default config needs more.
    jq --argjson a "$ARGS_JSON" '.process.args = $a | .process.terminal = false | .ociVersion = "1.0.2"' \
        "$B/config.json" >"$B/config.json.tmp" && mv "$B/config.json.tmp" "$B/config.json" \
        || die "cannot edit $B/config.json"
    if [ -n "$SECCOMP_FILE" ]; then
        jq --slurpfile p "$SECCOMP_FILE" '.linux.seccomp = $p[0]' "$B/config.json" >"$B/config.json.tmp" \
            && mv "$B/config.json.tmp" "$B/config.json" || die "cannot add the seccomp profile $SECCOMP_FILE"
    fi
fi

# bundle_for RUNTIME: the shared config with an absolute root.path and, on a
# host with a v1 memory controller, cgroupsPath under our own memory cgroup
# (crun 1.8.1 would otherwise put its memory cgroup at the hierarchy root).
# One bundle per runtime so each has its own cgroup path.
OWN_MEMCG=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
bundle_for() {
    local rt=$1 d=$W/bundle-$1
    mkdir -p "$d" || return 1
    jq --arg root "$B/rootfs" --arg cg "${OWN_MEMCG%/}/$IDPFX-$rt" --arg v1 "${OWN_MEMCG:+yes}" \
        '.root.path = $root | if $v1 == "yes" then .linux.cgroupsPath = $cg else . end' \
        "$B/config.json" >"$d/config.json.tmp" && mv "$d/config.json.tmp" "$d/config.json" || return 1
    if [ "$rt" = crun ]; then
        CRUN_CGPATH=$(jq -r '.linux.cgroupsPath // "" | ltrimstr("/")' "$d/config.json") || return 1
    fi
}

IFS=, read -r -a want <<<"$RUNTIMES"
RTS=()
for rt in "${want[@]}"; do
    if ! rt_binary_ok "$rt"; then
        echo "bench: $rt: not installed or unknown; skipped" >&2
        continue
    fi
    case $rt in
        cvisor|crun|runc) bundle_for "$rt" || die "cannot write the bundle for $rt" ;;
    esac
    if ! rt_probe "$rt" >"$W/probe-$rt.log" 2>&1; then
        if [ "$rt" = cvisor-do ]; then
            echo "bench: cvisor-do: skipped: \`cvisor do\` is unavailable (probe \`$CVISOR_BIN do /bin/sh -c 'echo cvbench-probe-ok'\` failed):" >&2
        else
            echo "bench: $rt: skipped: probe container failed:" >&2
        fi
        cat "$W/probe-$rt.log" >&2
        continue
    fi
    RTS+=("$rt")
done
if [ "$MODE" = do ] && [[ ",$RUNTIMES," = *",cvisor-do,"* ]] && [[ " ${RTS[*]} " != *" cvisor-do "* ]]; then
    echo "bench: mode do skipped: \`cvisor do\` is not available (cvisor binary: ${CVISOR_BIN:-none found; use --cvisor PATH})" >&2
    exit 77
fi
[ ${#RTS[@]} -gt 0 ] || die "no runtime left to measure"

echo "bench: mode $MODE, args $ARGS_JSON, $ROUNDS rounds, runtimes: ${RTS[*]}" \
     "$([ "$MODE" = run ] && echo "(config.json from \`$spec_from spec\`)")" \
     "$([ -n "$DO_FLAGS" ] && echo "(cvisor do $DO_FLAGS)")"
echo "bench: $(uname -r), $(nproc) CPUs, cvisor: ${CVISOR_BIN:-none}"
# Other load on the machine widens p10..p90 and moves medians: say how much there was.
echo "bench: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- measure
N=0
one_run() {   # one_run RUNTIME SAMPLEFILE WRAPPER...
    local rt=$1 file=$2; shift 2
    N=$((N + 1))
    local id=$IDPFX-$rt-$N
    if ! rt_exec "$rt" "$id" "$@" >"$W/run.log" 2>&1; then
        echo "bench: $rt: run $id failed:" >&2
        sed 's/^/    /' "$W/run.log" | head -10 >&2
        exit 1
    fi
}

for rt in "${RTS[@]}"; do
    for _ in 1 2; do one_run "$rt" /dev/null "$TIMER" "$W/warmup"; done
done

for ((r = 1; r <= ROUNDS; r++)); do
    for rt in "${RTS[@]}"; do
        one_run "$rt" "$W/t-$rt" "$TIMER" "$W/t-$rt"
    done
done

for ((r = 1; r <= RSS_RUNS; r++)); do
    for rt in "${RTS[@]}"; do
        one_run "$rt" "$W/m-$rt" /usr/bin/time -a -o "$W/m-$rt" -f %M
    done
done

echo "bench: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

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

declare -A MED
printf '\n%-10s %9s %9s %9s %6s %12s\n' runtime "median" "p10" "p90" runs "peak RSS"
printf '%-10s %9s %9s %9s %6s %12s\n' "" "(ms)" "(ms)" "(ms)" "" "(kB, median)"
for rt in "${RTS[@]}"; do
    read -r med p10 p90 < <(stats "$W/t-$rt" 1)
    MED[$rt]=$med
    rss="-"
    if [ "$RSS_RUNS" -gt 0 ]; then read -r rss _ < <(stats "$W/m-$rt" 1); fi
    awk -v rt="$rt" -v a="$med" -v b="$p10" -v c="$p90" -v n="$(wc -l <"$W/t-$rt")" -v m="$rss" \
        'BEGIN { printf "%-10s %9.2f %9.2f %9.2f %6d %12s\n", rt, a/1e6, b/1e6, c/1e6, n, m }'
done

base=${RTS[0]}
for rt in "${RTS[@]}"; do
    case $rt in cvisor|cvisor-do) base=$rt ;; esac
done
echo
for rt in "${RTS[@]}"; do
    [ "$rt" = "$base" ] && continue
    awk -v a="${MED[$rt]}" -v b="${MED[$base]}" -v n="$rt/$base" \
        'BEGIN { printf "ratio %-16s %6.2f\n", n, a / b }'
done
