"""cvisor.SandboxSession through the real libcvisor."""
import asyncio
import concurrent.futures
import os
import pathlib
import shutil
import tempfile
import threading
import time
import warnings

import pytest

import cvisor
from conftest import skip_unless_enforced
from cvisor import SandboxClosedError, SandboxCommandError, SandboxSession

def test_lifecycle_and_cleanup():
    s = SandboxSession()
    s.open()
    root = os.path.dirname(s.workspace)
    assert os.path.isdir(os.path.join(root, "tmp"))
    assert s.is_open and "open" in repr(s)
    assert isinstance(s.sandbox, cvisor.Sandbox)
    with pytest.raises(cvisor.SandboxError):
        s.open()
    s.close()
    assert not os.path.exists(root)
    s.close()  # harmless
    with pytest.raises(SandboxClosedError) as e:
        s.workspace
    assert "closed" in str(e.value)
    with pytest.raises(cvisor.SandboxError):
        s.open()
    with pytest.raises(SandboxClosedError):
        s.run("true")


def test_given_workspace_is_used_and_kept(tmp_path):
    (tmp_path / "in.txt").write_text("given\n")
    with SandboxSession(tmp_path) as s:
        assert s.workspace == str(tmp_path)
        r = s.run("cat in.txt; echo made > out.txt; pwd")
        assert r.stdout == "given\n%s\n" % tmp_path
        root = os.path.dirname(s.run("echo $TMPDIR").stdout.strip())
    assert (tmp_path / "out.txt").read_text() == "made\n"
    assert not os.path.exists(root)


def test_persistence_across_runs(session):
    session.run("echo one > f; mkdir -p d/e")
    session.run(["sh", "-c", "cat f >> d/e/g"])
    assert session.run(["cat", "d/e/g"]).stdout == "one\n"
    with open(os.path.join(session.workspace, "d/e/g")) as f:
        assert f.read() == "one\n"


def test_list_runs_unparsed_cwd_input_env(session):
    os.mkdir(os.path.join(session.workspace, "sub"))
    r = session.run(["printf", "%s|", "a b", "$HOME", "*", ";"], cwd="sub")
    assert r.stdout == "a b|$HOME|*|;|"
    assert session.run("pwd", cwd="sub").stdout.strip() == os.path.join(session.workspace, "sub")
    assert session.run(["tr", "a-z", "A-Z"], input="shout").stdout == "SHOUT"
    assert session.run(["cat"], input=b"\x00\x01").stdout == "\x00\x01"
    assert session.run("echo $ONLY_ME", env={"ONLY_ME": "here"}).stdout == "here\n"
    assert session.run("echo ${ONLY_ME:-gone}").stdout == "gone\n"
    tmp = session.run("echo $TMPDIR; echo x > $TMPDIR/t; cat $TMPDIR/t").stdout.split()
    assert tmp[0].endswith("/tmp") and tmp[1] == "x"


def test_outside_the_workspace_is_read_only(session):
    r = session.run("touch /usr/cvisor-test-file")
    assert r.exit_code != 0
    assert not os.path.exists("/usr/cvisor-test-file")
    r = session.run("echo x > /tmp/private; ls /tmp")
    assert r.succeeded
    assert not os.path.exists("/tmp/private")


def test_network_off_by_default(session):
    r = session.run("cat /proc/net/dev")
    assert [l.split(":")[0].strip() for l in r.stdout.splitlines()[2:]] == ["lo"]
    r = session.run(["python3", "-c", "import socket; socket.create_connection(('1.1.1.1', 53), timeout=3)"])
    assert r.exit_code != 0
    assert "unreachable" in r.stderr.lower()


@pytest.fixture
def shared_dir():
    """A directory the sandboxed program could read but for the masks (the
    sandbox's /tmp is its own, and pytest's tmp_path is private)."""
    d = tempfile.mkdtemp(dir="/var/tmp", prefix="cvisor-pytest-")
    os.chmod(d, 0o755)
    yield pathlib.Path(d)
    shutil.rmtree(d)


