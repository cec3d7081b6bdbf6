"""The remote service's client: GraphQLClient (GraphQL over HTTP(S),
standard library only) and RemoteSandbox, the same API as cvisor.Sandbox
for sandboxes a `cvisor-server` holds on another machine."""
from __future__ import annotations

import base64
import codecs
import http.client
import json
import os
import socket
import ssl
import stat
import tempfile
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Union
from urllib.parse import urlsplit

from . import _ignore, _tar
from ._ws import WebSocket, WebSocketError
from .sandbox import Output, SandboxRunError, _Closing

__all__ = ["RemoteSandbox", "GraphQLClient", "GraphQLError", "RemoteSession"]

BytesLike = Union[bytes, bytearray, memoryview, str]

DEFAULT_TIMEOUT = 300.0


class GraphQLError(Exception):
    """Errors of a GraphQL request: the server's (``errors``: each with its
    message, path and extensions) or the transport's (``status``: the HTTP
    status when there was one)."""

    def __init__(self, message: str, errors: Optional[List[Dict[str, Any]]] = None, status: Optional[int] = None,
                 data: Any = None) -> None:
        super().__init__(message)
        #: the server's errors, as it sent them
        self.errors: List[Dict[str, Any]] = errors or []
        #: the HTTP status, when the request got one
        self.status = status
        #: the partial result, if any
        self.data = data

    @property
    def messages(self) -> List[str]:
        return [str(e.get("message", "")) for e in self.errors] or [str(self)]

    @property
    def path(self) -> Optional[List[Any]]:
        """The path of the first error (the field it belongs to), if any."""
        for e in self.errors:
            if e.get("path"):
                return list(e["path"])
        return None

    @property
    def code(self) -> Optional[str]:
        """The ``extensions.code`` of the first error (NOT_FOUND, QUOTA_EXCEEDED...)."""
        for e in self.errors:
            c = (e.get("extensions") or {}).get("code")
            if c:
                return str(c)
        return None


def _from_errors(errors: List[Dict[str, Any]], status: Optional[int] = None, data: Any = None) -> GraphQLError:
    parts = []
    for e in errors:
        p = e.get("path")
        parts.append(("%s: %s" % (".".join(str(x) for x in p), e.get("message"))) if p else str(e.get("message")))
    return GraphQLError("; ".join(parts) or "the server answered an error", errors, status, data)


