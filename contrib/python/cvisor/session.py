"""cvisor.SandboxSession: state the workspace and the budget once, run
commands like ordinary Python, and the session cleans up."""
from __future__ import annotations

import asyncio
import ctypes
import enum
import math
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
import warnings
import weakref
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

from . import _lib
from .sandbox import Output, Sandbox, SandboxRunError

__all__ = ["SandboxSession", "SandboxResult", "SandboxResources", "NetworkMode", "parse_size",
           "SandboxError", "SandboxPolicyError", "SandboxClosedError", "SandboxCommandError",
           "SandboxUnavailableError", "DEFAULT_TIMEOUT", "DEFAULT_MAX_OUTPUT_BYTES"]

#: the time limit of each command unless the session or the call sets one (seconds)
DEFAULT_TIMEOUT: float = 300.0
#: the cap on each of stdout and stderr unless the call sets one (bytes)
DEFAULT_MAX_OUTPUT_BYTES: int = 16 << 20
#: how long close() waits for the runs it cancelled (seconds)
CLOSE_WAIT: float = 10.0

_BACKENDS = ("auto", "cvisor", "passthrough")
_MEMORY_STRATEGIES = ("auto", "cgroup")
# what a passthrough run keeps of the caller's environment (as libcvisor's allowlist)
_ENV_ALLOW = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ")


class SandboxError(Exception):
    """The base class of every error of SandboxSession."""


class SandboxPolicyError(SandboxError, ValueError):
    """A policy argument that is wrong: raised where it was given."""


class SandboxClosedError(SandboxError):
    """The session is not open (not yet, or no longer)."""


class SandboxUnavailableError(SandboxError):
    """No isolation is available here (or the one asked for is not)."""


class SandboxCommandError(SandboxError):
    """A command that failed under ``check=True``; ``result`` is its SandboxResult."""

    def __init__(self, message: str, result: "SandboxResult") -> None:
        super().__init__(message)
        #: the failed command's result
        self.result: SandboxResult = result


class NetworkMode(str, enum.Enum):
    """What network a command has."""

    #: loopback only
    NONE = "none"
    #: outbound connections (through slirp4netns), nothing reaches in
    OUTBOUND = "outbound"
    #: the host's network namespace itself
    HOST = "host"


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(i?b)?\s*$", re.IGNORECASE)


def parse_size(value: Union[int, str], name: str = "size") -> int:
    """Bytes from an int or a text such as ``"512M"``, ``"1.5GiB"``, ``"64kb"``.

    K, M, G and T are powers of 1024, with or without ``B`` or ``iB``, in
    any case, and may be fractional; a bare number is bytes. Anything else
    (a bool, another type, a negative or malformed size) raises
    SandboxPolicyError naming NAME.
    """
    hint = "write a size as bytes (1048576) or with a unit: \"512M\", \"1.5G\", \"64KiB\""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise SandboxPolicyError("%s: %r is not a size: %s" % (name, value, hint))
    if isinstance(value, int):
        if value < 0:
            raise SandboxPolicyError("%s: %d is negative: %s" % (name, value, hint))
        return value
    m = _SIZE_RE.match(value)
    if not m or (m.group(3) and m.group(3).lower() == "ib" and not m.group(2)):
        raise SandboxPolicyError("%s: %r is not a size: %s" % (name, value, hint))
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


class SandboxResources:
    """What a command used, from libcvisor's report."""

    def __init__(self, limits_hit: Tuple[str, ...] = (), peak_memory_bytes: Optional[int] = None,
                 cpu_seconds: Optional[float] = None, not_enforced: Tuple[str, ...] = ()) -> None:
        #: the names of the limits the command hit ("memory", "processes",
        #: "cpu_seconds", "max_file_size", "max_output_bytes", "timeout")
        self.limits_hit: Tuple[str, ...] = limits_hit
        #: the peak memory of the command's processes (None: unknown here)
        self.peak_memory_bytes: Optional[int] = peak_memory_bytes
        #: the CPU time of the command's processes (None: unknown here)
        self.cpu_seconds: Optional[float] = cpu_seconds
        #: limits this machine could not enforce for the command
        self.not_enforced: Tuple[str, ...] = not_enforced

    def __repr__(self) -> str:
        return "SandboxResources(limits_hit=%r, peak_memory_bytes=%r, cpu_seconds=%r)" % (
            self.limits_hit, self.peak_memory_bytes, self.cpu_seconds)


