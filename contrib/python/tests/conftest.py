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
    report must then say so. RESULT: a SandboxSession result, or the report
    of a Sandbox or RemoteSandbox run (Output.report)."""
    not_enforced = result["not_enforced"] if isinstance(result, dict) else result.resources.not_enforced
    if limit in not_enforced:
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


def spawn_tagged(code):
    """A Python process running CODE with this package on its path (its
    argv[1]), tagged with a new tag (its keepers inherit it): (Popen, tag)."""
    import subprocess
    import uuid
    tag = uuid.uuid4().hex
    env = dict(os.environ)
    env[TAG] = tag
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(cvisor.__file__)))
    return subprocess.Popen([sys.executable, "-c", code, pkg], env=env, stdout=subprocess.PIPE, text=True), tag


def wait_gone(pids, seconds=15):
    """leftovers(PIDS) once they are gone, or after SECONDS."""
    import time
    deadline = time.monotonic() + seconds
    while True:
        left = leftovers(pids)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


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


# ---- the remote service: cvisor-server processes on loopback ----

PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

try:
    import aiohttp  # noqa: F401
    import graphql  # noqa: F401
    HAVE_SERVER_DEPS = True
except ImportError:
    HAVE_SERVER_DEPS = False

needs_server = pytest.mark.skipif(not HAVE_SERVER_DEPS, reason="python3-aiohttp and python3-graphql-core are "
                                  "not installed (contrib/check.sh installs them)")


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    # a server outlives no test run, even a killed one: SIGTERM makes it remove its sandboxes
    import ctypes
    import signal
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class ServerProc:
    """A cvisor-server this test run started: its tokens (id -> token), its
    state root, its log. stop() ends only this process."""

    def __init__(self, base, name, tokens, args=(), tls=None):
        from cvisor.server.tokens import hash_token, new_token
        self.dir = str(base)
        os.makedirs(self.dir, exist_ok=True)
        self.name = name
        self.root = os.path.join(self.dir, "root")
        self.tokens = {}
        lines = []
        for ident, quotas in tokens.items():
            tok = new_token()
            self.tokens[ident] = tok
            lines.append(" ".join([ident, hash_token(tok)] + list(quotas)))
        self.tokens_file = os.path.join(self.dir, "tokens")
        with open(self.tokens_file, "w") as f:
            f.write("# test tokens\n" + "\n".join(lines) + "\n")
        self.args = list(args)
        self.tls = tls
        self.port = free_port()
        self.proc = None
        self.log_path = os.path.join(self.dir, "server.log")
        scheme = "https" if tls else "http"
        self.url = "%s://127.0.0.1:%d/graphql" % (scheme, self.port)

    def start(self, wait=True):
        import subprocess
        cmd = [sys.executable, "-m", "cvisor.server", "--listen", "127.0.0.1:%d" % self.port, "--tokens",
               self.tokens_file, "--state-root", self.root, "--node", self.name] + self.args
        if self.tls:
            cmd += ["--tls-cert", self.tls[0], "--tls-key", self.tls[1]]
        env = dict(os.environ, PYTHONPATH=PKG_DIR)
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, cwd=self.dir, env=env, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=60):
        import socket
        import time
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("cvisor-server exited with %s:\n%s" % (self.proc.returncode, self.log_text()))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("cvisor-server did not listen within %ds:\n%s" % (timeout, self.log_text()))

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def log_records(self):
        import json
        return [json.loads(line) for line in self.log_text().splitlines() if line.startswith("{")]

    def stop(self, sig=None, timeout=60):
        import signal
        import subprocess
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(sig or signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        return self.proc.returncode

    def client(self, ident, **kw):
        return cvisor.GraphQLClient(self.url, self.tokens[ident], **kw)

    def sandbox(self, ident="alice", **kw):
        return cvisor.RemoteSandbox(self.url, self.tokens[ident], **kw)

    # what a server's sandboxes leave: processes of its state root, their
    # runs' cgroups, the keepers' mount points

    def processes(self):
        """pids of the keepers (cmdline names this root) and their descendants."""
        want = ("--root=" + self.root).encode()
        parent = {}
        mine = set()
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if want in f.read().split(b"\0"):
                        mine.add(int(pid))
                with open("/proc/%s/stat" % pid, "rb") as f:
                    parent[int(pid)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
        grew = True
        while grew:
            grew = False
            for p, pp in parent.items():
                if pp in mine and p not in mine:
                    mine.add(p)
                    grew = True
        return sorted(mine)

    def leftovers(self, pids):
        left = leftovers(pids)
        keepers = self.root + "-keepers"
        if os.path.isdir(keepers):
            left += ["keeper dir %s/%s" % (keepers, n) for n in os.listdir(keepers)]
        with open("/proc/self/mountinfo") as f:
            left += ["mount " + line.split()[4] for line in f if self.root in line]
        work = self.root + "-server"
        if os.path.isdir(work):
            left += ["transfer dir " + n for n in os.listdir(work) if n.startswith("xfer-")]
        return left


def _stop_and_clean(srv):
    srv.stop()
    # whatever a failed test left: the keepers died with the server; gc removes the rest
    helper = os.environ.get("CVISOR_HELPER")
    if helper:
        import subprocess
        subprocess.run([helper, "--root=" + srv.root, "gc"], capture_output=True)


@pytest.fixture(scope="session")
def server_a(tmp_path_factory):
    """Server A: tokens alice and carol (default quotas), quota (tight
    quotas), many (room for 50 clients); a 4 MiB body and depth 8."""
    if not HAVE_SERVER_DEPS:
        pytest.skip("python3-aiohttp and python3-graphql-core are not installed")
    srv = ServerProc(tmp_path_factory.mktemp("server-a"), "nodea", {
        "alice": [], "carol": [], "quota": ["sandboxes=2", "runs=1", "memory=768M"],
        "many": ["sandboxes=50", "runs=50", "memory=64G"]},
        args=["--max-body", "4M", "--max-depth", "8", "--default-memory", "256M", "--max-memory", "32G",
              "--max-runs", "24", "--threads", "96"])
    srv.start()
    yield srv
    _stop_and_clean(srv)


@pytest.fixture(scope="session")
def server_b(tmp_path_factory):
    """Server B: token bob, sandboxes idle for 1.5 s expire."""
    if not HAVE_SERVER_DEPS:
        pytest.skip("python3-aiohttp and python3-graphql-core are not installed")
    srv = ServerProc(tmp_path_factory.mktemp("server-b"), "nodeb", {"bob": []}, args=["--idle-timeout", "1.5"])
    srv.start()
    yield srv
    _stop_and_clean(srv)


@pytest.fixture
def fresh_server(tmp_path):
    """A server of this test only (to be signalled): token alice."""
    if not HAVE_SERVER_DEPS:
        pytest.skip("python3-aiohttp and python3-graphql-core are not installed")
    made = []

    def make(**kw):
        srv = ServerProc(tmp_path / ("srv%d" % len(made)), "fresh", {"alice": []}, **kw)
        made.append(srv)
        return srv

    yield make
    for srv in made:
        _stop_and_clean(srv)
