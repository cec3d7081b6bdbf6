"""Fixtures of the cvisor package's tests: they run through the real
libcvisor (CVISOR_LIB) and its helper (CVISOR_HELPER), set by the test
driver tests/python/sdk.bats of the build tree."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cvisor  # noqa: E402

# where the keepers' mount points are (cvisor-sandbox(3)): under the state
# root's sibling, /run/cvisor for root, $XDG_RUNTIME_DIR/cvisor otherwise
KEEPERS = "/run/cvisor-keepers" if os.geteuid() == 0 else os.path.join(os.environ.get("XDG_RUNTIME_DIR", "/nonexistent"),
                                                                         "cvisor-keepers")


def skip_unless_enforced(result, limit):
    """Skip the rest of a test when this machine could not enforce LIMIT for
    RESULT's run (an unprivileged caller without a delegated cgroup): the
    report must then say so."""
    if limit in result.resources.not_enforced:
        pytest.skip("%s is not enforced here (the run's report says so: no delegated cgroup)" % limit)


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
    left += ["keeper dir %s/keeper-%d" % (KEEPERS, p) for p in pids
             if os.path.lexists("%s/keeper-%d" % (KEEPERS, p))]
    with open("/proc/self/mountinfo") as f:
        mi = f.read()
    left += ["mount of keeper-%d" % p for p in pids if "/keeper-%d " % p in mi]
    return left