class SandboxResult:
    """The outcome of SandboxSession.run()."""

    def __init__(self, command: Union[str, Sequence[str]], stdout: str, stderr: str, exit_code: int,
                 timed_out: bool, duration: float, stdout_truncated: bool, stderr_truncated: bool,
                 resources: SandboxResources) -> None:
        #: the command as given
        self.command = command
        #: its standard output (UTF-8, invalid bytes replaced)
        self.stdout: str = stdout
        #: its standard error (UTF-8, invalid bytes replaced)
        self.stderr: str = stderr
        #: its exit status (128+N when signal N ended it, 137 after the timeout)
        self.exit_code: int = exit_code
        #: True when the time limit ended it
        self.timed_out: bool = timed_out
        #: wall-clock seconds the call took
        self.duration: float = duration
        #: True when stdout was cut at max_output_bytes
        self.stdout_truncated: bool = stdout_truncated
        #: True when stderr was cut at max_output_bytes
        self.stderr_truncated: bool = stderr_truncated
        #: the limits hit, peak memory and CPU time
        self.resources: SandboxResources = resources

    @property
    def succeeded(self) -> bool:
        """Exit status 0 within the time limit."""
        return self.exit_code == 0 and not self.timed_out

    def __repr__(self) -> str:
        return "SandboxResult(command=%r, exit_code=%d, timed_out=%r, duration=%.3f)" % (
            self.command, self.exit_code, self.timed_out, self.duration)


def _command_text(command: Union[str, Sequence[str]]) -> str:
    return command if isinstance(command, str) else shlex.join(list(command))


def _failure_message(r: SandboxResult) -> str:
    cmd = _command_text(r.command)
    limits = [x for x in r.resources.limits_hit if x != "timeout"]
    if r.timed_out:
        msg = "command %r timed out" % cmd
    elif limits:
        msg = "command %r hit its %s limit%s (exit status %d)" % (
            cmd, " and ".join(limits), "s" if len(limits) > 1 else "", r.exit_code)
    else:
        msg = "command %r exited with status %d" % (cmd, r.exit_code)
    tail = r.stderr.rstrip("\n").splitlines()[-5:]
    return msg + ("\n" + "\n".join(tail) if tail else "")


def _timeout_seconds(value: Optional[float], name: str) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or math.isinf(value):
        raise SandboxPolicyError("%s: %r: give a positive number of seconds (or None for no limit)" % (name, value))
    return float(value)


def _count(value: Optional[int], name: str, least: int) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise SandboxPolicyError("%s: %r: give a whole number, at least %d" % (name, value, least))
    return value


def _paths(value: Union[str, Iterable[str]], name: str) -> Tuple[str, ...]:
    if isinstance(value, (str, os.PathLike)):
        value = (value,)
    out = []
    for p in value:
        if not isinstance(p, (str, os.PathLike)):
            raise SandboxPolicyError("%s: %r is not a path" % (name, p))
        p = os.path.abspath(os.path.expanduser(os.fspath(p)))
        out.append(p)
    return tuple(out)


def _env(value: Optional[Mapping[str, str]], name: str) -> Dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SandboxPolicyError("%s: give a mapping of names to values" % name)
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not k or "=" in k or "\0" in k:
            raise SandboxPolicyError("%s: %r is not a variable name" % (name, k))
        if not isinstance(v, str) or "\0" in v:
            raise SandboxPolicyError("%s: %s: the value must be text" % (name, k))
        out[k] = v
    return out


_UNSET: Any = object()


def _remove_tree(path: str) -> Optional[str]:
    """Remove PATH; the reason when it could not."""
    errors = []
    shutil.rmtree(path, onerror=lambda fn, p, exc: errors.append("%s: %s" % (p, exc[1])))
    if os.path.lexists(path):
        return "; ".join(errors) or "%s: still there" % path
    return None


class _Reaper:
    """A small process that removes the session's directory if this process
    dies without closing the session (SIGKILL included): it waits for the
    end of a pipe only this process holds."""

    _SCRIPT = 'read -r word; [ "$word" = keep ] || exec rm -rf -- "$1"'

    def __init__(self, root: str) -> None:
        self._p: Optional[subprocess.Popen] = subprocess.Popen(
            ["/bin/sh", "-c", self._SCRIPT, "cvisor-session-reaper", root], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)

    def dismiss(self) -> None:
        """The session removed its directory itself: end the reaper."""
        p, self._p = self._p, None
        if p is None:
            return
        try:
            assert p.stdin is not None
            p.stdin.write(b"keep\n")
            p.stdin.close()
        except OSError:
            pass
        p.wait()


