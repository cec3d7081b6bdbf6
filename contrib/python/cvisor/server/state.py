"""The sandboxes cvisor-server holds: who owns each, the quotas, the runs
and sessions in flight, idle expiry and the removal of everything.

Every libcvisor call that can block runs on the server's thread pool, never
on the event loop."""
from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import functools
import os
import secrets
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from ..sandbox import Sandbox, SandboxRunError, Session
from .tokens import Token

__all__ = ["ServiceError", "Registry", "Entry", "RemoteSessionState", "Limits"]

#: what a session buffers for its subscriber before dropping the oldest output
SESSION_BUFFER_BYTES = 8 << 20


#: the variable each run of the server carries, naming it for kill_marked()
RUN_MARKER = "CVISOR_SERVER_RUN"


def kill_marked(markers: List[str]) -> None:
    """SIGKILL every process whose environment names one of MARKERS: the
    run of a request whose client went away (Sandbox.cancel would end the
    sandbox's other runs too). Killing the run's first process ends its
    pid namespace, so a child that cleared its environment goes as well."""
    wanted = [("%s=%s" % (RUN_MARKER, m)).encode() for m in markers]
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                envs = f.read().split(b"\0")
        except OSError:
            continue
        if any(w in envs for w in wanted):
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass


class ServiceError(Exception):
    """An error the client sees as a GraphQL error: MESSAGE, with CODE and
    any other fields in its ``extensions``."""

    def __init__(self, message: str, code: str, **extra: Any) -> None:
        super().__init__(message)
        self.extensions: Dict[str, Any] = dict(code=code, **extra)


def not_found(what: str, ident: str) -> ServiceError:
    # the same words whether the id is another token's or nobody's
    return ServiceError("%s %r: not found" % (what, ident), "NOT_FOUND")


def os_error(e: OSError) -> ServiceError:
    """An OSError of the SDK as the error the client turns back into one."""
    return ServiceError(str(e.strerror or e), "OS_ERROR", errno=e.errno or 0,
                        filename=e.filename if isinstance(e.filename, str) else None)


class Limits:
    """A server's defaults for each token's quotas."""

    def __init__(self, sandboxes: int, runs: int, memory: int, default_memory: int) -> None:
        self.sandboxes = sandboxes
        self.runs = runs
        self.memory = memory
        self.default_memory = default_memory


class RemoteSessionState:
    """A session of one sandbox: the SDK's Session, and a thread that pumps
    its output into an event list the subscriptions read."""

    def __init__(self, ident: str, entry: "Entry", session: Session, loop: asyncio.AbstractEventLoop) -> None:
        self.id = ident
        self.entry = entry
        self.session = session
        self.loop = loop
        self.events: List[Tuple[str, bytes, Optional[int]]] = []  # (stream, data, exit code)
        self.dropped = 0  # events dropped from the front (buffer full)
        self.buffered = 0
        self.exit_code: Optional[int] = None
        self.waiters: set = set()  # an asyncio.Event of each subscription
        self.done = asyncio.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="cvisor-server-session", daemon=True)
        self._thread.start()

    def _push(self, stream: str, data: bytes, code: Optional[int]) -> None:
        self.events.append((stream, data, code))
        self.buffered += len(data)
        while self.buffered > SESSION_BUFFER_BYTES and len(self.events) > 1:
            self.buffered -= len(self.events.pop(0)[1])
            self.dropped += 1
        if stream == "EXIT":
            self.exit_code = code
            self.done.set()
        for w in self.waiters:
            w.set()

    def _pump(self) -> None:
        # reads never block: poll, quickly after output, backing off to 10 ms
        delay = 0.001
        try:
            while not self._stop.is_set():
                code = self.session.exit_code()
                got = False
                for stream, read in (("STDOUT", self.session.read_stdout), ("STDERR", self.session.read_stderr)):
                    data = read()
                    if data:
                        got = True
                        self.loop.call_soon_threadsafe(self._push, stream, data, None)
                if code is not None:
                    self.loop.call_soon_threadsafe(self._push, "EXIT", b"", code)
                    return
                delay = 0.001 if got else min(delay * 2, 0.01)
                self._stop.wait(delay)
        except ValueError:  # the session was closed under us
            self.loop.call_soon_threadsafe(self._push, "EXIT", b"", 137)
        except RuntimeError:  # the loop is closed: the server is gone
            pass

    def close(self) -> None:
        """Kill the program, end the pump and release the session (blocking)."""
        self._stop.set()
        try:
            self.session.kill()
        except ValueError:
            pass
        if self._thread is not threading.current_thread():
            self._thread.join()
        self.session.close()


