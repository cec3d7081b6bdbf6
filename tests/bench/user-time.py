#!/usr/bin/python3
"""User-mode and kernel CPU time of commands, from perf samples.

The user and system times of getrusage (GNU time, bench.sh's columns) come
from the scheduler tick on a kernel built with CONFIG_TICK_CPU_ACCOUNTING:
a process that runs for less than a tick (4 ms at HZ=250) mostly takes no
tick at all, and then all its run time is counted as user time, kernel
work included (kernel/sched/cputime.c, cputime_adjust). A runtime made of
several short processes looks user-heavy that way. This samples instead:
`perf record -e cpu-clock` over every process of the command, each sample
counted as user or kernel by its instruction pointer. perf's own overhead
inflates both about alike (compare the ratios, not the absolute times).

    tests/bench/user-time.py -n 100 "cvisor do -- true" "bwrap ... true"

Rounds alternate between the commands; each round runs one command N times
under one perf record. Prints, per command, the sampled user and kernel ms
per run (the median over rounds) and the ratio of each to the first
command's. A measurement tool, not a test: nothing asserts a speed.
"""
import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

FREQ = 10000


def sample(cmd, n, work):
    """(user ms, kernel ms) per run of CMD, N runs under one perf record."""
    data = os.path.join(work, "perf.data")
    script = os.path.join(work, "loop.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nfor i in $(seq %d); do %s >/dev/null 2>&1 </dev/null; done\n" % (n, cmd))
    os.chmod(script, 0o755)
    subprocess.run(["perf", "record", "-q", "-F", str(FREQ), "-e", "cpu-clock", "-o", data, script],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip"], check=True, capture_output=True,
                         text=True).stdout
    user = kernel = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2 or parts[0] in ("loop.sh", "seq", "perf", "perf-exec"):
            continue  # the loop's own shell and seq
        if parts[-1].startswith("ffff"):
            kernel += 1
        else:
            user += 1
    per = 1000.0 / FREQ / n
    return user * per, kernel * per


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=100, help="runs per round (default 100)")
    ap.add_argument("-r", "--rounds", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("commands", nargs="+", help="shell command lines")
    args = ap.parse_args()
    if not shutil.which("perf"):
        print("user-time: perf is not installed (apt-get install linux-perf)", file=sys.stderr)
        return 77
    res = {c: ([], []) for c in args.commands}
    with tempfile.TemporaryDirectory() as work:
        for r in range(args.rounds):
            order = args.commands if r % 2 == 0 else list(reversed(args.commands))
            for c in order:
                u, k = sample(c, args.n, work)
                res[c][0].append(u)
                res[c][1].append(k)
    base_u = statistics.median(res[args.commands[0]][0])
    base_k = statistics.median(res[args.commands[0]][1])
    print("%-10s %-10s %-8s %-8s %s" % ("user ms", "kernel ms", "user/1st", "kern/1st", "command"))
    for c in args.commands:
        u, k = statistics.median(res[c][0]), statistics.median(res[c][1])
        print("%-10.2f %-10.2f %-8.2f %-8.2f %s" % (u, k, u / base_u, k / base_k, shlex.split(c)[0] + " " +
                                                    " ".join(shlex.split(c)[1:4])))
    print("(%d rounds of %d runs, %d Hz samples, load average %.2f)" % (args.rounds, args.n, FREQ,
                                                                      os.getloadavg()[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
