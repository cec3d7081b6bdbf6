"""parse_size, SandboxSession's argument checks and lifecycle errors, and
the names of the remote service: no sandbox runs here."""
import os
import sys

import pytest

import cvisor
from cvisor import SandboxPolicyError, SandboxSession, parse_size


@pytest.mark.parametrize("text,value", [
    ("0", 0), ("123", 123), ("1k", 1024), ("1K", 1024), ("1kb", 1024), ("1KiB", 1024), ("2M", 2 << 20),
    ("2mib", 2 << 20), ("1.5G", 3 << 29), ("1.5gb", 3 << 29), ("1T", 1 << 40), (" 64 MB ", 64 << 20),
    (".5k", 512), (4096, 4096), (0, 0),
])
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("bad", ["", "M", "12X", "1.2.3", "-1", "1e3", "ib", "1 iB", "12 bytes", True, False,
                                 1.5, None, [1], b"1M", -5])
def test_parse_size_refuses(bad):
    with pytest.raises(SandboxPolicyError) as e:
        parse_size(bad, "memory")
    assert "memory" in str(e.value)
    assert "512M" in str(e.value)  # shows how to write one


@pytest.mark.parametrize("kwargs,word", [
    ({"cpus": 0}, "cpus"), ({"cpus": -1}, "cpus"), ({"cpus": "2"}, "cpus"), ({"cpus": True}, "cpus"),
    ({"memory": "lots"}, "memory"), ({"max_file_size": "1Q"}, "max_file_size"),
    ({"processes": 7}, "processes"), ({"processes": 2.5}, "processes"), ({"open_files": 15}, "open_files"),
    ({"cpu_seconds": 0}, "cpu_seconds"), ({"network": "wifi"}, "network"), ({"network": 1}, "network"),
    ({"backend": "docker"}, "backend"), ({"memory_strategy": "swap"}, "memory_strategy"),
    ({"timeout": -1}, "timeout"), ({"timeout": "10"}, "timeout"), ({"env": {"A=B": "x"}}, "env"),
    ({"env": ["A"]}, "env"), ({"writable": [3]}, "writable"),
])
def test_constructor_checks_every_argument(kwargs, word):
    with pytest.raises(SandboxPolicyError) as e:
        SandboxSession(**kwargs)
    assert word in str(e.value)


def test_constructor_accepts():
    s = SandboxSession(memory="256M", cpus=0.5, cpu_seconds=10, processes=8, max_file_size=1 << 20,
                       open_files=16, network=cvisor.NetworkMode.OUTBOUND, writable=["/var/tmp"],
                       deny_write=(), deny_read="/etc/hostname", env={"A": "1"}, timeout=None,
                       backend="cvisor", require_isolation=True, memory_strategy="cgroup")
    assert not s.is_open
    assert "new" in repr(s)
    assert SandboxSession(network=True)._network is cvisor.NetworkMode.OUTBOUND
    assert SandboxSession(network="host")._network is cvisor.NetworkMode.HOST


def test_errors_hierarchy():
    for e in (cvisor.SandboxPolicyError, cvisor.SandboxClosedError, cvisor.SandboxCommandError,
              cvisor.SandboxUnavailableError):
        assert issubclass(e, cvisor.SandboxError)


def test_workspace_before_open():
    s = SandboxSession()
    with pytest.raises(cvisor.SandboxClosedError) as e:
        s.workspace
    assert "not open yet" in str(e.value)


def test_given_workspace_must_be_a_directory(tmp_path):
    with pytest.raises(SandboxPolicyError) as e:
        SandboxSession(tmp_path / "missing").open()
    assert "no such directory" in str(e.value)
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(SandboxPolicyError) as e:
        SandboxSession(f).open()
    assert "not a directory" in str(e.value)


def test_passthrough_refused_with_require_isolation():
    with pytest.raises(cvisor.SandboxUnavailableError) as e:
        SandboxSession(backend="passthrough", require_isolation=True)
    assert "unisolated" in str(e.value)


def test_passthrough_runs_unisolated_and_says_so(tmp_path):
    with SandboxSession(backend="passthrough") as s:
        assert "unisolated" in s.capabilities()["isolation"]
        assert s.sandbox is None
        r = s.run("echo hi > f; cat f; echo $TMPDIR")
        assert r.succeeded
        assert r.stdout.splitlines()[0] == "hi"
        assert r.stdout.splitlines()[1].endswith("/tmp")
        assert os.path.exists(os.path.join(s.workspace, "f"))
        t = s.run(["sh", "-c", "head -c 5000 /dev/zero; sleep 5 & sleep 5; wait"], timeout=0.5, max_output_bytes=100)
        assert t.timed_out and t.exit_code == 137
        assert t.resources.limits_hit == ("timeout", "max_output_bytes")
        assert t.stdout_truncated and len(t.stdout) == 100


def test_remote_names_are_the_client():
    # no server here: the client is made without a connection, a call fails clearly
    c = cvisor.GraphQLClient("https://example.invalid/graphql", "secret-tok-9f", timeout=5)
    assert "secret-tok-9f" not in repr(c)
    with pytest.raises(cvisor.GraphQLError) as e:
        cvisor.RemoteSandbox("http://127.0.0.1:9/graphql", "t", timeout=5)
    assert "127.0.0.1:9" in str(e.value)
    assert issubclass(cvisor.GraphQLError, Exception)


def test_sandbox_off_linux_points_to_remote(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(RuntimeError) as e:
        cvisor.Sandbox()
    assert "RemoteSandbox" in str(e.value)


def test_load_library_names_what_it_tried(tmp_path):
    with pytest.raises(OSError) as e:
        cvisor.load_library(str(tmp_path / "libnope.so"))
    assert "libnope.so" in str(e.value)


def test_public_names_documented():
    for name in cvisor.__all__:
        obj = getattr(cvisor, name)
        if callable(obj):
            assert obj.__doc__, name
