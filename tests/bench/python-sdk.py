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
    args = ap.parse_args()
    if not shutil.which("bwrap"):
        print("python-sdk bench: bwrap is not installed", file=sys.stderr)
        return 77
    sb = cvisor.Sandbox()
    nonet = cvisor.Sandbox()
    nonet.set_allow_network(False)
    session = cvisor.SandboxSession()
    session.open()

    def sandbox_new():
        with cvisor.Sandbox() as s:
            s.run("true")

    ways = {
        "sandbox-run": lambda: sb.run("true"),
        "sandbox-nonet": lambda: nonet.run("true"),
        "sandbox-new": sandbox_new,
        "session-run": lambda: session.run(["true"]),
        "bwrap": lambda: subprocess.run(BWRAP, check=True),
    }
    try:
        for fn in ways.values():  # warm up, and fail early
            fn()
        times = {k: [] for k in ways}
        for _ in range(args.n):
            for k, fn in ways.items():
                t = time.perf_counter()
                fn()
                times[k].append((time.perf_counter() - t) * 1000)
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
    print("(%d rounds, load average %.2f)" % (args.n, os.getloadavg()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
