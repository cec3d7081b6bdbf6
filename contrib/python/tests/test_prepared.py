"""A sandbox run again and again gets each next run made ahead of its
request (cvisor-sandbox(3), "Prepared runs"): what that run finds must be
what a run made at once would find, and nothing of it may outlive the
sandbox."""
import os
import shutil
import signal
import threading
import time
import uuid


import cvisor
from conftest import TAG, spawn_tagged, tagged_processes, wait_gone

# the sandbox's init and the program's start times, in clock ticks
AGES = "cut -d' ' -f22 /proc/1/stat; cut -d' ' -f22 /proc/self/stat"
TICK = os.sysconf("SC_CLK_TCK")


def init_lead(text):
    """Seconds between the sandbox init's start and the program's, from
    AGES's output: a prepared run's init waited for the request."""
    init, prog = (int(x) for x in text.split()[-2:])
    return (prog - init) / TICK


def _ppid(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


def _is_keeper(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"sandbox-keeper" in f.read()
    except OSError:
        return False


def keeper_children(pids):
    """The children of the keepers among PIDS: with no network (no holder
    process) and no run in flight, the prepared run's supervisor. Found by
    their parent, not their environment, which a user may not read (the
    runtime is not dumpable)."""
    # what the keeper forks has its command line too
    keepers = [p for p in pids if _is_keeper(p) and not _is_keeper(_ppid(p))]
    return [int(q) for q in os.listdir("/proc") if q.isdigit() and _ppid(int(q)) in keepers]


def reuse(run, n=2):
    """Runs enough for the keeper to prepare the next one, then waits for it
    to be made (a run waits for it anyway; the wait makes the test's runs
    meet a prepared one, not one being made)."""
    for _ in range(n):
        run()
    time.sleep(0.6)


def test_the_next_run_of_a_reused_sandbox_is_prepared_and_a_new_policy_is_not(sandbox):
    sandbox.set_allow_network(False)
    reuse(lambda: sandbox.run("true"))
    out = sandbox.run(AGES)
    assert out.exit_code == 0, out.stderr
    assert init_lead(out.stdout) >= 0.3
    # another policy: made at once, never the run prepared for the old one
    sandbox.set_env("CVISOR_PREP", "1")
    time.sleep(0.6)
    out = sandbox.run(AGES + "; echo $CVISOR_PREP")
    assert out.exit_code == 0, out.stderr
    assert out.stdout.split()[-1] == "1"
    assert init_lead(" ".join(out.stdout.split()[:2])) < 0.3


def test_a_prepared_run_sees_what_earlier_runs_and_write_file_left(sandbox):
    sandbox.set_allow_network(False)
    sandbox.run("echo one > f")
    reuse(lambda: sandbox.run("true"))
    sandbox.write_file("/workspace/in.txt", "from the host\n")
    out = sandbox.run("cat f in.txt; " + AGES)
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[:2] == ["one", "from the host"]
    assert init_lead(" ".join(lines[2:4])) >= 0.3


def test_a_prepared_run_takes_its_arguments_stdin_exit_status_and_timeout(sandbox):
    sandbox.set_allow_network(False)
    reuse(lambda: sandbox.run("true"))
    out = sandbox.run_argv(["sh", "-c", "cat; echo \"[$1]\" >&2; { " + AGES + "; } >&2; exit 5", "sh", "a b"],
                           input=b"fed in")
    err = out.stderr.split("\n")
    assert (out.stdout, err[0], out.exit_code) == ("fed in", "[a b]", 5)
    assert init_lead(" ".join(err[1:3])) >= 0.3
    time.sleep(0.6)
    start = time.monotonic()
    out = sandbox.run(AGES + "; sleep 987.661; echo never", timeout_ms=500)
    assert out.exit_code == 137
    assert out.report["timed_out"] is True
    assert "never" not in out.stdout
    assert init_lead(out.stdout) >= 0.3
    assert time.monotonic() - start < 5


def test_a_prepared_run_caps_its_output(sandbox):
    sandbox.set_allow_network(False)
    sandbox.set_option("max_output_bytes", "1000")
    reuse(lambda: sandbox.run("true"))
    out = sandbox.run("head -c 5000 /dev/zero | tr '\\0' x; echo done >&2; { " + AGES + "; } >&2")
    assert len(out.stdout_bytes) == 1000
    assert out.report["output_truncated"]["stdout"] is True
    err = out.stderr.split("\n")
    assert err[0] == "done"
    assert init_lead(" ".join(err[1:3])) >= 0.3


def test_a_prepared_run_meets_the_host_as_it_is_now(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with cvisor.SandboxSession(str(ws), timeout=60) as s:
        reuse(lambda: s.run("true"))
        # the workspace replaced while the prepared run waited: the run
        # sees the new directory, and writes there
        shutil.rmtree(ws)
        ws.mkdir()
        (ws / "new").write_text("x")
        r = s.run("ls; touch made; " + AGES)
        assert r.exit_code == 0, r.stderr
        assert r.stdout.split()[0] == "new"
        assert sorted(os.listdir(ws)) == ["made", "new"]
        # not the prepared run, which had the old directory: one made anew
        assert init_lead(r.stdout) < 0.3
        if os.geteuid() != 0:
            return
        # its owner changed: the run writes as the new owner
        time.sleep(0.6)
        os.chown(ws, 1234, 1234)
        r = s.run("touch made2")
        assert r.exit_code == 0, r.stderr
        assert os.stat(ws / "made2").st_uid == 1234


def test_a_prepared_run_in_flight_is_cancelled(sandbox):
    sandbox.set_allow_network(False)
    reuse(lambda: sandbox.run("true"))
    got = {}
    t = threading.Thread(target=lambda: got.setdefault("out", sandbox.run(AGES + "; touch started; sleep 987.662")))
    t.start()
    time.sleep(0.3)  # its request first, to the prepared run
    deadline = time.monotonic() + 15
    while sandbox.run("test -e started").exit_code != 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    sandbox.cancel()
    t.join(15)
    assert got["out"].exit_code == 137
    assert got["out"].report["cancelled"] is True
    assert init_lead(got["out"].stdout) >= 0.3


def test_nothing_of_a_prepared_run_is_left_after_close(monkeypatch):
    tag = uuid.uuid4().hex
    monkeypatch.setenv(TAG, tag)  # the keeper, and what it forks, inherit it
    sb = cvisor.Sandbox()
    sb.set_allow_network(False)
    sb.set_limits(memory_max=64 << 20)
    reuse(lambda: sb.run("true"), 3)
    pids = tagged_processes(tag)
    kids = keeper_children(pids)
    assert len(kids) == 1
    sb.close()
    pids += kids
    assert wait_gone(pids) == []


CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import cvisor
sb = cvisor.Sandbox()
sb.set_allow_network(False)
sb.set_limits(memory_max=64 << 20)
for _ in range(3):
    sb.run("true")
time.sleep(0.6)
print("ready", flush=True)
time.sleep(600)
"""


def test_nothing_of_a_prepared_run_is_left_after_sigkill():
    p, tag = spawn_tagged(CHILD)
    try:
        assert p.stdout.readline().strip() == "ready"
        pids = tagged_processes(tag)
        pids.remove(p.pid)
        kids = keeper_children(pids)
        assert len(kids) == 1
        pids += kids
        p.send_signal(signal.SIGKILL)
        p.wait(10)
        assert wait_gone(pids) == []
        assert tagged_processes(tag) == []
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