class GraphQLClient:
    """A GraphQL endpoint at URL (``http://host:port/graphql`` or https),
    called with the bearer TOKEN. Connections are kept and reused, one per
    thread. TIMEOUT is each request's, in seconds; CAFILE or SSL_CONTEXT
    choose whom an https server must be (default: the system's CAs)."""

    def __init__(self, url: str, token: str, timeout: float = DEFAULT_TIMEOUT, *, cafile: Optional[str] = None,
                 ssl_context: Optional[ssl.SSLContext] = None) -> None:
        u = urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("GraphQLClient: %r is not an http:// or https:// URL" % url)
        self.url = url
        self._u = u
        self._path = u.path or "/graphql"
        self.timeout = timeout
        self._token = token
        self._ssl = ssl_context
        if u.scheme == "https" and self._ssl is None:
            self._ssl = ssl.create_default_context(cafile=cafile)
        self._local = threading.local()
        self._conns: List[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return "GraphQLClient(%r)" % self.url  # never the token

    def _connection(self) -> http.client.HTTPConnection:
        c = getattr(self._local, "conn", None)
        if c is None:
            host, port = self._u.hostname, self._u.port
            if self._u.scheme == "https":
                c = http.client.HTTPSConnection(host, port, timeout=self.timeout, context=self._ssl)
            else:
                c = http.client.HTTPConnection(host, port, timeout=self.timeout)
            self._local.conn = c
            self._local.used = False
            with self._lock:
                self._conns.append(c)
        return c

    def _drop(self) -> None:
        c = getattr(self._local, "conn", None)
        if c is not None:
            c.close()
            self._local.conn = None

    def execute(self, query: str, variables: Optional[Dict[str, Any]] = None,
                operation_name: Optional[str] = None) -> Dict[str, Any]:
        """The ``data`` of QUERY with VARIABLES. Raises GraphQLError for the
        server's errors and for a transport failure."""
        body = {"query": query, "variables": variables or {}}
        if operation_name:
            body["operationName"] = operation_name
        raw = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "Authorization": "Bearer " + self._token}
        for attempt in (0, 1):
            c = self._connection()
            reused = self._local.used
            try:
                c.request("POST", self._path, raw, headers)
                resp = c.getresponse()
                payload = resp.read()
                self._local.used = True
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
                # a kept connection the server closed meanwhile: once more on a new one
                self._drop()
                if reused and attempt == 0:
                    continue
                raise GraphQLError("%s: %s" % (self.url, e)) from None
            except (OSError, http.client.HTTPException) as e:
                self._drop()
                if isinstance(e, socket.timeout):
                    raise GraphQLError("%s: no answer within %gs" % (self.url, self.timeout)) from None
                raise GraphQLError("%s: %s" % (self.url, e)) from None
            if resp.getheader("Connection", "").lower() == "close":
                self._drop()
            return self._answer(resp.status, resp.reason, payload)
        raise AssertionError("unreachable")

    def _answer(self, status: int, reason: str, payload: bytes) -> Dict[str, Any]:
        try:
            doc = json.loads(payload)
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            raise GraphQLError("%s: HTTP %d %s: %s" % (self.url, status, reason,
                                                      payload[:200].decode("utf-8", "replace").strip()),
                               status=status)
        if doc.get("errors"):
            err = _from_errors(doc["errors"], status, doc.get("data"))
            if status != 200:
                err.args = ("%s: HTTP %d %s: %s" % (self.url, status, reason, err.args[0]),)
            raise err
        if status != 200 or "data" not in doc:
            raise GraphQLError("%s: HTTP %d %s" % (self.url, status, reason), status=status)
        return doc["data"] or {}

    def subscribe(self, query: str, variables: Optional[Dict[str, Any]] = None) -> "Subscription":
        """A subscription (a WebSocket, protocol graphql-transport-ws): iterate
        it for each event's ``data``; GraphQLError for an error."""
        return Subscription(self, query, variables or {})

    def close(self) -> None:
        """Close the kept connections."""
        with self._lock:
            conns, self._conns = self._conns, []
        for c in conns:
            c.close()
        self._local = threading.local()


class Subscription:
    """One subscription of a GraphQLClient, on a WebSocket of its own."""

    def __init__(self, client: GraphQLClient, query: str, variables: Dict[str, Any]) -> None:
        u = client._u
        url = "%s://%s%s" % ("wss" if u.scheme == "https" else "ws", u.netloc, client._path)
        try:
            self._ws = WebSocket(url, {"Authorization": "Bearer " + client._token}, "graphql-transport-ws",
                                 client.timeout, client._ssl)
        except WebSocketError as e:
            if e.status:
                try:
                    doc = json.loads(e.body)
                    raise _from_errors(doc["errors"], e.status) from None
                except (ValueError, KeyError, TypeError):
                    pass
            raise GraphQLError("%s: %s" % (client.url, e), status=e.status) from None
        except OSError as e:
            raise GraphQLError("%s: %s" % (client.url, e)) from None
        try:
            self._ws.send(json.dumps({"type": "connection_init", "payload": {}}))
            ack = self._recv()
            if ack is None or ack.get("type") != "connection_ack":
                raise GraphQLError("%s: the server did not acknowledge the WebSocket" % client.url)
            self._ws.send(json.dumps({"id": "1", "type": "subscribe",
                                      "payload": {"query": query, "variables": variables}}))
        except BaseException:
            self._ws.close()
            raise
        self._done = False

    def _recv(self) -> Optional[Dict[str, Any]]:
        try:
            text = self._ws.recv()
        except (OSError, WebSocketError) as e:
            if self._ws.closed:
                return None
            raise GraphQLError("subscription: %s" % e) from None
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            raise GraphQLError("subscription: the server sent something not JSON") from None

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        while not self._done:
            m = self._recv()
            if m is None:
                if self._ws.closed:
                    return
                raise GraphQLError("subscription: the connection ended before the subscription did")
            t = m.get("type")
            if t == "next":
                p = m.get("payload") or {}
                if p.get("errors"):
                    raise _from_errors(p["errors"], data=p.get("data"))
                yield p.get("data") or {}
            elif t == "error":
                self._done = True
                raise _from_errors(m.get("payload") or [{"message": "subscription refused"}])
            elif t == "complete":
                self._done = True
            elif t == "ping":
                self._ws.send(json.dumps({"type": "pong"}))

    def close(self) -> None:
        self._ws.close()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text)