def test_credential_file_unreadable(shared_dir, monkeypatch):
    tmp_path = shared_dir
    secret = tmp_path / "credentials"
    secret.write_text("AKIA-SECRET")
    secret.chmod(0o644)
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = HOME-SECRET\n")
    for p in (tmp_path, home, home / ".aws", home / ".aws" / "credentials"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    monkeypatch.setenv("HOME", str(home))  # the credential list's ~
    with SandboxSession(deny_read=[str(secret)]) as s:
        # masked: missing, unreadable or empty, never its content
        assert s.run(["ls", str(tmp_path)]).stdout.split() == ["credentials", "home"]
        r = s.run(["cat", str(secret)])
        assert r.stdout == ""
        # the default credential list: ~/.aws, and /etc/ssh whose files are world-readable on the host
        r = s.run(["cat", str(home / ".aws" / "credentials")])
        assert r.stdout == ""
        if os.access("/etc/ssh/ssh_config", os.R_OK) and os.stat("/etc/ssh/ssh_config").st_mode & 0o004:
            r = s.run(["cat", "/etc/ssh/ssh_config"])
            assert r.stdout == ""
        r = s.run(["cat", "/etc/shadow"])
        assert r.stdout == ""


def test_callers_token_does_not_reach_the_command(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-caller-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_caller_secret")
    with SandboxSession(env={"MINE": "1"}) as s:
        env = s.run("env").stdout
    assert "caller-secret" not in env and "caller_secret" not in env
    assert "MINE=1" in env.splitlines()


def test_memory_limit_hit_and_reported():
    with SandboxSession(memory="64M") as s:
        r = s.run(["python3", "-c", "b = bytearray(512 << 20)"])
        skip_unless_enforced(r, "memory")
        assert "memory" in r.resources.limits_hit
        assert not r.succeeded
        assert r.resources.peak_memory_bytes and r.resources.peak_memory_bytes <= 64 << 20
        with pytest.raises(SandboxCommandError) as e:
            s.run(["python3", "-c", "import sys; print('boom', file=sys.stderr); b = bytearray(512 << 20)"],
                  check=True)
        assert "hit its memory limit (exit status" in str(e.value)
        assert e.value.result.exit_code != 0


def test_limit_processes_hit_and_reported():
    with SandboxSession(processes=8) as s:
        r = s.run("for i in $(seq 30); do sleep 5 & done; wait", timeout=20)
        skip_unless_enforced(r, "processes")
        assert "processes" in r.resources.limits_hit
        assert "fork" in r.stderr.lower() or "resource" in r.stderr.lower()


def test_limit_cpu_seconds_hit_and_reported():
    with SandboxSession(cpu_seconds=1) as s:
        r = s.run("while :; do :; done", timeout=30)
        assert "cpu_seconds" in r.resources.limits_hit
        assert r.resources.cpu_seconds is not None and r.resources.cpu_seconds > 0.5


def test_limit_max_file_size_hit_and_reported():
    with SandboxSession(max_file_size="4K") as s:
        r = s.run("head -c 100000 /dev/zero > big")
        assert "max_file_size" in r.resources.limits_hit
        assert os.path.getsize(os.path.join(s.workspace, "big")) <= 4096


def test_limit_open_files_hit_and_reported():
    with SandboxSession(open_files=16) as s:
        r = s.run(["python3", "-c", "fs = [open('/dev/null') for _ in range(100)]"])
        assert r.exit_code != 0
        assert "Too many open files" in r.stderr


def test_limit_timeout_hit_and_reported():
    with SandboxSession(timeout=0.5) as s:
        r = s.run("sleep 30")
        assert r.timed_out and r.exit_code == 137 and not r.succeeded
        assert "timeout" in r.resources.limits_hit
        with pytest.raises(SandboxCommandError) as e:
            s.run("sleep 30", check=True)
        assert str(e.value).startswith("command 'sleep 30' timed out")
        assert s.run("sleep 2", timeout=10).succeeded  # the call's own limit


def test_limit_max_output_bytes_hit_and_reported():
    with SandboxSession() as s:
        r = s.run("head -c 100000 /dev/zero | tr '\\0' x", max_output_bytes="1K")
        assert r.stdout_truncated and len(r.stdout) == 1024
        assert "max_output_bytes" in r.resources.limits_hit
        assert not s.run("echo short", max_output_bytes=1024).stdout_truncated


def test_check_message_for_exit_status(session):
    with pytest.raises(SandboxCommandError) as e:
        session.run("for i in 1 2 3 4 5 6 7; do echo line$i >&2; done; exit 3", check=True)
    msg = str(e.value)
    assert msg.splitlines()[0] == "command 'for i in 1 2 3 4 5 6 7; do echo line$i >&2; done; exit 3' " \
                                  "exited with status 3"
    assert msg.splitlines()[1:] == ["line3", "line4", "line5", "line6", "line7"]
    assert e.value.result.exit_code == 3
    with pytest.raises(SandboxCommandError) as e:
        session.run(["false"], check=True)
    assert str(e.value) == "command 'false' exited with status 1"
    ok = session.run(["true"], check=True)
    assert ok.succeeded and ok.duration > 0


def test_cancel_on_close_from_another_thread():
    s = SandboxSession()
    s.open()
    marker = os.path.join(s.workspace, "started")
    outcome = []

    def runner():
        try:
            outcome.append(s.run("touch started; sleep 60; echo never", timeout=120))
        except BaseException as e:  # noqa: B902 - what the run raised is the assertion
            outcome.append(e)

    t = threading.Thread(target=runner)
    t.start()
    for _ in range(1000):
        if os.path.exists(marker):
            break
        time.sleep(0.01)
    assert os.path.exists(marker)
    began = time.monotonic()
    s.close()
    t.join(30)
    assert not t.is_alive()
    assert time.monotonic() - began < 10  # cancelled, not waited for
    assert isinstance(outcome[0], SandboxClosedError), outcome
    assert "closed while" in str(outcome[0])
    assert not os.path.exists(os.path.dirname(os.path.dirname(marker)))


def test_twenty_threads(session):
    with concurrent.futures.ThreadPoolExecutor(20) as ex:
        futs = [ex.submit(session.run, ["sh", "-c", "echo $0 > f$0; cat f$0", str(i)]) for i in range(20)]
        outs = [f.result().stdout for f in futs]
    assert outs == ["%d\n" % i for i in range(20)]


def test_fifty_concurrent_arun():
    async def main():
        async with SandboxSession() as s:
            # called from inside the loop, both ways
            assert s.run(["echo", "sync"]).stdout == "sync\n"
            results = await asyncio.gather(*(s.arun(["echo", str(i)]) for i in range(50)))
            return [r.stdout for r in results]

    loop = asyncio.new_event_loop()
    loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(50))
    try:
        outs = loop.run_until_complete(main())
    finally:
        loop.close()
    assert outs == ["%d\n" % i for i in range(50)]


def test_capabilities(session):
    caps = session.capabilities()
    for limit in ("memory", "processes", "cpu_seconds", "max_file_size", "open_files", "timeout"):
        assert caps.get(limit), caps


def test_close_warns_when_it_cannot_remove(monkeypatch):
    s = SandboxSession()
    s.open()
    root = os.path.dirname(s.workspace)
    import cvisor.session as mod
    monkeypatch.setattr(mod, "_remove_tree", lambda p: "%s: Device or resource busy" % p)
    with pytest.warns(ResourceWarning, match="cannot remove"):
        s.close()
    monkeypatch.undo()
    mod._remove_tree(root)


def test_finalizer_removes_dropped_session():
    s = SandboxSession()
    s.open()
    root = os.path.dirname(s.workspace)
    s.run("true")
    del s
    import gc
    gc.collect()
    assert not os.path.exists(root)


def test_network_modes():
    with SandboxSession(network=True) as s:  # outbound: an interface besides lo
        r = s.run("cat /proc/net/dev")
        assert r.succeeded, r.stderr
        assert len(r.stdout.splitlines()[2:]) == 2
    with SandboxSession(network=cvisor.NetworkMode.HOST) as s:  # the host's own interfaces
        with open("/proc/net/dev") as f:
            host = sorted(l.split(":")[0].strip() for l in f.read().splitlines()[2:])
        r = s.run("cat /proc/net/dev")
        assert sorted(l.split(":")[0].strip() for l in r.stdout.splitlines()[2:]) == host


def test_memory_strategy_cgroup_refuses_unenforced_limits():
    with SandboxSession(memory="64M") as s:
        enforced = "memory" not in s.run(["true"]).resources.not_enforced
    with SandboxSession(memory="64M", memory_strategy="cgroup") as s:
        if enforced:
            assert s.run(["true"]).succeeded
        else:
            with pytest.raises(cvisor.SandboxUnavailableError) as e:
                s.run(["true"])
            assert "memory cannot be enforced" in str(e.value)
