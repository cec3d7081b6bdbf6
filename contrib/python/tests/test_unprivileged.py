"""As another user than root: libcvisor's sandboxes are root only for now,
so the first use must fail with libcvisor's clear ENOTSUP message, raised
as an exception (not a hang, not a silent success)."""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

import pytest

import cvisor

CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
import cvisor
try:
    cvisor.Sandbox().run("true")
    print("Sandbox: ran")
except cvisor.SandboxRunError as e:
    print("Sandbox:", e)
with cvisor.SandboxSession() as s:
    try:
        s.run(["true"])
        print("SandboxSession: ran")
    except cvisor.SandboxUnavailableError as e:
        print("SandboxSession:", e)
    root = s.workspace
import os
print("left:", os.path.exists(root))
"""


def as_nobody(args):
    if os.geteuid() == 0:
        return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"] + args
    return args


@pytest.mark.skipif(os.geteuid() == 0 and not shutil.which("setpriv"), reason="setpriv (util-linux) is missing")
def test_unprivileged_first_use_fails_clearly():
    pkg = tempfile.mkdtemp()
    try:
        shutil.copytree(os.path.dirname(os.path.abspath(cvisor.__file__)), os.path.join(pkg, "cvisor"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.chmod(pkg, 0o755)
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "CVISOR_LIB", "CVISOR_HELPER",
                                                             "CVISOR_SLIRP_HOOK", "LANG")}
        env["HOME"] = "/nonexistent"
        run_dir = os.path.join(pkg, "run")
        os.mkdir(run_dir, 0o700)
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(run_dir, nobody.pw_uid, nobody.pw_gid)
        env["XDG_RUNTIME_DIR"] = run_dir
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        p = subprocess.run(as_nobody([sys.executable, "-c", CHILD, pkg]), env=env, capture_output=True, text=True,
                           timeout=120, cwd="/")
    finally:
        shutil.rmtree(pkg)
    assert p.returncode == 0, p.stderr
    lines = dict(l.split(": ", 1) for l in p.stdout.splitlines())
    assert "needs root for now" in lines["Sandbox"], p.stdout
    assert lines["SandboxSession"] == lines["Sandbox"], p.stdout
    assert lines["left"] == "False"