def _as_bytes(data: BytesLike) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


class _Calls:
    """Calls of one RemoteSandbox: the server's errors as the SDK's exceptions."""

    def __init__(self, client: GraphQLClient) -> None:
        self.client = client

    def __call__(self, query: str, **variables: Any) -> Dict[str, Any]:
        try:
            return self.client.execute(query, variables)
        except GraphQLError as e:
            raise _sdk_error(e) from None


def _sdk_error(e: GraphQLError) -> Exception:
    """The exception cvisor.Sandbox raises for what E reports."""
    for err in e.errors:
        ext = err.get("extensions") or {}
        code = ext.get("code")
        msg = str(err.get("message", ""))
        if code == "OS_ERROR":
            if ext.get("filename"):
                return OSError(int(ext.get("errno") or 5), msg, ext["filename"])
            return OSError(int(ext.get("errno") or 5), msg)
        if code == "RUN_ERROR":
            return SandboxRunError(msg)
        if code == "NOT_FOUND":
            return ValueError("%s (closed, expired or removed by the server)" % msg)
    return e


class RemoteSession(_Closing):
    """cvisor.Session of a remote sandbox: its output streams in over a
    WebSocket (from a daemon thread), reads return what came since the last
    read, and the other calls go to the server."""

    def __init__(self, calls: _Calls, ident: str, on_output: Optional[Callable[[str], None]] = None,
                 on_chunk: Optional[Callable[[str, bytes], None]] = None) -> None:
        self._calls = calls
        self.id = ident
        self._lock = threading.Lock()
        self._out = bytearray()
        self._err = bytearray()
        self._code: Optional[int] = None
        self._ended = threading.Event()
        self._error: Optional[Exception] = None
        self._closed = False
        self._on_output = on_output
        self._on_chunk = on_chunk
        self._sub = calls.client.subscribe(
            "subscription($s: String!) { sessionOutput(session: $s) { stream data exitCode } }", {"s": ident})
        self._thread = threading.Thread(target=self._pump, name="cvisor-remote-session", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            for data in self._sub:
                ev = data["sessionOutput"]
                chunk = _unb64(ev["data"])
                if ev["stream"] == "EXIT":
                    with self._lock:
                        self._code = int(ev["exitCode"])
                    break
                if self._on_chunk is not None:
                    self._on_chunk(ev["stream"], chunk)
                    continue
                if self._on_output is not None:
                    text = dec.decode(chunk)
                    if text:
                        self._on_output(text)
                    continue
                with self._lock:
                    (self._out if ev["stream"] == "STDOUT" else self._err).extend(chunk)
        except Exception as e:  # the stream broke: wait() asks the server
            self._error = e
        finally:
            if self._on_output is not None:
                rest = dec.decode(b"", final=True)
                if rest:
                    self._on_output(rest)
            self._ended.set()

    def _check_open(self) -> None:
        if self._closed:
            raise ValueError("the session is closed")

    def _take(self, buf: bytearray) -> bytes:
        self._check_open()
        with self._lock:
            data = bytes(buf)
            del buf[:]
        return data

    def read_stdout(self) -> bytes:
        """The output (under a PTY: stdout and stderr merged) since the last read."""
        return self._take(self._out)

    def read_stderr(self) -> bytes:
        """stderr since the last read (always empty under a PTY)."""
        return self._take(self._err)

    def write_stdin(self, data: BytesLike) -> int:
        """Write DATA to the program's stdin; the bytes written (OSError EPIPE
        without a PTY or once it ended)."""
        self._check_open()
        return int(self._calls("mutation($s: String!, $d: String!) { writeStdin(session: $s, data: $d) }",
                               s=self.id, d=_b64(_as_bytes(data)))["writeStdin"])

    def resize(self, rows: int, cols: int) -> None:
        """Set the size of the session's terminal."""
        self._check_open()
        self._calls("mutation($s: String!, $r: Int!, $c: Int!) { resizeSession(session: $s, rows: $r, cols: $c) }",
                    s=self.id, r=int(rows), c=int(cols))

    def exit_code(self) -> Optional[int]:
        """The exit status once the program ended (and its output arrived), else None."""
        self._check_open()
        if self._ended.is_set() and self._code is None:
            return self.wait()
        return self._code

    def wait(self) -> int:
        """Block until the program ends; its exit status."""
        self._check_open()
        self._ended.wait()
        if self._code is None:  # the stream broke: ask
            self._code = int(self._calls("mutation($s: String!) { waitSession(session: $s) }",
                                         s=self.id)["waitSession"])
        return self._code

    def kill(self) -> None:
        """End every process of the session (exit status 137)."""
        self._check_open()
        self._calls("mutation($s: String!) { killSession(session: $s) }", s=self.id)

    def close(self) -> None:
        """Kill the program if it still runs and release the session."""
        if self._closed:
            return
        self._closed = True
        try:
            self._calls("mutation($s: String!) { closeSession(session: $s) }", s=self.id)
        except (ValueError, OSError, GraphQLError):
            pass  # gone already (the sandbox closed, the server stopped)
        self._sub.close()
        if self._thread is not threading.current_thread():
            self._thread.join(10)


class RemoteSandbox(_Closing):
    """A sandbox a `cvisor-server` at URL holds, used with the bearer TOKEN:
    the methods, arguments, results and exceptions of cvisor.Sandbox.

    ::

        with RemoteSandbox("https://sandboxes.example:8470/graphql", token) as sb:
            sb.write_file("/workspace/x.py", "print(6*7)")
            print(sb.run("python3 x.py").stdout)   # 42

    The sandbox is made on the server at construction (GraphQLError with
    code QUOTA_EXCEEDED when the token may hold no more) and removed by
    close(). TIMEOUT bounds each request (a run's own timeout_ms comes on
    top); CAFILE or SSL_CONTEXT: whom an https server must be. ROUTE, with
    several servers behind URL: the URL of the server holding the sandbox,
    as a template of its ``{node}`` (the end of the sandbox id) or a
    function of it, e.g.
    ``"https://{node}.cvisor-server-headless.cvisor.svc:8470/graphql"``."""

    def __init__(self, url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT, cafile: Optional[str] = None,
                 ssl_context: Optional[ssl.SSLContext] = None, client: Optional[GraphQLClient] = None,
                 route: Optional[Union[str, Callable[[str], str]]] = None) -> None:
        self._own_client = client is None
        self._client = client or GraphQLClient(url, token, timeout, cafile=cafile, ssl_context=ssl_context)
        self._calls = _Calls(self._client)
        self._closed = False
        self.id: str = self._calls("mutation { createSandbox { id } }")["createSandbox"]["id"]
        #: the host holding the sandbox: the end of its id
        self.node: str = self.id.split(".", 1)[1] if "." in self.id else ""
        if route is not None:
            # URL reached any server (a load-balanced Service); the sandbox
            # lives on one: its calls go to the URL ROUTE gives for its node
            target = route(self.node) if callable(route) else route.format(node=self.node)
            if target != self._client.url:
                routed = GraphQLClient(target, token, timeout, cafile=cafile, ssl_context=ssl_context)
                if self._own_client:
                    self._client.close()
                self._client, self._own_client = routed, True
                self._calls = _Calls(routed)

    def __repr__(self) -> str:
        return "<RemoteSandbox %s at %s>" % (self.id, self._client.url)

    def _call(self, query: str, **variables: Any) -> Dict[str, Any]:
        if self._closed:
            raise ValueError("the sandbox is closed")
        return self._calls(query, sb=self.id, **variables)

    def _configure(self, settings: Dict[str, Any]) -> None:
        self._call("mutation($sb: String!, $s: SandboxSettings!) { configureSandbox(id: $sb, settings: $s) { id } }",
                   s=settings)

    # ---- settings ----

    def set_log_level(self, level: str) -> None:
        """"DEBUG": the keeper's and the runs' debug lines go to the server's stderr."""
        self._configure({"logLevel": str(level)})

    def set_allow_network(self, allow: bool) -> None:
        """True (default): outbound network; False: loopback only."""
        self._configure({"network": bool(allow)})

    def set_allow_listen(self, allow: bool) -> None:
        """False (default): listen(2) fails with EPERM; True: servers may listen."""
        self._configure({"listen": bool(allow)})

    def set_env(self, key: str, value: str) -> None:
        """Set KEY=VALUE for the runs that follow."""
        self._configure({"env": [{"key": key, "value": value}]})

    def set_limits(self, memory_max: int = 0, pids_max: int = 0, cpu_percent: int = 0) -> None:
        """Memory (bytes), processes and CPU share of each run; 0 leaves one
        unset (under the server's memory quota: its default). GraphQLError
        QUOTA_EXCEEDED when the token's memory quota cannot take it."""
        self._configure({"limits": {"memoryMax": int(memory_max), "pidsMax": int(pids_max),
                                    "cpuPercent": int(cpu_percent)}})

    # ---- files ----

    def write_file(self, path: str, data: BytesLike) -> None:
        """Create or replace PATH (as the program sees it) with DATA."""
        self._call("mutation($sb: String!, $p: String!, $d: String!) { writeFile(sandbox: $sb, path: $p, data: $d) }",
                   p=path, d=_b64(_as_bytes(data)))

    def read_file(self, path: str) -> bytes:
        """The whole file PATH; ``b""`` for an empty one, FileNotFoundError
        for a missing one, OSError for another failure."""
        return _unb64(self._call("query($sb: String!, $p: String!) { readFile(sandbox: $sb, path: $p) }",
                                 p=path)["readFile"])

    def delete_file(self, path: str) -> None:
        """Remove the file or symlink PATH (FileNotFoundError when missing,
        IsADirectoryError for a directory)."""
        self._call("mutation($sb: String!, $p: String!) { deleteFile(sandbox: $sb, path: $p) }", p=path)

    def copy_into(self, host_path: str, guest_path: str) -> None:
        """Copy the local HOST_PATH to GUEST_PATH in the sandbox. A
        directory goes as a tar of what its .gitignore files and root
        .dockerignore keep, Sandbox.copy_into's rules applied here: an
        ignored file or directory is never read nor sent. (The ignore files
        read go too, even those a rule excludes: the server applies the
        rules again, reaches the same verdicts with them, and leaves those
        out.) OSError, as locally, for a tree that cannot be read or a bad
        .dockerignore."""
        host_path = os.fspath(host_path)
        st = os.stat(host_path)  # FileNotFoundError(host_path) as locally
        if stat.S_ISDIR(st.st_mode):
            try:
                data = _tar.pack_tree(host_path, (e.path for e in _ignore.walk(host_path, ignore_files=True)))
            except OSError as e:
                raise OSError(e.errno, "copy_into `%s`: %s" % (host_path, e.strerror), host_path) from None
            kind, mode = "DIRECTORY", None
        elif stat.S_ISREG(st.st_mode):
            with open(host_path, "rb") as f:
                kind, data, mode = "FILE", f.read(), st.st_mode & 0o777
        else:
            raise OSError(22, "not a regular file or a directory", host_path)
        self._call("mutation($sb: String!, $p: String!, $k: TransferKind!, $d: String!, $m: Int) "
                   "{ upload(sandbox: $sb, path: $p, kind: $k, data: $d, mode: $m) }",
                   p=guest_path, k=kind, d=_b64(data), m=mode)

    def copy_out(self, guest_path: str, host_path: str) -> None:
        """Copy GUEST_PATH of the sandbox to the local HOST_PATH (a file
        created or replaced, a directory made or merged into)."""
        host_path = os.fspath(host_path)
        t = self._call("query($sb: String!, $p: String!) { download(sandbox: $sb, path: $p) { kind data } }",
                       p=guest_path)["download"]
        data = _unb64(t["data"])
        if t["kind"] == "DIRECTORY":
            os.makedirs(host_path, exist_ok=True)
            _tar.unpack_tree(data, host_path)
            return
        # a new file beside the destination, renamed over it once complete
        d = os.path.dirname(os.path.abspath(host_path))
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(host_path) + ".cvisor-", dir=d)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)
            os.replace(tmp, host_path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def cache_save(self, sandbox_path: str, key: str, backend: str = "", format: str = "gzip") -> None:
        """Archive the guest directory SANDBOX_PATH under KEY in one of the
        server's cache backends ("" or "disk": its disk cache; others by the
        names its capabilities list)."""
        self._call("mutation($sb: String!, $p: String!, $k: String!, $b: String, $f: String) "
                   "{ cacheSave(sandbox: $sb, path: $p, key: $k, backend: $b, format: $f) }",
                   p=sandbox_path, k=key, b=backend, f=format)

    def cache_restore(self, sandbox_path: str, key: str, backend: str = "", format: str = "gzip") -> None:
        """Unpack the archive saved under KEY into SANDBOX_PATH."""
        self._call("mutation($sb: String!, $p: String!, $k: String!, $b: String, $f: String) "
                   "{ cacheRestore(sandbox: $sb, path: $p, key: $k, backend: $b, format: $f) }",
                   p=sandbox_path, k=key, b=backend, f=format)

    # ---- runs ----

    def run(self, command: str, timeout_ms: Optional[int] = None) -> Output:
        """Run ``/bin/sh -c COMMAND`` with an empty stdin; a timed-out run
        has exit code 137. Raises SandboxRunError when it cannot start. The
        run is killed if this call's connection goes away."""
        r = self._call("mutation($sb: String!, $c: String!, $t: Int) "
                       "{ run(sandbox: $sb, command: $c, timeoutMs: $t) { exitCode stdout stderr report } }",
                       c=command, t=int(timeout_ms) if timeout_ms else None)["run"]
        return Output(_unb64(r["stdout"]), _unb64(r["stderr"]), int(r["exitCode"]), json.loads(r["report"]))

    def cancel(self) -> None:
        """End every run and session of this sandbox in flight now (from any
        thread): each ends as killed, exit code 137, its report's
        ``cancelled`` true. The sandbox stays usable."""
        self._call("mutation($sb: String!) { cancelSandbox(id: $sb) }")

    def _session(self, command: Optional[str], pty: bool, on_output: Optional[Callable[[str], None]] = None,
                 poll_ms: int = 15, on_chunk: Optional[Callable[[str, bytes], None]] = None) -> RemoteSession:
        s = self._call("mutation($sb: String!, $c: String, $p: Boolean) "
                       "{ startSession(sandbox: $sb, command: $c, pty: $p) { id } }", c=command, p=bool(pty))
        return RemoteSession(self._calls, s["startSession"]["id"], on_output, on_chunk)

    def run_streaming(self, command: str, on_stdout: Optional[Callable[[str], None]] = None,
                      on_stderr: Optional[Callable[[str], None]] = None, poll_ms: int = 15) -> int:
        """Run ``/bin/sh -c COMMAND``, passing decoded chunks of its output to
        the callbacks as they come (pushed by the server; POLL_MS is
        accepted for Sandbox's signature); returns the exit code."""
        decs = {"STDOUT": codecs.getincrementaldecoder("utf-8")(errors="replace"),
                "STDERR": codecs.getincrementaldecoder("utf-8")(errors="replace")}
        cbs = {"STDOUT": on_stdout, "STDERR": on_stderr}

        def on_chunk(stream: str, data: bytes) -> None:
            text = decs[stream].decode(data)
            if cbs[stream] is not None and text:
                cbs[stream](text)

        with self._session(command, False, on_chunk=on_chunk) as s:
            code = s.wait()
        for stream, dec in decs.items():
            rest = dec.decode(b"", final=True)
            if cbs[stream] is not None and rest:
                cbs[stream](rest)
        return code

    def shell(self, on_output: Optional[Callable[[str], None]] = None, poll_ms: int = 15) -> RemoteSession:
        """An interactive ``/bin/sh -i`` under a terminal of its own; its
        output goes to ON_OUTPUT (decoded) from a daemon thread when given."""
        return self._session(None, True, on_output, poll_ms)

    # ---- lifetime ----

    def close(self) -> None:
        """Remove the sandbox from the server (what runs there is killed).
        Harmless twice."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            self._calls("mutation($sb: String!) { deleteSandbox(id: $sb) }", sb=self.id)
        except ValueError:
            pass  # expired or removed already
        finally:
            if self._own_client:
                self._client.close()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._closed
