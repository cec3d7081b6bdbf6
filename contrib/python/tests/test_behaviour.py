"""The behaviour of cvisor.Sandbox, run against both a local Sandbox and a
RemoteSandbox of a cvisor-server on loopback: code written for one runs
unchanged on the other. (test_sandbox.py: what only the local one has.)"""
import errno
import os
import threading

import pytest

import cvisor
from conftest import HAVE_SERVER_DEPS, skip_unless_enforced


@pytest.fixture(params=["local", "remote"])
def kind(request):
    if request.param == "remote" and not HAVE_SERVER_DEPS:
        pytest.skip("python3-aiohttp and python3-graphql-core are not installed")
    return request.param


@pytest.fixture
def make_sandbox(kind, request):
    """A function making sandboxes of this test's kind; all closed after it."""
    made = []

    def make():
        sb = cvisor.Sandbox() if kind == "local" else request.getfixturevalue("server_a").sandbox("alice")
        made.append(sb)
        return sb

    yield make
    for sb in made:
        sb.close()


@pytest.fixture
def sandbox(make_sandbox):
    return make_sandbox()


@pytest.fixture
def cache_backend(kind, tmp_path):
    # a local sandbox names a directory; a remote one uses the server's disk cache
    return "disk:%s" % tmp_path if kind == "local" else ""


def test_run_output_and_report(sandbox):
    o = sandbox.run("echo out; printf 'caf\\303\\251 \\377' >&2; exit 3")
    assert o.exit_code == 3
    assert o.stdout_bytes == b"out\n"
    assert o.stdout == "out\n"
    assert o.stderr == "caf\u00e9 \ufffd"
    assert o.report["timed_out"] is False
    assert set(o.report["limits_hit"]) >= {"memory", "processes", "cpu_seconds"}
    assert "peak_memory_bytes" in o.report and "cpu_seconds" in o.report


def test_persistence_across_runs_not_on_host(sandbox, make_sandbox):
    sandbox.write_file("/workspace/a.txt", "from write_file")
    sandbox.run("echo from-run > /workspace/b.txt")
    assert sandbox.run("cat a.txt b.txt").stdout == "from write_file" + "from-run\n"
    assert sandbox.read_file("/workspace/b.txt") == b"from-run\n"
    assert not os.path.exists("/workspace/b.txt")  # never on the host
    with make_sandbox() as other:  # nor in another sandbox
        assert other.run("cat /workspace/b.txt").exit_code != 0


def test_read_file_empty_missing_and_errors(sandbox):
    sandbox.write_file("/workspace/empty", b"")
    assert sandbox.read_file("/workspace/empty") == b""
    with pytest.raises(FileNotFoundError) as e:
        sandbox.read_file("/workspace/missing")
    assert e.value.filename == "/workspace/missing"
    assert "missing" in e.value.strerror
    with pytest.raises(OSError) as e:
        sandbox.write_file("/tmp/x", b"x")
    assert e.value.errno == errno.EXDEV
    assert e.value.filename == "/tmp/x"


def test_copy_into_and_out(sandbox, tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(bytes(range(256)) * 10)
    sandbox.copy_into(str(src), "/workspace/in.bin")
    assert sandbox.run("wc -c < in.bin").stdout.strip() == "2560"
    dst = tmp_path / "out.bin"
    sandbox.copy_out("/workspace/in.bin", str(dst))
    assert dst.read_bytes() == src.read_bytes()
    with pytest.raises(FileNotFoundError):
        sandbox.copy_out("/workspace/none", str(tmp_path / "x"))


def test_copy_into_a_directory(sandbox, tmp_path):
    d = tmp_path / "tree"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "f").write_text("deep")
    sandbox.copy_into(str(d), "/workspace/tree")
    assert sandbox.run("cat /workspace/tree/sub/f").stdout == "deep"
    out = tmp_path / "back"
    sandbox.copy_out("/workspace/tree", str(out))
    assert (out / "sub" / "f").read_text() == "deep"