class Entry:
    """One sandbox of one token."""

    def __init__(self, ident: str, token: Token, sandbox: Sandbox, memory: int) -> None:
        self.id = ident
        self.token = token
        self.sandbox = sandbox
        self.memory = memory  # what it counts against the token's memory quota
        self.created = time.time()
        self.last_used = time.monotonic()
        self.runs: Dict[str, float] = {}  # marker -> start
        self.sessions: Dict[str, RemoteSessionState] = {}
        self.settings: Dict[str, Any] = {"network": True, "listen": False, "env": {}, "memory_max": 0,
                                         "pids_max": 0, "cpu_percent": 0, "log_level": "INFO"}
        self.closed = False

    def touch(self) -> None:
        self.last_used = time.monotonic()

    def busy(self) -> bool:
        return bool(self.runs) or any(s.exit_code is None for s in self.sessions.values())


class Registry:
    """Every sandbox of the server, by id, with its owner's quotas."""

    def __init__(self, limits: Limits, node: str, pool: concurrent.futures.ThreadPoolExecutor,
                 make_sandbox: Callable[[], Sandbox], log: Callable[..., None]) -> None:
        self.limits = limits
        self.node = node
        self.pool = pool
        self.make_sandbox = make_sandbox
        self.log = log
        self.entries: Dict[str, Entry] = {}
        self.sessions: Dict[str, RemoteSessionState] = {}
        self.draining = False

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """FN(*ARGS) on the thread pool."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    # ---- quotas ----

    def _quota(self, token: Token, name: str) -> int:
        v = getattr(token, name)
        return v if v is not None else getattr(self.limits, name)

    def own(self, token: Token) -> List[Entry]:
        return [e for e in self.entries.values() if e.token is token]

    def _runs_of(self, token: Token) -> int:
        return sum(len(e.runs) + sum(1 for s in e.sessions.values() if s.exit_code is None) for e in self.own(token))

    def _check_runs(self, token: Token) -> None:
        q = self._quota(token, "runs")
        if self._runs_of(token) >= q:
            raise ServiceError("quota: token %r has %d runs and sessions in flight already (its quota)" % (token.id, q),
                               "QUOTA_EXCEEDED", quota="runs", limit=q)

    def _check_memory(self, token: Token, extra: int, other_than: Optional[Entry] = None) -> None:
        q = self._quota(token, "memory")
        if not q:
            return
        used = sum(e.memory for e in self.own(token) if e is not other_than)
        if used + extra > q:
            raise ServiceError("quota: token %r may have %d bytes of sandbox memory in all; %d are taken and this "
                               "asks for %d" % (token.id, q, used, extra), "QUOTA_EXCEEDED", quota="memory", limit=q)

    def _memory_of(self, memory_max: int) -> int:
        return memory_max or self.limits.default_memory

    # ---- sandboxes ----

    def get(self, token: Token, ident: Any) -> Entry:
        e = self.entries.get(ident) if isinstance(ident, str) else None
        if e is None or e.token is not token or e.closed:
            raise not_found("sandbox", str(ident))
        e.touch()
        return e

    def _refuse_when_draining(self) -> None:
        if self.draining:
            raise ServiceError("the server is shutting down", "UNAVAILABLE")

    async def create(self, token: Token, settings: Dict[str, Any]) -> Entry:
        self._refuse_when_draining()
        q = self._quota(token, "sandboxes")
        if len(self.own(token)) >= q:
            raise ServiceError("quota: token %r may hold %d sandboxes" % (token.id, q), "QUOTA_EXCEEDED",
                               quota="sandboxes", limit=q)
        memory_max = int((settings.get("limits") or {}).get("memoryMax") or 0)
        self._check_memory(token, self._memory_of(memory_max))
        sb = await self.call(self.make_sandbox)
        ident = "%s.%s" % (secrets.token_hex(12), self.node)
        e = Entry(ident, token, sb, self._memory_of(memory_max))
        self.entries[ident] = e
        try:
            await self.configure(e, settings)
        except BaseException:
            await self.remove(e)
            raise
        return e

    async def configure(self, e: Entry, settings: Dict[str, Any]) -> None:
        """Apply the SandboxSettings input SETTINGS (the Sandbox setters)."""
        s = e.settings
        sb = e.sandbox
        if settings.get("logLevel") is not None:
            s["log_level"] = settings["logLevel"]
            await self.call(sb.set_log_level, settings["logLevel"])
        if settings.get("network") is not None:
            s["network"] = bool(settings["network"])
            await self.call(sb.set_allow_network, s["network"])
        if settings.get("listen") is not None:
            s["listen"] = bool(settings["listen"])
            await self.call(sb.set_allow_listen, s["listen"])
        for kv in settings.get("env") or ():
            if "=" in kv["key"] or "\0" in kv["key"] or "\0" in kv["value"] or not kv["key"]:
                raise ServiceError("env: %r is not a variable name (no '=', no NUL, not empty)" % kv["key"],
                                   "BAD_INPUT")
            s["env"][kv["key"]] = kv["value"]
            await self.call(sb.set_env, kv["key"], kv["value"])
        lim = settings.get("limits")
        if lim is not None:
            vals = [int(lim.get(k) or 0) for k in ("memoryMax", "pidsMax", "cpuPercent")]
            if any(v < 0 for v in vals):
                raise ServiceError("limits: memoryMax, pidsMax and cpuPercent are 0 (unset) or positive", "BAD_INPUT")
            if vals[0] >= 1 << 64 or vals[1] >= 1 << 64 or vals[2] >= 1 << 32:
                raise ServiceError("limits: a value is out of range", "BAD_INPUT")
            memory = self._memory_of(vals[0])
            self._check_memory(e.token, memory, other_than=e)
            if not vals[0] and self._quota(e.token, "memory"):
                vals[0] = memory  # under a memory quota every sandbox has a limit
            e.memory = memory
            s["memory_max"], s["pids_max"], s["cpu_percent"] = vals
            await self.call(sb.set_limits, *vals)
        elif not s["memory_max"] and self._quota(e.token, "memory"):
            s["memory_max"] = e.memory
            await self.call(sb.set_limits, e.memory, s["pids_max"], s["cpu_percent"])

    async def remove(self, e: Entry) -> None:
        """Kill what runs in E, end its keeper and forget it."""
        if e.closed:
            return
        e.closed = True
        self.entries.pop(e.id, None)
        for s in list(e.sessions.values()):
            self.sessions.pop(s.id, None)
        markers = list(e.runs)
        sessions = list(e.sessions.values())

        def close() -> None:
            if markers:
                kill_marked(markers)
            for s in sessions:
                s.close()
            e.sandbox.close()

        await self.call(close)

    async def remove_all(self) -> None:
        await asyncio.gather(*(self.remove(e) for e in list(self.entries.values())), return_exceptions=True)

    async def expire_idle(self, idle: float) -> None:
        now = time.monotonic()
        for e in list(self.entries.values()):
            if not e.busy() and now - e.last_used > idle:
                self.log("info", operation="expire", sandbox=e.id, token_id=e.token.id,
                         idle_seconds=round(now - e.last_used, 1))
                await self.remove(e)

    # ---- runs ----

    async def run(self, e: Entry, command: str, timeout_ms: int, markers: set, argv_tail: Optional[List[str]] = None) -> Any:
        """Run COMMAND in E as Sandbox.run does; MARKERS (the request's)
        holds its marker while it runs, so that the request's end can kill it;
        ARGV_TAIL: the positional parameters of COMMAND."""
        self._refuse_when_draining()
        self._check_runs(e.token)
        marker = secrets.token_hex(16)
        argv = ["/bin/sh", "-c", command] + (["sh"] + argv_tail if argv_tail else [])
        e.runs[marker] = time.monotonic()
        markers.add(marker)
        try:
            return await self.call(functools.partial(e.sandbox.run_argv, argv, timeout_ms=timeout_ms or None,
                                                     env={RUN_MARKER: marker}))
        except SandboxRunError as err:
            raise ServiceError("run: %s" % (str(err).split(": ", 1)[-1]), "RUN_ERROR") from None
        except ValueError:
            raise not_found("sandbox", e.id) from None
        finally:
            e.runs.pop(marker, None)
            markers.discard(marker)
            e.touch()

    async def kill_runs(self, markers: set) -> None:
        if markers:
            await self.call(kill_marked, list(markers))

    # ---- sessions ----

    async def start_session(self, e: Entry, command: Optional[str], pty: bool) -> RemoteSessionState:
        self._refuse_when_draining()
        self._check_runs(e.token)
        try:
            s = await self.call(e.sandbox._session, command, pty)
        except SandboxRunError as err:
            raise ServiceError("session: %s" % (str(err).split(": ", 1)[-1]), "RUN_ERROR") from None
        except ValueError:
            raise not_found("sandbox", e.id) from None
        st = RemoteSessionState("%s.%s" % (secrets.token_hex(12), self.node), e, s, asyncio.get_running_loop())
        e.sessions[st.id] = st
        self.sessions[st.id] = st
        return st

    def get_session(self, token: Token, ident: Any) -> RemoteSessionState:
        st = self.sessions.get(ident) if isinstance(ident, str) else None
        if st is None or st.entry.token is not token or st.entry.closed:
            raise not_found("session", str(ident))
        st.entry.touch()
        return st

    async def close_session(self, st: RemoteSessionState) -> None:
        self.sessions.pop(st.id, None)
        st.entry.sessions.pop(st.id, None)
        await self.call(st.close)


def errno_error(code: int, message: str, path: str) -> ServiceError:
    return ServiceError(message, "OS_ERROR", errno=code, filename=path)


ENOENT = errno.ENOENT
