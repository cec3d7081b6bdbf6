"""cvisor.Sandbox, Output and Session through the real libcvisor."""
import ctypes
import errno
import os
import threading

import pytest

import cvisor


def test_bytes_released_with_cvisor_bytes_free(sandbox):
    lib = sandbox._lib
    real = lib.cvisor_bytes_free
    freed = []

    def counting(ptr, n):
        freed.append(n)
        real(ptr, n)

    lib.cvisor_bytes_free = counting
    try:
        sandbox.write_file("/workspace/f", b"12345")
        assert sandbox.read_file("/workspace/f") == b"12345"
        o = sandbox.run("echo abc; echo de >&2")
    finally:
        lib.cvisor_bytes_free = real
    assert freed == [5, 4, 3]
    assert o.stderr == "de\n"


def test_run_argv_env_and_cap_for_one_run(sandbox):
    sandbox.set_env("A", "sandbox")
    o = sandbox.run_argv(["sh", "-c", 'echo "$A $B"'], env={"A": "run", "B": "2"})
    assert o.stdout == "run 2\n"
    assert sandbox.run('echo "$A $B"').stdout == "sandbox \n"  # this run's only
    o = sandbox.run_argv(["echo", "0123456789"], max_output_bytes=4)
    assert o.stdout == "0123"
    assert o.report["output_truncated"]["stdout"] is True
    assert sandbox.run("echo 0123456789").stdout == "0123456789\n"


def test_run_error_carries_errno(sandbox):
    with pytest.raises(cvisor.SandboxRunError) as e:
        sandbox.run_argv(["true"], env={"": "x"})
    assert e.value.errno == errno.EINVAL
    assert "not NAME=value" in str(e.value)


def test_refused_option_raises_with_message(sandbox):
    with pytest.raises(OSError) as e:
        sandbox.set_option("rootfs", "/srv")
    assert "host's root" in str(e.value)
    with pytest.raises(OSError) as e:
        sandbox.set_option("no_such_key", "1")
    assert "not a policy key" in str(e.value)
    sandbox.set_limits(pids_max=3)  # below the policy's minimum: the next run says so
    with pytest.raises(cvisor.SandboxRunError) as e:
        sandbox.run("true")
    assert "processes" in str(e.value)


def test_set_context_after_start_is_ebusy(sandbox):
    sandbox.run("true")
    with pytest.raises(OSError) as e:
        sandbox.set_context(helper_path=os.environ.get("CVISOR_HELPER"))
    assert e.value.errno == errno.EBUSY