def test_cache_save_and_restore(sandbox, make_sandbox, cache_backend):
    sandbox.run("mkdir -p /workspace/deps && echo cached > /workspace/deps/x")
    backend = cache_backend
    sandbox.cache_save("/workspace/deps", "k1", backend=backend)
    with make_sandbox() as fresh:
        fresh.cache_restore("/workspace/deps", "k1", backend=backend)
        assert fresh.run("cat /workspace/deps/x").stdout == "cached\n"
        with pytest.raises(OSError):
            fresh.cache_restore("/workspace/deps", "no-such-key", backend=backend)


def test_timeout_is_137(sandbox):
    o = sandbox.run("sleep 30", timeout_ms=300)
    assert o.exit_code == 137
    assert o.report["timed_out"] is True


def test_env_and_callers_token(sandbox, monkeypatch):
    monkeypatch.setenv("MY_API_TOKEN", "s3cr3t-token")
    sandbox.set_env("GREETING", "hello")
    env = sandbox.run("env").stdout
    assert "GREETING=hello" in env.splitlines()
    assert "s3cr3t-token" not in env


def test_network_off_and_listen(sandbox):
    sandbox.set_allow_network(False)
    o = sandbox.run("cat /proc/net/dev")
    ifaces = [l.split(":")[0].strip() for l in o.stdout.splitlines()[2:]]
    assert ifaces == ["lo"]
    o = sandbox.run("python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()'")
    assert o.exit_code != 0
    assert "PermissionError" in o.stderr or "Operation not permitted" in o.stderr
    sandbox.set_allow_listen(True)
    o = sandbox.run("python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()'")
    assert o.exit_code == 0, o.stderr


def test_memory_limit_reported(sandbox):
    sandbox.set_limits(memory_max=64 << 20, pids_max=64)
    o = sandbox.run("python3 -c 'b = bytearray(512 << 20); print(len(b))'")
    skip_unless_enforced(o.report, "memory")
    assert o.exit_code != 0
    assert o.report["limits_hit"]["memory"] is True


def test_run_streaming_is_live(sandbox):
    # the command waits for a file the callback creates on its first line:
    # it succeeds only if that line arrived while it ran
    got_out, got_err = [], []

    def on_stdout(text):
        got_out.append(text)
        if len(got_out) == 1:
            sandbox.write_file("/workspace/go", b"")

    cmd = ("echo first; i=0; while [ ! -e /workspace/go ]; do i=$((i+1)); [ $i -gt 400 ] && exit 9; "
           "sleep 0.05; done; echo second; echo problem >&2; exit 4")
    code = sandbox.run_streaming(cmd, on_stdout=on_stdout, on_stderr=got_err.append, poll_ms=10)
    assert code == 4
    assert "".join(got_out) == "first\nsecond\n"
    assert "".join(got_err) == "problem\n"


def test_shell_pty(sandbox):
    out = []
    done = threading.Event()

    def on_output(text):
        out.append(text)
        if "RESULT=42" in "".join(out):
            done.set()

    with sandbox.shell(on_output=on_output, poll_ms=10) as sh:
        # once the shell has printed (its prompt): a resize before the
        # session's supervisor follows SIGWINCH can be lost (libcvisor)
        for _ in range(1000):
            if out:
                break
            threading.Event().wait(0.01)
        assert out
        sh.resize(30, 100)
        assert sh.write_stdin("echo RESULT=$((6*7)); stty size; tty\n") > 0
        assert done.wait(20)
        assert sh.exit_code() is None
        sh.write_stdin(b"exit 3\n")
        assert sh.wait() == 3
    text = "".join(out)
    assert "30 100" in text
    assert "/dev/pts/" in text


def test_shell_output_has_all_gone_to_on_output_once_wait_returns(sandbox):
    """wait() returns once the output pump has delivered the end of the
    output: with a slow pump (300 ms between reads) the last line, written
    just before the shell exits, is in what on_output got."""
    out = []
    with sandbox.shell(on_output=out.append, poll_ms=300) as sh:
        assert sh.write_stdin("echo LAST-$((40+2)); exit 5\n") > 0
        assert sh.wait() == 5
        assert "LAST-42" in "".join(out)


