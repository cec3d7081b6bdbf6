"""Fixtures of the cvisor package's tests: they run through the real
libcvisor (CVISOR_LIB) and its helper (CVISOR_HELPER), set by the test
driver tests/python/sdk.bats of the build tree."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cvisor  # noqa: E402

ROOT = os.geteuid() == 0
# libcvisor's sandboxes need root for now (cvisor-sandbox(3), LIMITATIONS)
needs_root = pytest.mark.skipif(not ROOT, reason="libcvisor sandboxes are root only for now "
                                "(test_unprivileged.py checks the clear failure instead)")


def pytest_configure(config):
    config.addinivalue_line("markers", "root: needs root (libcvisor's sandboxes are root only for now)")


@pytest.fixture
def sandbox():
    sb = cvisor.Sandbox()
    yield sb
    sb.close()


@pytest.fixture
def session():
    s = cvisor.SandboxSession(timeout=60)
    s.open()
    yield s
    s.close()


TAG = "CVISOR_PYTEST_TAG"


def tagged_processes(tag):
    """pids of the processes whose environment has TAG=<tag>."""
    want = ("%s=%s" % (TAG, tag)).encode()
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if want in f.read().split(b"\0"):
                    out.append(int(pid))
        except OSError:
            pass
    return out


def _cgroup_bases():
    bases = []
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrl, path = line.rstrip("\n").split(":", 2)
            if ctrl == "":
                mount = "/sys/fs/cgroup/unified" if os.path.isdir("/sys/fs/cgroup/unified") else "/sys/fs/cgroup"
            else:
                mount = "/sys/fs/cgroup/" + ctrl.replace("name=", "")
            bases.append(mount + path)
    return bases


def leftovers(pids):
    """What is left of the processes PIDS (a session's keeper, supervisors
    and runs): those still alive, their run cgroups (do-PID-*) below this
    process's cgroups, their keeper mount point directories."""
    left = ["process %d" % p for p in pids if os.path.exists("/proc/%d" % p)]
    prefixes = tuple("do-%d-" % p for p in pids)
    for base in _cgroup_bases():
        try:
            names = os.listdir(base)
        except OSError:
            continue
        left += ["cgroup " + os.path.join(base, n) for n in names if n.startswith(prefixes)]
    left += ["keeper dir /run/cvisor-keepers/keeper-%d" % p for p in pids
             if os.path.lexists("/run/cvisor-keepers/keeper-%d" % p)]
    with open("/proc/self/mountinfo") as f:
        mi = f.read()
    left += ["mount of keeper-%d" % p for p in pids if "/keeper-%d " % p in mi]
    return left
