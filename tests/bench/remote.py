#!/usr/bin/python3
"""Round trips of the remote service on loopback, against the local SDK.

Starts a cvisor-server of this tree on 127.0.0.1 (its own state root and a
fresh token), then alternates rounds of the ways below; prints each way's
median, p10 and p90 in ms. A measurement tool, not a test: nothing asserts
a speed.

    CVISOR_LIB=build/.libs/libcvisor.so.0 CVISOR_HELPER=build/src/cvisor \\
        CVISOR_SLIRP_HOOK=build/hooks/cvisor-slirp tests/bench/remote.py -n 100

The ways:
  local-run        Sandbox.run("true") on one local sandbox (no network)
  remote-run       RemoteSandbox.run("true") on one remote sandbox (no network),
                   one kept HTTP connection
  remote-query     GraphQLClient.execute of `{ capabilities { version } }`:
                   the service's own cost, no sandbox involved
  session-first    RemoteSandbox._session("echo x") until its first byte is
                   read (the WebSocket stream; the session's start included)
  first-byte       within that: from the start mutation's answer to the first
                   byte read (the program's start in the sandbox, and the stream)
  pty-echo         on one kept PTY session running cat: write_stdin of a line
                   until cat's copy of it is read (a mutation, the program,
                   the server's poll of the session, the WebSocket)
"""
import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

PKG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "contrib", "python")
sys.path.insert(0, PKG)

import cvisor  # noqa: E402
from cvisor.server.tokens import hash_token, new_token  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50, help="rounds (default 50)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="cvisor-bench-remote.")
    token = new_token()
    with open(os.path.join(work, "tokens"), "w") as f:
        f.write("bench %s\n" % hash_token(token))
    port = free_port()
    log = open(os.path.join(work, "server.log"), "wb")
    srv = subprocess.Popen([sys.executable, "-m", "cvisor.server", "--listen", "127.0.0.1:%d" % port, "--tokens",
                            os.path.join(work, "tokens"), "--state-root", os.path.join(work, "root")],
                           env=dict(os.environ, PYTHONPATH=PKG), stdout=log, stderr=subprocess.STDOUT)
    url = "http://127.0.0.1:%d/graphql" % port
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        local = cvisor.Sandbox()
        local.set_allow_network(False)
        remote = cvisor.RemoteSandbox(url, token)
        remote.set_allow_network(False)
        client = cvisor.GraphQLClient(url, token)
        first_bytes = []

        def session_first() -> None:
            s = remote._session("echo x", False)
            t = time.perf_counter()
            try:
                while not s.read_stdout():
                    time.sleep(0.0005)
                first_bytes.append((time.perf_counter() - t) * 1000)
            finally:
                s.close()

        sh = remote._session("exec cat", True)
        while not sh.read_stdout():  # the terminal is up
            sh.write_stdin("\n")
            time.sleep(0.05)

        rounds = iter(range(1 << 30))

        def pty_echo() -> None:
            mark = b"q%d" % next(rounds)
            sh.write_stdin(mark + b"\n")
            got = b""
            while got.count(mark) < 2:  # the terminal's echo, then cat's copy
                got += sh.read_stdout()
                time.sleep(0.0005)

        ways = {
            "local-run": lambda: local.run("true"),
            "remote-run": lambda: remote.run("true"),
            "remote-query": lambda: client.execute("{ capabilities { version } }"),
            "session-first": session_first,
            "pty-echo": pty_echo,
        }
        for fn in ways.values():  # warm up, and fail early
            fn()
        first_bytes.clear()
        times = {k: [] for k in ways}
        for _ in range(args.n):
            for k, fn in ways.items():
                t = time.perf_counter()
                fn()
                times[k].append((time.perf_counter() - t) * 1000)
        times["first-byte"] = first_bytes
        sh.close()
        remote.close()
        local.close()
    finally:
        srv.send_signal(signal.SIGTERM)
        srv.wait(60)
        log.close()
        subprocess.run(["rm", "-rf", work])
    print("%-14s %9s %9s %9s" % ("way", "median", "p10", "p90"))
    for k, v in times.items():
        q = statistics.quantiles(v, n=10)
        print("%-14s %7.2fms %7.2fms %7.2fms" % (k, statistics.median(v), q[0], q[-1]))
    print("(%d rounds, load average %.2f)" % (args.n, os.getloadavg()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
