"""Nothing is left, no directory, process, mount or cgroup, after close()
or after the Python process is SIGKILLed."""
import os
import signal
import time
import uuid


import cvisor
from conftest import TAG, spawn_tagged, tagged_processes, wait_gone

def sleepers():
    """The runs' programs of CHILD, by their command lines."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if f.read() in (b"sleep\x006016\x00", b"sleep\x006017\x00"):
                    found.append(int(pid))
        except OSError:
            pass
    return found


def test_nothing_left_after_close(monkeypatch, tmp_path):
    tag = uuid.uuid4().hex
    monkeypatch.setenv(TAG, tag)  # the keepers inherit it
    s = cvisor.SandboxSession(memory="64M", processes=16)
    s.open()
    sb = cvisor.Sandbox()
    sb.set_limits(memory_max=64 << 20)
    root = os.path.dirname(s.workspace)
    s.run("echo x > f")
    sb.run("echo y > /workspace/g")
    shell = sb.shell()
    shell.write_stdin("sleep 600\n")
    pids = tagged_processes(tag)
    assert len(pids) >= 2  # the two keepers at least
    shell.close()
    sb.close()
    s.close()
    assert wait_gone(pids) == []
    assert not os.path.exists(root)


CHILD = r"""
import os, sys, threading, time
sys.path.insert(0, sys.argv[1])
import cvisor
s = cvisor.SandboxSession(memory="64M")
s.open()
sb = cvisor.Sandbox()
threading.Thread(target=s.run, args=("touch started; sleep 6016",), daemon=True).start()
threading.Thread(target=sb.run, args=("sleep 6017",), daemon=True).start()
while not os.path.exists(os.path.join(s.workspace, "started")):
    time.sleep(0.01)
time.sleep(0.3)
print(os.path.dirname(s.workspace), flush=True)
time.sleep(600)
"""


def test_nothing_left_after_sigkill():
    p, tag = spawn_tagged(CHILD)
    try:
        root = p.stdout.readline().strip()
        assert root and os.path.isdir(root)
        deadline = time.monotonic() + 15  # the second run may still be starting on a loaded machine
        while len(sleepers()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(sleepers()) == 2
        pids = tagged_processes(tag)
        assert p.pid in pids and len(pids) >= 4  # python, its two keepers and a run's supervisor at least
        pids.remove(p.pid)
        p.send_signal(signal.SIGKILL)
        p.wait(10)
        assert wait_gone(pids) == []
        deadline = time.monotonic() + 15
        while os.path.exists(root) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not os.path.exists(root)
        assert tagged_processes(tag) == []
        assert sleepers() == []
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