def _finalize(root: Optional[str], sandbox: Optional[Sandbox], reaper: Optional[_Reaper]) -> None:
    if sandbox is not None:
        sandbox.close()
    if root:
        _remove_tree(root)
    if reaper is not None:
        reaper.dismiss()


class SandboxSession:
    """A policy-first sandbox session.

    ::

        with SandboxSession(memory="512M", timeout=30) as s:
            s.run("echo hi > note.txt")
            print(s.run(["cat", "note.txt"]).stdout)   # hi

    Every argument is checked here, so a mistake fails at the line that made
    it (SandboxPolicyError):

    - workspace: a host directory the commands work in (never removed);
      None: a fresh one in the session's private root;
    - memory, max_file_size: sizes (parse_size); cpus: a positive number
      of CPUs; cpu_seconds; processes (at least 8); open_files (at least
      16): each command's limits, enforced as ``capabilities()`` says;
    - network: False (loopback only), True (outbound) or a NetworkMode;
    - writable, deny_write, deny_read: host paths the commands may write,
      may not write, may not read (the credential list always applies);
    - env: variables for every command; timeout: seconds per command
      (None: no limit), 300 by default;
    - backend: "auto" or "cvisor" (libcvisor), "passthrough" (unisolated,
      as capabilities() says); require_isolation: refuse passthrough;
    - memory_strategy: "auto" (limits as this machine can enforce them) or
      "cgroup" (refuse to run a command whose limits cannot be enforced,
      SandboxUnavailableError:
      the policy's require_limits).

    The defaults: everything outside the workspace and WRITABLE is
    read-only; /tmp is private to each command; no network; the common
    credential files are unreadable; the environment is an allowlist plus
    ENV; the limits apply to each command.
    """

    def __init__(self, workspace: Optional[Union[str, "os.PathLike[str]"]] = None, *,
                 memory: Optional[Union[int, str]] = None, cpus: Optional[float] = None,
                 cpu_seconds: Optional[int] = None, processes: Optional[int] = None,
                 max_file_size: Optional[Union[int, str]] = None, open_files: Optional[int] = None,
                 network: Union[bool, NetworkMode, str] = False,
                 writable: Union[str, Iterable[str]] = (), deny_write: Union[str, Iterable[str]] = (),
                 deny_read: Union[str, Iterable[str]] = (), env: Optional[Mapping[str, str]] = None,
                 timeout: Optional[float] = _UNSET, backend: str = "auto", require_isolation: bool = False,
                 memory_strategy: str = "auto") -> None:
        self._given_workspace = None if workspace is None else _paths(workspace, "workspace")[0]
        self._memory = None if memory is None else parse_size(memory, "memory")
        if cpus is not None and (isinstance(cpus, bool) or not isinstance(cpus, (int, float)) or
                                 not cpus > 0 or math.isinf(cpus)):
            raise SandboxPolicyError("cpus: %r: give a positive number of CPUs (0.5 is half of one)" % (cpus,))
        self._cpus = cpus
        self._cpu_seconds = _count(cpu_seconds, "cpu_seconds", 1)
        self._processes = _count(processes, "processes", 8)
        self._max_file_size = None if max_file_size is None else parse_size(max_file_size, "max_file_size")
        self._open_files = _count(open_files, "open_files", 16)
        if network is True:
            self._network = NetworkMode.OUTBOUND
        elif network is False or network is None:
            self._network = NetworkMode.NONE
        else:
            try:
                self._network = NetworkMode(network)
            except ValueError:
                raise SandboxPolicyError("network: %r: give True, False or a NetworkMode (%s)" % (
                    network, ", ".join(m.value for m in NetworkMode))) from None
        self._writable = _paths(writable, "writable")
        self._deny_write = _paths(deny_write, "deny_write")
        self._deny_read = _paths(deny_read, "deny_read")
        self._env = _env(env, "env")
        self._timeout = _timeout_seconds(DEFAULT_TIMEOUT if timeout is _UNSET else timeout, "timeout")
        if backend not in _BACKENDS:
            raise SandboxPolicyError("backend: %r: give one of %s" % (backend, ", ".join(_BACKENDS)))
        if memory_strategy not in _MEMORY_STRATEGIES:
            raise SandboxPolicyError("memory_strategy: %r: give one of %s" % (
                memory_strategy, ", ".join(_MEMORY_STRATEGIES)))
        if not isinstance(require_isolation, bool):
            raise SandboxPolicyError("require_isolation: give True or False")
        if backend == "passthrough" and require_isolation:
            raise SandboxUnavailableError("backend 'passthrough' runs commands unisolated, and "
                                          "require_isolation=True refuses that")
        self._backend = backend
        self._require_isolation = require_isolation
        self._memory_strategy = memory_strategy
        self._state = "new"
        self._lock = threading.Lock()
        self._root: Optional[str] = None
        self._workspace: Optional[str] = None
        self._scratch: Optional[str] = None
        self._sandbox: Optional[Sandbox] = None
        # run id -> its process (passthrough), None (libcvisor: cancelled whole)
        self._inflight: Dict[int, Optional[subprocess.Popen]] = {}
        self._idle = threading.Condition(self._lock)
        self._finalizer: Optional[weakref.finalize] = None
        self._reaper: Optional[_Reaper] = None

    # ---- lifecycle ----

    def open(self) -> "SandboxSession":
        """Make the session's private root (a scratch ``tmp/`` and, unless
        one was given, a ``workspace/``) and its sandbox. Returns self."""
        with self._lock:
            if self._state != "new":
                raise SandboxError("the session is %s: a session opens once" % (
                    "open already" if self._state == "open" else "closed"))
            if self._given_workspace is not None and not os.path.isdir(self._given_workspace):
                raise SandboxPolicyError("workspace: %s: %s" % (
                    self._given_workspace,
                    "not a directory" if os.path.exists(self._given_workspace) else "no such directory"))
            root = tempfile.mkdtemp(prefix="cvisor-session-")
            try:
                os.chmod(root, 0o755)
                self._scratch = os.path.join(root, "tmp")
                os.mkdir(self._scratch, 0o700)
                if self._given_workspace is None:
                    self._workspace = os.path.join(root, "workspace")
                    os.mkdir(self._workspace, 0o700)
                else:
                    self._workspace = os.path.realpath(self._given_workspace)
                self._reaper = _Reaper(root)
                if self._backend != "passthrough":
                    self._sandbox = self._make_sandbox()
            except BaseException:
                _remove_tree(root)
                if self._reaper is not None:
                    self._reaper.dismiss()
                raise
            self._root = root
            self._finalizer = weakref.finalize(self, _finalize, root, self._sandbox, self._reaper)
            self._state = "open"
        return self

    def _make_sandbox(self) -> Sandbox:
        try:
            sb = Sandbox()
        except OSError as e:  # no libcvisor here
            if self._backend == "auto" and not self._require_isolation:
                raise SandboxUnavailableError("%s (backend='passthrough' runs unisolated)" % e) from e
            raise SandboxUnavailableError(str(e)) from e
        opts = [("workspace", self._workspace), ("writable", self._scratch), ("network", self._network.value),
                ("max_output_bytes", str(DEFAULT_MAX_OUTPUT_BYTES))]
        opts += [("writable", p) for p in self._writable]
        opts += [("deny_write", p) for p in self._deny_write]
        opts += [("deny_read", p) for p in self._deny_read]
        for key, val in (("memory", self._memory), ("cpus", self._cpus), ("cpu_seconds", self._cpu_seconds),
                         ("processes", self._processes), ("max_file_size", self._max_file_size),
                         ("open_files", self._open_files)):
            if val is not None:
                opts.append((key, str(val)))
        if self._memory_strategy == "cgroup":
            opts.append(("require_limits", "true"))
        try:
            for key, val in opts:
                sb.set_option(key, val)
            sb.set_env("TMPDIR", self._scratch)
            for k, v in self._env.items():
                sb.set_env(k, v)
        except OSError as e:
            sb.close()
            raise SandboxPolicyError(str(e.strerror or e)) from None
        return sb

    def close(self) -> None:
        """Cancel the runs still in flight (waiting up to 10 s for them,
        killing their processes), then remove what the session made; a given
        workspace is never touched. Harmless twice."""
        with self._lock:
            if self._state != "open":
                self._state = "closed"
                return
            self._state = "closed"
            deadline = time.monotonic() + CLOSE_WAIT
            while self._inflight and time.monotonic() < deadline:
                procs = [p for p in self._inflight.values() if p is not None]
                self._lock.release()
                try:
                    if self._sandbox is not None:
                        self._sandbox.cancel()
                    for p in procs:
                        _kill_group(p)
                finally:
                    self._lock.acquire()
                self._idle.wait(0.05)
        if self._sandbox is not None:
            self._sandbox.close()
        if self._finalizer is not None:
            self._finalizer.detach()
        if self._root:
            why = _remove_tree(self._root)
            if why:
                warnings.warn("SandboxSession: cannot remove %s: %s" % (self._root, why), ResourceWarning,
                              stacklevel=2)
        if self._reaper is not None:
            self._reaper.dismiss()

    def __enter__(self) -> "SandboxSession":
        return self.open()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    async def __aenter__(self) -> "SandboxSession":
        return self.open()

    async def __aexit__(self, *exc: Any) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    @property
    def is_open(self) -> bool:
        """True between open() and close()."""
        return self._state == "open"

    @property
    def workspace(self) -> str:
        """The workspace directory on the host (where commands start)."""
        if self._state == "new":
            raise SandboxClosedError("the session is not open yet: call open() or use `with`")
        if self._state == "closed":
            raise SandboxClosedError("the session is closed: its workspace is gone")
        assert self._workspace is not None
        return self._workspace

    @property
    def sandbox(self) -> Optional[Sandbox]:
        """The lower-level cvisor.Sandbox (None for the passthrough backend)."""
        if self._state != "open":
            self.workspace  # raises the right SandboxClosedError
        return self._sandbox

    def capabilities(self) -> Dict[str, str]:
        """How each limit is enforced on this machine (libcvisor's
        ``cvisor do --check``): {limit: how}."""
        if self._backend == "passthrough":
            return {"isolation": "none: the passthrough backend runs commands unisolated"}
        lib = _lib.library()
        text = ctypes.c_void_p()
        err = ctypes.c_void_p()
        if lib.cvisor_do_check(None, ctypes.byref(text), ctypes.byref(err)) < 0:
            msg = lib.cvisor_error_message(err).decode("utf-8", "replace")
            lib.cvisor_error_free(err)
            raise SandboxUnavailableError("cvisor do --check: " + msg)
        try:
            raw = ctypes.string_at(text).decode("utf-8", "replace")
        finally:
            lib.cvisor_free(text)
        caps = {}
        for line in raw.splitlines():
            # "memory            cgroup v1 (memory controller)", "cgroup layout:    hybrid..."
            m = re.match(r"^(\S+(?: \S+)*?):?\s{2,}(\S.*)$", line)
            if m:
                caps[m.group(1).rstrip(":")] = m.group(2)
        return caps

    def __repr__(self) -> str:
        return "<SandboxSession %s workspace=%r backend=%r network=%s>" % (
            self._state, self._workspace or self._given_workspace, self._backend, self._network.value)

    # ---- runs ----

    def run(self, command: Union[str, Sequence[str]], *, cwd: Optional[str] = None,
            env: Optional[Mapping[str, str]] = None, input: Optional[Union[bytes, str]] = None,
            timeout: Optional[float] = _UNSET, max_output_bytes: Union[int, str] = DEFAULT_MAX_OUTPUT_BYTES,
            check: bool = False) -> SandboxResult:
        """Run COMMAND: a string through ``/bin/sh -c``, a list directly.

        CWD is relative to the workspace (the default); ENV adds variables
        for this command only; INPUT goes to its stdin. Safe from several
        threads at once. ``check=True`` raises SandboxCommandError when it
        did not succeed; a run cut short by close() raises SandboxClosedError.
        """
        if isinstance(command, str):
            argv = ["/bin/sh", "-c", command]
        elif isinstance(command, (list, tuple)) and command and all(isinstance(a, str) for a in command):
            argv = list(command)
        else:
            raise SandboxPolicyError("command: give a string (run by /bin/sh -c) or a non-empty list of strings")
        extra = _env(env, "env")
        limit = self._timeout if timeout is _UNSET else _timeout_seconds(timeout, "timeout")
        cap = parse_size(max_output_bytes, "max_output_bytes")
        data = None if input is None else _lib.as_bytes(input)
        token = object()
        with self._lock:
            if self._state != "open":
                self.workspace  # raises
            run_id = id(token)
            self._inflight[run_id] = None
        try:
            start = time.monotonic()
            where = self._cwd(cwd)
            if self._sandbox is None:
                result = self._run_passthrough(command, argv, where, extra, data, limit, cap, start, run_id)
            else:
                result = self._run_sandbox(command, argv, where, extra, data, limit, cap, start)
        finally:
            with self._lock:
                del self._inflight[run_id]
                self._idle.notify_all()
                closed = self._state != "open"
        if closed:
            raise SandboxClosedError("the session was closed while %r ran" % _command_text(command))
        if check and not result.succeeded:
            raise SandboxCommandError(_failure_message(result), result)
        return result

    async def arun(self, command: Union[str, Sequence[str]], **kwargs: Any) -> SandboxResult:
        """run() as a coroutine (in the loop's default executor)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, lambda: self.run(command, **kwargs))

    def _cwd(self, cwd: Optional[str]) -> str:
        assert self._workspace is not None
        if cwd is None:
            return self._workspace
        if not isinstance(cwd, (str, os.PathLike)):
            raise SandboxPolicyError("cwd: %r is not a path" % (cwd,))
        return os.path.normpath(os.path.join(self._workspace, os.fspath(cwd)))

    def _run_sandbox(self, command, argv, cwd, extra, data, limit, cap, start) -> SandboxResult:
        assert self._sandbox is not None
        timeout_ms = int(limit * 1000) if limit else 0
        try:
            out = self._sandbox.run_argv(argv, cwd=cwd, input=data, timeout_ms=timeout_ms, env=extra,
                                         max_output_bytes=cap)
        except SandboxRunError as e:
            raise SandboxUnavailableError(str(e)) from e
        except ValueError as e:  # closed under us
            raise SandboxClosedError("the session was closed while %r ran" % _command_text(command)) from e
        return self._result(command, out, cap, time.monotonic() - start)

    @staticmethod
    def _result(command, out: Output, cap: int, duration: float) -> SandboxResult:
        rep = out.report
        hits = [k for k, v in (rep.get("limits_hit") or {}).items() if v]
        trunc = rep.get("output_truncated") or {}
        t_out = bool(trunc.get("stdout")) or len(out.stdout_bytes) > cap
        t_err = bool(trunc.get("stderr")) or len(out.stderr_bytes) > cap
        if (t_out or t_err) and "max_output_bytes" not in hits:
            hits.append("max_output_bytes")
        timed_out = bool(rep.get("timed_out"))
        if timed_out:
            hits.append("timeout")
        res = SandboxResources(tuple(hits), rep.get("peak_memory_bytes"), rep.get("cpu_seconds"),
                               tuple(rep.get("not_enforced") or ()))
        return SandboxResult(command, out.stdout_bytes[:cap].decode("utf-8", "replace"),
                             out.stderr_bytes[:cap].decode("utf-8", "replace"), out.exit_code, timed_out,
                             duration, t_out, t_err, res)

    def _run_passthrough(self, command, argv, cwd, extra, data, limit, cap, start, run_id) -> SandboxResult:
        env = {k: os.environ[k] for k in _ENV_ALLOW if k in os.environ}
        env.update(self._env)
        env.update(extra)
        env["TMPDIR"] = self._scratch or "/tmp"
        env["HOME"] = self._workspace or "/"
        timed_out = False
        try:
            # its own process group, which the timeout kills whole
            p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            p, code, so, se = None, 127, b"", ("%s: %s\n" % (argv[0], e.strerror)).encode()
        if p is not None:
            with self._lock:
                self._inflight[run_id] = p
                closing = self._state != "open"
            if closing:  # close() began before the process was known to it
                _kill_group(p)
            with p:
                try:
                    so, se = p.communicate(data or b"", timeout=limit)
                except subprocess.TimeoutExpired:
                    timed_out = True
                    os.killpg(p.pid, 9)
                    so, se = p.communicate()
                code = 137 if timed_out else p.returncode
        if code < 0:
            code = 128 - code
        t_out, t_err = len(so) > cap, len(se) > cap
        res = SandboxResources((("timeout",) if timed_out else ()) + (("max_output_bytes",) if t_out or t_err else ()))
        return SandboxResult(command, so[:cap].decode("utf-8", "replace"), se[:cap].decode("utf-8", "replace"),
                             code, timed_out, time.monotonic() - start, t_out, t_err, res)


def _kill_group(p: subprocess.Popen) -> None:
    """SIGKILL the process group of a passthrough run (its own session)."""
    if p.returncode is not None:  # reaped: its pid may be another's now
        return
    try:
        os.killpg(p.pid, 9)
    except OSError:
        pass
