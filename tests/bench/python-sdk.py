#!/usr/bin/python3
"""Per-call time of the Python SDK against subprocess.run of bubblewrap.

Rounds alternate between the ways, so that machine drift hits them alike;
each way's median, p10 and p90 per call are printed in ms, and the ratio
of bwrap's median to each (above 1: faster than bwrap). A measurement
tool, not a test: nothing asserts a speed.

    CVISOR_LIB=build/.libs/libcvisor.so.0 CVISOR_HELPER=build/src/cvisor \\
        tests/bench/python-sdk.py -n 100

The ways:
  sandbox-run     Sandbox.run("true") on one sandbox (its keeper started once;
                  the default network: outbound, through slirp4netns)
  sandbox-nonet   the same with set_allow_network(False), as bwrap's
  sandbox-new     Sandbox() then .run("true") then .close(), per call
  session-run     SandboxSession.run(["true"]) on one open session (no network)
  bwrap           subprocess.run of bwrap over a read-only root, new user/
                  pid/net/ipc/uts namespaces, private /tmp, /run, /proc, /dev,
                  root's credential stores hidden, no capabilities (as
                  tests/bench/bench.sh --mode do)
  bwrap-session   the same with what a session adds: its workspace and scratch
                  directory bound writable, the workspace the working
                  directory, the environment cleared but PATH and TMPDIR, and
                  the sandbox ended with its caller (--die-with-parent)

Ratios are to "bwrap"; session-run's is also given to "bwrap-session", the
bubblewrap command equivalent to it.

Each call comes --gap ms after the one before (default 50), as an agent's
calls come seconds apart: what a call leaves working when it returns (a
sandbox's next run being prepared, cvisor-sandbox(3); a network
namespace's cleanup in the kernel, bwrap's as ours) is done by then and
slows no other way's call. Then the same calls back to back, --gap 0 on
one way at a time: the next run is then still being prepared when the
call comes, the case where preparing ahead cannot help.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "contrib", "python"))

import cvisor  # noqa: E402

BWRAP = ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
         "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--tmpfs", "/run", "--proc", "/proc", "--dev", "/dev",
         "--tmpfs", "/root", "--ro-bind", "/dev/null", "/etc/shadow", "--ro-bind", "/dev/null", "/etc/gshadow",
         "--tmpfs", "/etc/ssh", "--cap-drop", "ALL", "true"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50, help="rounds (default 50)")
    ap.add_argument("--gap", type=float, default=50, help="ms of pause before each call (default 50)")
    args = ap.parse_args()
    if not shutil.which("bwrap"):
        print("python-sdk bench: bwrap is not installed", file=sys.stderr)
        return 77
    sb = cvisor.Sandbox()
    nonet = cvisor.Sandbox()
    nonet.set_allow_network(False)
    session = cvisor.SandboxSession()
    session.open()
    scratch = session.run(["/bin/sh", "-c", "printf %s \"$TMPDIR\""], check=True).stdout
    bwrap_session = BWRAP[:-1] + ["--bind", session.workspace, session.workspace, "--bind", scratch, scratch,
                                  "--chdir", session.workspace, "--clearenv",
                                  "--setenv", "PATH", os.environ.get("PATH", "/usr/bin:/bin"),
                                  "--setenv", "TMPDIR", scratch, "--die-with-parent", "true"]

    def sandbox_new():
        with cvisor.Sandbox() as s:
            s.run("true")

    ways = {
        "sandbox-run": lambda: sb.run("true"),
        "sandbox-nonet": lambda: nonet.run("true"),
        "sandbox-new": sandbox_new,
        "session-run": lambda: session.run(["true"]),
        "bwrap": lambda: subprocess.run(BWRAP, check=True),
        "bwrap-session": lambda: subprocess.run(bwrap_session, check=True),
    }
    try:
        for fn in ways.values():  # warm up, and fail early
            fn()
        times = {k: [] for k in ways}
        order = list(ways.items())
        for i in range(args.n):
            # each way follows another on alternate rounds: what one leaves
            # running (a closed sandbox's teardown) hits them alike
            for k, fn in (order if i % 2 == 0 else reversed(order)):
                time.sleep(args.gap / 1000)
                t = time.perf_counter()
                fn()
                times[k].append((time.perf_counter() - t) * 1000)
        b2b = {}
        for k in ("sandbox-nonet", "session-run", "bwrap"):
            b2b[k] = []
            for _ in range(args.n):
                t = time.perf_counter()
                ways[k]()
                b2b[k].append((time.perf_counter() - t) * 1000)
    finally:
        session.close()
        sb.close()
        nonet.close()
    base = statistics.median(times["bwrap"])
    print("%-13s %9s %9s %9s %8s" % ("way", "median", "p10", "p90", "bwrap/x"))
    for k, v in times.items():
        q = statistics.quantiles(v, n=10)
        m = statistics.median(v)
        print("%-13s %7.2fms %7.2fms %7.2fms %7.2fx" % (k, m, q[0], q[-1], base / m))
    print("session-run against bwrap-session: %.2fx" % (
        statistics.median(times["bwrap-session"]) / statistics.median(times["session-run"])))
    print("back to back, %d calls each:" % args.n)
    for k, v in b2b.items():
        q = statistics.quantiles(v, n=10)
        m = statistics.median(v)
        print("%-13s %7.2fms %7.2fms %7.2fms %7.2fx" % (k, m, q[0], q[-1], statistics.median(b2b["bwrap"]) / m))
    print("(%d rounds, %g ms apart, load average %.2f)" % (args.n, args.gap, os.getloadavg()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
