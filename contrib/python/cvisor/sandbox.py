"""cvisor.Sandbox: a thin ctypes layer over libcvisor's sandbox calls."""
from __future__ import annotations

import codecs
import ctypes
import json
import os
import sys
import threading
import time
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, TypeVar, Union

from . import _lib

__all__ = ["Sandbox", "Output", "Session", "SandboxRunError"]

BytesLike = Union[bytes, bytearray, memoryview, str]


class SandboxRunError(OSError):
    """A run or a session that libcvisor could not start (its keeper could
    not be started, a refused policy value...); the message is libcvisor's,
    ``errno`` its errno (``cvisor_last_errno``)."""


class Output:
    """What a finished run gave: its captured streams, exit code and report."""

    def __init__(self, stdout_bytes: bytes, stderr_bytes: bytes, exit_code: int,
                 report: Optional[Dict[str, Any]] = None) -> None:
        #: the captured standard output
        self.stdout_bytes: bytes = stdout_bytes
        #: the captured standard error
        self.stderr_bytes: bytes = stderr_bytes
        #: the exit status: 128+N when signal N ended it, 137 after the timeout
        self.exit_code: int = exit_code
        #: the run's report (``cvisor do --report``): timed_out, limits_hit,
        #: peak memory, CPU time, truncation...
        self.report: Dict[str, Any] = report or {}

    @property
    def stdout(self) -> str:
        """stdout decoded as UTF-8 (invalid bytes replaced)."""
        return self.stdout_bytes.decode("utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        """stderr decoded as UTF-8 (invalid bytes replaced)."""
        return self.stderr_bytes.decode("utf-8", errors="replace")

    def __repr__(self) -> str:
        return "Output(exit_code=%d, stdout=%r, stderr=%r)" % (self.exit_code, self.stdout_bytes[:60],
                                                                self.stderr_bytes[:60])


def _output(lib: ctypes.CDLL, o: int) -> Output:
    """An Output from a CvisorOutput, which is freed."""
    try:
        n = ctypes.c_size_t(0)
        out = _lib.take_bytes(lib, lib.cvisor_output_stdout(o, ctypes.byref(n)), n.value)
        err = _lib.take_bytes(lib, lib.cvisor_output_stderr(o, ctypes.byref(n)), n.value)
        raw = lib.cvisor_output_report_json(o)
        report = json.loads(raw.decode("utf-8", "replace")) if raw else {}
        return Output(out, err, lib.cvisor_output_exit_code(o), report)
    finally:
        lib.cvisor_output_free(o)


class _Handle:
    """A native pointer shared by calls from several threads: close() only
    marks it; the free function runs once the last call in flight is out."""

    def __init__(self, ptr: int, free: Callable[[int], None], what: str) -> None:
        self._ptr = ptr
        self._free = free
        self._what = what
        self._users = 0
        self._closed = False
        self._lock = threading.Lock()

    def acquire(self) -> int:
        with self._lock:
            if self._closed:
                raise ValueError("%s is closed" % self._what)
            self._users += 1
            return self._ptr

    def release(self) -> None:
        with self._lock:
            self._users -= 1
            ptr = self._take_if_idle()
        if ptr:
            self._free(ptr)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            ptr = self._take_if_idle()
        if ptr:
            self._free(ptr)

    @property
    def closed(self) -> bool:
        return self._closed

    def _take_if_idle(self) -> Optional[int]:
        if self._closed and self._users == 0 and self._ptr:
            ptr, self._ptr = self._ptr, None
            return ptr
        return None


class _Use:
    def __init__(self, h: _Handle) -> None:
        self.h = h

    def __enter__(self) -> int:
        return self.h.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.h.release()


class _Closing:
    """close() on leaving a with block and when garbage collected."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: "_T") -> "_T":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


_T = TypeVar("_T", bound=_Closing)


class Session(_Closing):
    """A program running in a sandbox while the caller talks to it
    (``Sandbox.shell()``). Reads never block; they return what arrived since
    the last read."""

    def __init__(self, lib: ctypes.CDLL, ptr: int, on_output: Optional[Callable[[str], None]] = None,
                 poll_ms: int = 15) -> None:
        self._lib = lib
        self._h = _Handle(ptr, lib.cvisor_session_free, "the session")
        self._stop = threading.Event()
        self._pump: Optional[threading.Thread] = None
        if on_output is not None:
            self._pump = threading.Thread(target=self._run_pump, args=(on_output, poll_ms / 1000.0),
                                          name="cvisor-session-output", daemon=True)
            self._pump.start()

    def _run_pump(self, on_output: Callable[[str], None], period: float) -> None:
        dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            try:
                data = self.read_stdout()
                done = self.exit_code() is not None
            except ValueError:
                return
            if data:
                on_output(dec.decode(data))
            # once it ended (or the session is closing), what came since
            # the last read goes out too, then the decoder's last bytes
            if done or self._stop.wait(period):
                try:
                    tail = self.read_stdout()
                except ValueError:
                    tail = b""
                if tail:
                    on_output(dec.decode(tail))
                rest = dec.decode(b"", final=True)
                if rest:
                    on_output(rest)
                return

    def _read(self, fn) -> bytes:
        with _Use(self._h) as s:
            n = ctypes.c_size_t(0)
            return _lib.take_bytes(self._lib, fn(s, ctypes.byref(n)), n.value)

    def read_stdout(self) -> bytes:
        """The output (under a PTY: stdout and stderr merged) since the last read."""
        return self._read(self._lib.cvisor_session_read_stdout)

    def read_stderr(self) -> bytes:
        """stderr since the last read (always empty under a PTY)."""
        return self._read(self._lib.cvisor_session_read_stderr)

    def write_stdin(self, data: BytesLike) -> int:
        """Write DATA to the program's stdin; returns the bytes written.
        Raises OSError (EPIPE without a PTY or once it ended)."""
        b = _lib.as_bytes(data)
        with _Use(self._h) as s:
            r = self._lib.cvisor_session_write_stdin(s, _lib.u8_buffer(b), len(b))
            _lib.raise_errno(self._lib, r)
            return int(r)

    def resize(self, rows: int, cols: int) -> None:
        """Set the size of the session's terminal."""
        with _Use(self._h) as s:
            self._lib.cvisor_session_resize(s, rows, cols)

    def exit_code(self) -> Optional[int]:
        """The exit status once the program ended, else None."""
        with _Use(self._h) as s:
            done = ctypes.c_int(0)
            r = self._lib.cvisor_session_try_wait(s, ctypes.byref(done))
            return r if done.value else None

    def wait(self) -> int:
        """Block until the program ends; its exit status. With an
        on_output callback, its whole output has gone to it by then."""
        with _Use(self._h) as s:
            code = int(self._lib.cvisor_session_wait(s))
        if self._pump is not None and self._pump is not threading.current_thread():
            self._pump.join()
        return code

    def kill(self) -> None:
        """End every process of the session (exit status 137)."""
        with _Use(self._h) as s:
            self._lib.cvisor_session_kill(s)

    def close(self) -> None:
        """Kill the program if it still runs and release the session."""
        self._stop.set()
        if self._pump is not None and self._pump is not threading.current_thread():
            self._pump.join()
        self._h.close()


class Sandbox(_Closing):
    """A persistent sandbox of libcvisor: each run sees the host's root
    through a copy-on-write overlay of its own, so what one run writes is
    there for the next and never reaches the host.

    ::

        with Sandbox() as sb:
            sb.write_file("/workspace/x.py", "print(6*7)")
            print(sb.run("python3 x.py").stdout)   # 42
    """

    def __init__(self, lib: Optional[ctypes.CDLL] = None) -> None:
        if not sys.platform.startswith("linux"):
            raise RuntimeError("cvisor.Sandbox runs sandboxes on Linux only (this is %s): use "
                               "cvisor.RemoteSandbox to run them on a cvisor service" % sys.platform)
        self._lib = lib if lib is not None else _lib.library()
        ptr = self._lib.cvisor_sandbox_new()
        if not ptr:
            raise MemoryError("cvisor_sandbox_new: out of memory")
        self._h = _Handle(ptr, self._lib.cvisor_sandbox_free, "the sandbox")

    # ---- settings ----

    def set_log_level(self, level: str) -> None:
        """"DEBUG": the keeper's and the runs' debug lines go to stderr; any
        other value: quiet. Takes effect when the sandbox first starts."""
        with _Use(self._h) as sb:
            self._lib.cvisor_sandbox_set_log_level(sb, 1 if str(level).upper() == "DEBUG" else 0)

    def set_allow_network(self, allow: bool) -> None:
        """True (default): outbound network; False: loopback only."""
        with _Use(self._h) as sb:
            self._lib.cvisor_sandbox_set_allow_network(sb, 1 if allow else 0)

    def set_allow_listen(self, allow: bool) -> None:
        """False (default): listen(2) fails with EPERM; True: servers may listen."""
        with _Use(self._h) as sb:
            self._lib.cvisor_sandbox_set_allow_listen(sb, 1 if allow else 0)

    def set_env(self, key: str, value: str) -> None:
        """Set KEY=VALUE for the runs that follow."""
        with _Use(self._h) as sb:
            self._lib.cvisor_sandbox_set_env(sb, key.encode(), value.encode())

    def set_limits(self, memory_max: int = 0, pids_max: int = 0, cpu_percent: int = 0) -> None:
        """Memory (bytes), processes and CPU share (percent of one core) of
        each run; 0 leaves one unset. A refused value fails the next run."""
        with _Use(self._h) as sb:
            self._lib.cvisor_sandbox_set_limits(sb, int(memory_max), int(pids_max), int(cpu_percent))

    def set_option(self, key: str, value: Union[str, int, bool]) -> None:
        """Any key of the policy of ``cvisor do`` (cvisor-do(1)), valued as
        on its command line; a list key adds to its list. Raises OSError
        with libcvisor's message for a refused key or value."""
        if isinstance(value, bool):
            value = "true" if value else "false"
        with _Use(self._h) as sb:
            _lib.raise_errno(self._lib, self._lib.cvisor_sandbox_set_option(sb, key.encode(), str(value).encode()))

    def set_policy_json(self, policy: Union[str, Dict[str, Any]]) -> None:
        """Replace the whole policy with a policy document (JSON text or a dict)."""
        text = policy if isinstance(policy, str) else json.dumps(policy)
        with _Use(self._h) as sb:
            _lib.raise_errno(self._lib, self._lib.cvisor_sandbox_set_policy_json(sb, text.encode()))

    def set_context(self, state_root: Optional[str] = None, helper_path: Optional[str] = None) -> None:
        """The state root and the cvisor binary (the helper) the sandbox's
        keeper runs; before its first use."""
        ctx = _lib._Context(ctypes.sizeof(_lib._Context), state_root.encode() if state_root else None, False, -1,
                            helper_path.encode() if helper_path else None)
        with _Use(self._h) as sb:
            _lib.raise_errno(self._lib, self._lib.cvisor_sandbox_set_context(sb, ctypes.byref(ctx)))

    # ---- files ----

    def write_file(self, path: str, data: BytesLike) -> None:
        """Create or replace PATH (as the program sees it) with DATA."""
        b = _lib.as_bytes(data)
        with _Use(self._h) as sb:
            r = self._lib.cvisor_sandbox_write_file(sb, os.fsencode(path), _lib.u8_buffer(b), len(b))
            _lib.raise_errno(self._lib, r, path)

    def read_file(self, path: str) -> bytes:
        """The whole file PATH; ``b""`` for an empty one, FileNotFoundError
        for a missing one, OSError for another failure."""
        with _Use(self._h) as sb:
            n = ctypes.c_size_t(0)
            p = self._lib.cvisor_sandbox_read_file(sb, os.fsencode(path), ctypes.byref(n))
            if not p:
                if n.value:
                    _lib.raise_errno(self._lib, -int(n.value), path)
                return b""
            return _lib.take_bytes(self._lib, p, n.value)

    def copy_into(self, host_path: str, guest_path: str) -> None:
        """Copy the host's HOST_PATH to GUEST_PATH in the sandbox."""
        with _Use(self._h) as sb:
            r = self._lib.cvisor_sandbox_copy_into(sb, os.fsencode(host_path), os.fsencode(guest_path))
            _lib.raise_errno(self._lib, r, host_path)

    def copy_out(self, guest_path: str, host_path: str) -> None:
        """Copy GUEST_PATH of the sandbox to the host's HOST_PATH."""
        with _Use(self._h) as sb:
            r = self._lib.cvisor_sandbox_copy_out(sb, os.fsencode(guest_path), os.fsencode(host_path))
            _lib.raise_errno(self._lib, r, guest_path)

    def cache_save(self, sandbox_path: str, key: str, backend: str = "", format: str = "gzip") -> None:
        """Archive the guest directory SANDBOX_PATH under KEY in BACKEND
        ("" or "disk", "disk:/path", "s3://bucket/prefix?...")."""
        with _Use(self._h) as sb:
            r = self._lib.cvisor_cache_save(sb, os.fsencode(sandbox_path), key.encode(), backend.encode(),
                                            format.encode())
            _lib.raise_errno(self._lib, r, sandbox_path)

    def cache_restore(self, sandbox_path: str, key: str, backend: str = "", format: str = "gzip") -> None:
        """Unpack the archive saved under KEY into SANDBOX_PATH."""
        with _Use(self._h) as sb:
            r = self._lib.cvisor_cache_restore(sb, os.fsencode(sandbox_path), key.encode(), backend.encode(),
                                               format.encode())
            _lib.raise_errno(self._lib, r, sandbox_path)

    # ---- runs ----

    def _check_started(self, ptr: Optional[int], what: str) -> int:
        if not ptr:
            err = SandboxRunError("%s: %s" % (what, _lib.last_error(self._lib) or "it could not be started"))
            err.errno = _lib.last_errno(self._lib) or None
            raise err
        return ptr

    def run(self, command: str, timeout_ms: Optional[int] = None) -> Output:
        """Run ``/bin/sh -c COMMAND`` with an empty stdin; a timed-out run
        has exit code 137. Raises SandboxRunError when it cannot start."""
        with _Use(self._h) as sb:
            o = self._lib.cvisor_run_timeout(sb, command.encode(), int(timeout_ms or 0))
            return _output(self._lib, self._check_started(o, "run"))

    def run_argv(self, argv: Sequence[str], cwd: Optional[str] = None, input: Optional[BytesLike] = None,
                 timeout_ms: Optional[int] = None, env: Optional[Mapping[str, str]] = None,
                 max_output_bytes: Optional[int] = None) -> Output:
        """Run ARGV directly (nothing parsed) in CWD (default: the
        workspace) with INPUT on its stdin; ENV's variables are set for this
        run only (over set_env's), MAX_OUTPUT_BYTES caps each of its streams
        (default: the sandbox's ``max_output_bytes``)."""
        if isinstance(argv, (str, bytes)) or not argv:
            raise TypeError("run_argv: argv must be a non-empty list of strings")
        arr = (ctypes.c_char_p * (len(argv) + 1))(*[os.fsencode(a) for a in argv], None)
        envs = ["%s=%s" % (k, v) for k, v in (env or {}).items()]
        env_arr = (ctypes.c_char_p * (len(envs) + 1))(*[os.fsencode(e) for e in envs], None)
        data = _lib.as_bytes(input) if input is not None else None
        opts = _lib.RunOptions(ctypes.sizeof(_lib.RunOptions), arr, env_arr, os.fsencode(cwd) if cwd else None,
                               _lib.u8_buffer(data) if data else None, len(data) if data else 0,
                               int(timeout_ms or 0), int(max_output_bytes or 0))
        with _Use(self._h) as sb:
            o = self._lib.cvisor_run_with(sb, ctypes.byref(opts))
            return _output(self._lib, self._check_started(o, "run"))

    def cancel(self) -> None:
        """End every run and session of this sandbox in flight now (from any
        thread): each ends as killed, exit code 137, its report's
        ``cancelled`` true. The sandbox stays usable."""
        with _Use(self._h) as sb:
            _lib.raise_errno(self._lib, self._lib.cvisor_sandbox_cancel(sb))

    def _session(self, command: Optional[str], pty: bool, on_output: Optional[Callable[[str], None]] = None,
                 poll_ms: int = 15) -> Session:
        with _Use(self._h) as sb:
            s = self._lib.cvisor_session_start(sb, command.encode() if command is not None else None, int(pty))
            return Session(self._lib, self._check_started(s, "session"), on_output, poll_ms)

    def run_streaming(self, command: str, on_stdout: Optional[Callable[[str], None]] = None,
                      on_stderr: Optional[Callable[[str], None]] = None, poll_ms: int = 15) -> int:
        """Run ``/bin/sh -c COMMAND``, passing decoded chunks of its output to
        the callbacks as they come; returns the exit code."""
        decs = [codecs.getincrementaldecoder("utf-8")(errors="replace") for _ in range(2)]

        def pump(s: Session, final: bool) -> None:
            for data, cb, dec in ((s.read_stdout(), on_stdout, decs[0]), (s.read_stderr(), on_stderr, decs[1])):
                text = dec.decode(data, final=final)
                if cb is not None and text:
                    cb(text)

        with self._session(command, False) as s:
            while True:
                code = s.exit_code()
                pump(s, code is not None)
                if code is not None:
                    return code
                time.sleep(poll_ms / 1000.0)

    def shell(self, on_output: Optional[Callable[[str], None]] = None, poll_ms: int = 15) -> Session:
        """An interactive ``/bin/sh -i`` under a terminal of its own; its
        output goes to ON_OUTPUT (decoded) from a daemon thread when given."""
        return self._session(None, True, on_output, poll_ms)

    # ---- lifetime ----

    def close(self) -> None:
        """Kill what still runs, end the keeper and drop the overlay (once
        the calls in flight from other threads are out). Harmless twice."""
        h = getattr(self, "_h", None)
        if h is not None:
            h.close()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._h.closed