def test_session_reads_and_kill(sandbox):
    s = sandbox._session("echo o; echo e >&2; sleep 60", False)
    try:
        got = b""
        for _ in range(400):
            got += s.read_stdout()
            if got:
                break
            threading.Event().wait(0.02)
        assert got == b"o\n"
        with pytest.raises(OSError) as e:
            s.write_stdin("x")
        assert e.value.errno == errno.EPIPE
        s.kill()
        assert s.wait() == 137
        assert s.read_stderr() == b"e\n"
    finally:
        s.close()
    with pytest.raises(ValueError):
        s.read_stdout()


def test_closed_sandbox_refuses(sandbox):
    sandbox.run("true")
    sandbox.close()
    sandbox.close()
    with pytest.raises(ValueError):
        sandbox.run("true")


def test_threads_share_a_sandbox(sandbox):
    results = {}

    def one(i):
        results[i] = sandbox.run("echo %d" % i).stdout

    ts = [threading.Thread(target=one, args=(i,)) for i in range(10)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert results == {i: "%d\n" % i for i in range(10)}

def test_copy_into_applies_the_ignore_rules(sandbox, tmp_path):
    d = tmp_path / "proj"
    (d / "build").mkdir(parents=True)
    (d / "src").mkdir()
    (d / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (d / "build" / "out.o").write_text("x")
    (d / "a.log").write_text("x")
    (d / "keep.log").write_text("kept")
    (d / "src" / "main.c").write_text("int main;")
    sandbox.copy_into(str(d), "/workspace/proj")
    found = sorted(sandbox.run("cd /workspace/proj && find . -mindepth 1 | sort").stdout.split())
    assert found == ["./.gitignore", "./keep.log", "./src", "./src/main.c"]


def test_copy_into_a_bad_dockerignore_is_an_error_naming_its_line(sandbox, tmp_path):
    d = tmp_path / "proj"
    d.mkdir()
    (d / ".dockerignore").write_text("ok\nbad[\n")
    (d / "f").write_text("x")
    with pytest.raises(OSError) as e:
        sandbox.copy_into(str(d), "/workspace/proj")
    assert e.value.errno == errno.EINVAL
    assert e.value.filename == str(d)
    assert e.value.strerror.endswith("copy_into `%s`: `.dockerignore`, line 2: bad pattern `bad[`" % d)
    assert sandbox.run("test -e /workspace/proj").exit_code != 0


def test_copy_out_of_a_file_replaces_and_missing_host_path_raises(sandbox, tmp_path):
    sandbox.write_file("/workspace/f", b"\x00\xffbinary")
    dst = tmp_path / "f"
    dst.write_text("old")
    sandbox.copy_out("/workspace/f", str(dst))
    assert dst.read_bytes() == b"\x00\xffbinary"
    with pytest.raises(FileNotFoundError) as e:
        sandbox.copy_into(str(tmp_path / "missing"), "/workspace/m")
    assert e.value.filename == str(tmp_path / "missing")


def test_a_refused_limit_fails_the_next_run(sandbox):
    sandbox.set_limits(pids_max=3)  # below the policy's minimum
    with pytest.raises(cvisor.SandboxRunError) as e:
        sandbox.run("true")
    assert "processes" in str(e.value)


def test_cancel_from_another_thread(sandbox):
    outcome = []
    t = threading.Thread(target=lambda: outcome.append(sandbox.run("touch /workspace/go; sleep 60; echo never")))
    t.start()
    for _ in range(1000):
        if sandbox.run("test -e /workspace/go").exit_code == 0:
            break
    sandbox.cancel()
    t.join(30)
    assert not t.is_alive()
    assert outcome[0].exit_code == 137
    assert outcome[0].report["cancelled"] is True
    assert outcome[0].stdout == ""
    assert sandbox.run("echo again").stdout == "again\n"  # still usable
